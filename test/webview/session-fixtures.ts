/** Session files written for the session view's browser tests and bench, in the Anthropic request shape. */

/** An Anthropic request body of `turns` user → tool_use → tool_result turns (3 messages each), texts given. */
export function anthropicRequest(turns: number, say: (i: number) => string = (i) => `Turn ${i}: read\nsrc/module_${i}.ts`): string {
  const messages: unknown[] = [];
  for (let i = 0; i < turns; i++) {
    const id = `toolu_${String(i).padStart(6, '0')}`;
    messages.push({ role: 'user', content: [{ type: 'text', text: say(i) }] });
    messages.push({ role: 'assistant', content: [{ type: 'text', text: 'Reading it.' }, { type: 'tool_use', id, name: i % 2 ? 'read_file' : 'grep', input: { path: `src/module_${i}.ts` } }] });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: `export const v${i} = ${i};` }] });
  }
  messages.push({ role: 'user', content: [{ type: 'text', text: 'Done?' }] });
  return JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 1024, tools: [{ name: 'read_file', input_schema: { type: 'object' } }, { name: 'grep', input_schema: { type: 'object' } }], messages });
}

