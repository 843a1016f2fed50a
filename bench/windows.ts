/**
 * 10k-message context windows for the guard benchmark, as a runtime holds
 * them: plain native-trace-shaped objects (`{tools, messages, boundary}`,
 * Anthropic-style content blocks, a tool pair every other message pair), and
 * four proposals against each, sharing the window's message objects as a
 * runtime's would: a pure append of a user message (patch), of a tool call
 * and its result (patch), a whole-pair compaction with an elision marker
 * (defer) and a compaction that keeps an orphaned result (abort).
 */

export interface PlainWindow {
  readonly tools: readonly object[];
  readonly messages: readonly object[];
  readonly boundary: number;
}

export interface GuardScenario {
  readonly name: 'append' | 'append-pair' | 'whole-pair-compaction' | 'orphaning-compaction';
  readonly expected: 'patch' | 'defer' | 'abort';
  readonly before: PlainWindow;
  readonly after: PlainWindow;
}

const TOOLS = ['query_db', 'read_file', 'search'].map((name) => ({
  name,
  description: `The ${name} tool.`,
  input_schema: { type: 'object', properties: { q: { type: 'string' } } },
}));

const text = (t: string) => ({ type: 'text', text: t });

/** Message i of the history: user question, assistant call, user result, assistant answer, repeated. */
export function historyMessage(i: number): object {
  const turn = Math.floor(i / 4);
  const id = `toolu_${turn}`;
  switch (i % 4) {
    case 0:
      return { role: 'user', content: [text(`Question ${turn}: how many rows changed in table t${turn}?`)] };
    case 1:
      return { role: 'assistant', content: [text('Let me look.'), { type: 'tool_use', id, name: TOOLS[turn % 3]?.name, input: { q: `select count(*) from t${turn}` } }] };
    case 2:
      return { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: `${turn * 7} rows` }] };
    default:
      return { role: 'assistant', content: [text(`Table t${turn} changed in ${turn * 7} rows.`)] };
  }
}

/** The three scenarios on a window of `size` messages, all consumed. */
export function guardScenarios(size = 10_000): GuardScenario[] {
  const history = Array.from({ length: size }, (_, i) => historyMessage(i));
  const before = { tools: TOOLS, messages: history, boundary: size };
  const appended = [...history, { role: 'user', content: [text('Thanks. Now the weekly totals?')] }];
  const turn = size / 4;
  const withPair = [
    ...history,
    { role: 'assistant', content: [text('Let me look.'), { type: 'tool_use', id: `toolu_${turn}`, name: 'search', input: { q: 'weekly totals' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${turn}`, content: '1,204 rows' }] },
  ];
  const marker = { role: 'user', content: [text('[elided: the first 2,000 messages, 500 whole tool pairs]')], elision: true };
  const wholePairs = [...history.slice(2000), marker];
  // Drop the first 2,002 messages: that drops turn 500's call but keeps its result.
  const orphaning = [...history.slice(2002), marker];
  return [
    { name: 'append', expected: 'patch', before, after: { tools: TOOLS, messages: appended, boundary: size } },
    { name: 'append-pair', expected: 'patch', before, after: { tools: TOOLS, messages: withPair, boundary: size } },
    { name: 'whole-pair-compaction', expected: 'defer', before, after: { tools: TOOLS, messages: wholePairs, boundary: wholePairs.length } },
    { name: 'orphaning-compaction', expected: 'abort', before, after: { tools: TOOLS, messages: orphaning, boundary: orphaning.length } },
  ];
}
