/**
 * 10k-message context windows for the guard benchmark, built in memory in the
 * neutral model (Anthropic format, a tool pair every other message pair), and
 * three proposals against each: a pure append (patch), a whole-pair compaction
 * with an elision marker (defer) and a compaction that keeps an orphaned result
 * (abort).
 */
import { fromValue } from '../src/core/json/parse';
import type { Block, ContextWindow, Message, ToolSchema } from '../src/core/model';

export interface GuardScenario {
  readonly name: 'append' | 'whole-pair-compaction' | 'orphaning-compaction';
  readonly expected: 'patch' | 'defer' | 'abort';
  readonly before: ContextWindow;
  readonly after: ContextWindow;
}

const TOOLS: ToolSchema[] = ['query_db', 'read_file', 'search'].map((name) => ({
  name,
  declaration: fromValue({ name, description: `The ${name} tool.`, input_schema: { type: 'object', properties: { q: { type: 'string' } } } }),
}));

const text = (t: string): Block => ({ kind: 'text', text: t });

/** Message i of the history: user question, assistant call, user result, assistant answer, repeated. */
function historyMessage(i: number): Message {
  const turn = Math.floor(i / 4);
  const id = `toolu_${turn}`;
  switch (i % 4) {
    case 0:
      return { role: 'user', blocks: [text(`Question ${turn}: how many rows changed in table t${turn}?`)] };
    case 1:
      return {
        role: 'assistant',
        blocks: [text('Let me look.'), { kind: 'tool_call', id, name: TOOLS[turn % 3]!.name, input: fromValue({ q: `select count(*) from t${turn}` }) }],
      };
    case 2:
      return { role: 'user', blocks: [{ kind: 'tool_result', callId: id, content: fromValue(`${turn * 7} rows`) }] };
    default:
      return { role: 'assistant', blocks: [text(`Table t${turn} changed in ${turn * 7} rows.`)] };
  }
}

export function windowOf(messages: readonly Message[], boundary: number): ContextWindow {
  return { format: 'anthropic', tools: TOOLS, messages, boundary, live: false };
}

/** The three scenarios on a window of `size` messages, all consumed. */
export function guardScenarios(size = 10_000): GuardScenario[] {
  const history = Array.from({ length: size }, (_, i) => historyMessage(i));
  const before = windowOf(history, size);
  const appended = [...history, { role: 'user', blocks: [text('Thanks. Now the weekly totals?')] } satisfies Message];
  const marker: Message = { role: 'user', blocks: [text('[elided: the first 2,000 messages, 500 whole tool pairs]')], elision: true };
  const wholePairs = [...history.slice(2000), marker];
  // Drop the first 2,002 messages: that drops turn 500's call but keeps its result.
  const orphaning = [...history.slice(2002), marker];
  return [
    { name: 'append', expected: 'patch', before, after: windowOf(appended, size) },
    { name: 'whole-pair-compaction', expected: 'defer', before, after: windowOf(wholePairs, wholePairs.length) },
    { name: 'orphaning-compaction', expected: 'abort', before, after: windowOf(orphaning, orphaning.length) },
  ];
}
