/**
 * The request-log fast path of `checkTranscript` (carried history left as
 * first read, windows judged on what each request adds, positions and pair
 * indexes extended, usage from the parsed records) against the reference path
 * that reads every line in full (the same codec without its `carrier`): the
 * whole report, findings with their ranges and messages, steps, decisions,
 * cache impact, session, usage. On random logs of the three provider formats
 * whose requests append, edit deep in the history or at its end, drop a
 * call or a result, change the
 * registry, compact whole pairs or cut one, re-render with another key order,
 * duplicate a result, or are cut short; and `checkAgainst` on two of them.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { checkAgainst, checkTranscript, checkTranscriptWith } from '../../src/core/check';
import { anthropicAdapter, anthropicCodec } from '../../src/core/formats/anthropic';
import { openaiChatAdapter, openaiChatCodec } from '../../src/core/formats/openai-chat';
import { openaiResponsesAdapter, openaiResponsesCodec } from '../../src/core/formats/openai-responses';
import { readRequestLog, type ProviderCodec } from '../../src/core/formats/request-log';
import { inputFromFile, inputFromText } from '../../src/core/io';
import type { Report } from '../../src/core/results';
import type { FormatAdapter } from '../../src/core/transcript';

type Json = Record<string, unknown>;
type Format = 'anthropic' | 'openai-chat' | 'openai-responses';

const CODECS: Record<Format, { adapter: FormatAdapter; codec: ProviderCodec }> = {
  anthropic: { adapter: anthropicAdapter, codec: anthropicCodec },
  'openai-chat': { adapter: openaiChatAdapter, codec: openaiChatCodec },
  'openai-responses': { adapter: openaiResponsesAdapter, codec: openaiResponsesCodec },
};

/** The reference: the same codec without a carrier, so every line is parsed and read in full. */
function reference(format: Format): FormatAdapter {
  const { adapter, codec } = CODECS[format];
  return { ...adapter, read: (input) => readRequestLog(input, { ...codec, carrier: undefined }) };
}

/** A turn of the conversation, format-neutral. */
interface Turn {
  readonly text: string;
  readonly calls: readonly { readonly id: string; readonly input: Json }[];
}

/** The items one turn adds to the history in each format: the model's output, then the results. */
function turnItems(format: Format, t: Turn, n: number): Json[] {
  const results = t.calls.map((c) => `rows for ${c.id}: ${n * 7}`);
  if (format === 'anthropic') {
    const content = [{ type: 'text', text: t.text }, ...t.calls.map((c) => ({ type: 'tool_use', id: c.id, name: 'q', input: c.input }))];
    return [{ role: 'assistant', content }, ...(t.calls.length ? [{ role: 'user', content: t.calls.map((c, k) => ({ type: 'tool_result', tool_use_id: c.id, content: results[k] })) }] : [])];
  }
  if (format === 'openai-chat') {
    const tool_calls = t.calls.map((c) => ({ id: c.id, type: 'function', function: { name: 'q', arguments: JSON.stringify(c.input) } }));
    return [{ role: 'assistant', content: t.text, ...(tool_calls.length && { tool_calls }) }, ...t.calls.map((c, k) => ({ role: 'tool', tool_call_id: c.id, content: results[k] }))];
  }
  const output = [{ type: 'message', id: `msg_${n}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: t.text }] }, ...t.calls.map((c) => ({ type: 'function_call', call_id: c.id, name: 'q', arguments: JSON.stringify(c.input) }))];
  return [...output, ...t.calls.map((c, k) => ({ type: 'function_call_output', call_id: c.id, output: results[k] }))];
}

/** The model's output of a turn, as the format's logged response. */
function response(format: Format, t: Turn, n: number): Json {
  const items = turnItems(format, t, n);
  const usage = { input_tokens: 100 * n, output_tokens: 7, cache_read_input_tokens: 50 * n };
  if (format === 'anthropic') return { id: `msg_${n}`, type: 'message', ...items[0], usage };
  if (format === 'openai-chat') return { id: `c${n}`, choices: [{ index: 0, message: items[0] }], usage: { prompt_tokens: 100 * n, prompt_tokens_details: { cached_tokens: 50 * n } } };
  return { id: `resp_${n}`, output: items.filter((i) => i.type !== 'function_call_output'), usage: { input_tokens: 100 * n, input_tokens_details: { cached_tokens: 10 } } };
}

const TOOLS: Record<Format, Json[]> = {
  anthropic: [{ name: 'q', input_schema: { type: 'object', properties: { sql: { type: 'string' } } } }],
  'openai-chat': [{ type: 'function', function: { name: 'q', parameters: { type: 'object' } } }],
  'openai-responses': [{ type: 'function', name: 'q', parameters: { type: 'object' } }],
};

function request(format: Format, history: Json[], tools: Json[]): Json {
  if (format === 'anthropic') return { model: 'claude', max_tokens: 64, system: 'Be careful.', tools, messages: history };
  if (format === 'openai-chat') return { model: 'gpt', tools, messages: [{ role: 'system', content: 'Be careful.' }, ...history] };
  return { model: 'gpt', instructions: 'Be careful.', tools, input: history };
}

type Mutation = 'append' | 'orphan' | 'drop-result' | 'edit-deep' | 'edit-last' | 'tools' | 'compact-pairs' | 'compact-cut' | 'reorder-keys' | 'duplicate-result' | 'cut-short';

/** One mutation's change to the history a request shows. */
function mutated(mutation: Mutation, history: Json[], format: Format): Json[] {
  const h = history.slice();
  const resultAt = h.findIndex((m) => JSON.stringify(m).includes('rows for'));
  switch (mutation) {
    case 'orphan':
      return resultAt > 0 ? [...h.slice(0, resultAt - 1), ...h.slice(resultAt)] : h;
    case 'drop-result':
      return resultAt > 0 ? [...h.slice(0, resultAt), ...h.slice(resultAt + 1)] : h;
    case 'edit-deep':
      if (h.length > 2) h[1] = format === 'openai-responses' ? { role: 'assistant', content: 'rewritten' } : { role: 'assistant', content: 'rewritten' };
      return h;
    case 'edit-last':
      if (h.length > 1) h[h.length - 1] = { role: 'user', content: 'changed at the end' };
      return h;
    case 'compact-pairs':
      return h.length > 4 ? [h[0] as Json, { role: 'user', content: '[earlier turns summarised]' }, ...h.slice(1 + turnsLength(h, format))] : h;
    case 'compact-cut':
      return h.length > 3 ? [h[0] as Json, ...h.slice(2)] : h;
    case 'reorder-keys':
      return h.map((m) => Object.fromEntries(Object.entries(m).reverse()));
    case 'duplicate-result':
      return resultAt > 0 ? [...h, h[resultAt] as Json] : h;
    default:
      return h;
  }
}

/** How many items the first turn of the history takes (its output and results). */
function turnsLength(history: Json[], format: Format): number {
  let n = 1;
  while (n + 1 < history.length && format !== 'anthropic' && history[n + 1]?.role !== 'assistant' && history[n + 1]?.type !== 'message') n++;
  return format === 'anthropic' ? 2 : n;
}

const turnArb: fc.Arbitrary<Turn> = fc.record({
  text: fc.constantFrom('Querying.', 'Looking at the table ünïcode.', 'Done for now.'),
  calls: fc.array(fc.record({ id: fc.constant(''), input: fc.constantFrom({ sql: 'select 1' }, { sql: 'select 2', limit: 10 }) }), { maxLength: 2 }),
});

function logText(format: Format, turns: readonly Turn[], mutations: ReadonlyMap<number, Mutation>, opening = 'Count the rows.'): string {
  const history: Json[] = [{ role: 'user', content: opening }];
  const lines: string[] = [];
  turns.forEach((turn, i) => {
    const t = { ...turn, calls: turn.calls.map((c, k) => ({ ...c, id: `call_${i}_${k}` })) };
    const mutation = mutations.get(i) ?? 'append';
    const tools = mutation === 'tools' ? [...TOOLS[format], { ...TOOLS[format][0], name: 'extra', ...(format === 'openai-chat' && { function: { name: 'extra' } }) }] : TOOLS[format];
    const line = JSON.stringify({ request: request(format, mutated(mutation, history, format), tools), response: response(format, t, i) });
    lines.push(mutation === 'cut-short' ? line.slice(0, Math.floor(line.length * 0.8)) : line);
    history.push(...turnItems(format, t, i));
  });
  return lines.join('\n') + '\n';
}

function comparable(report: Report): unknown {
  return JSON.parse(JSON.stringify(report));
}

const mutationArb = fc.constantFrom<Mutation>('orphan', 'drop-result', 'edit-deep', 'edit-last', 'tools', 'compact-pairs', 'compact-cut', 'reorder-keys', 'duplicate-result', 'cut-short');
const formatArb = fc.constantFrom<Format>('anthropic', 'openai-chat', 'openai-responses');
const logArb = fc.record({
  format: formatArb,
  turns: fc.array(turnArb, { minLength: 2, maxLength: 12 }),
  planted: fc.array(fc.tuple(fc.nat(11), mutationArb), { maxLength: 3 }),
});

test('property: random logs of the three formats: the fast path gives exactly the reference report', () => {
  let findings = 0;
  fc.assert(
    fc.property(logArb, fc.boolean(), ({ format, turns, planted }, tokens) => {
      const text = logText(format, turns, new Map(planted));
      const options = tokens ? {} : { tokens: false as const };
      const fast = checkTranscript(inputFromText('log.jsonl', text), options);
      const full = checkTranscriptWith(reference(format), inputFromText('log.jsonl', text), options);
      assert.deepEqual(comparable(fast), comparable(full));
      findings += fast.findings.length;
    }),
    { numRuns: 150, seed: 15 },
  );
  assert.ok(findings > 50, `${findings} findings compared`);
});

test('property: random logs read from a file (each line compared with the one before as bytes): the reference report', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prefix-lens-'));
  const file = path.join(dir, 'log.jsonl');
  let shared = 0;
  // A long first message, so that every line shares more than the few bytes worth comparing with the one before.
  const opening = `Count the rows — ünïcödé 😀 ${'of the table '.repeat(100)}`;
  fc.assert(
    fc.property(logArb, fc.boolean(), fc.boolean(), ({ format, turns, planted }, tokens, crlf) => {
      const lf = logText(format, turns, new Map(planted), opening);
      const text = crlf ? lf.replace(/\n/g, '\r\n') : lf;
      fs.writeFileSync(file, text);
      // Named: a first line cut short in the long first message leaves nothing to recognise the format by.
      const options = { format, ...(tokens ? {} : { tokens: false as const }) };
      const fast = checkTranscript(inputFromFile(file), options);
      // A line cut short may end in half a surrogate pair: the file holds what writing it made of it.
      const full = checkTranscriptWith(reference(format), inputFromText(file, fs.readFileSync(file, 'utf8')), options);
      assert.deepEqual(comparable(fast), comparable(full));
      shared += [...inputFromFile(file).lines()].filter((line) => (line.same ?? 0) > opening.length).length;
    }),
    { numRuns: 100, seed: 15 },
  );
  fs.rmSync(dir, { recursive: true });
  assert.ok(shared > 300, `${shared} lines shared their history with the line before`);
});

test('a request read from a file that repeats the one before it (its carried messages all there is), with another response: the reference report', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prefix-lens-'));
  const file = path.join(dir, 'log.jsonl');
  const opening = `Count the rows ${'of the table '.repeat(100)}`;
  const turns: Turn[] = [{ text: 'Querying.', calls: [{ id: '', input: { sql: 'select 1' } }] }, { text: 'Done for now.', calls: [] }];
  for (const format of ['anthropic', 'openai-chat', 'openai-responses'] as const) {
    const lines = logText(format, turns, new Map(), opening).trimEnd().split('\n');
    // A retry: the same request, logged with another response (the line differs just after its messages).
    const retry = (lines[lines.length - 1] as string).replace('"response":{"id":"', '"response":{"id":"retry_');
    const text = [...lines, retry].join('\n') + '\n';
    fs.writeFileSync(file, text);
    const fast = checkTranscript(inputFromFile(file), { format });
    assert.deepEqual(comparable(fast), comparable(checkTranscriptWith(reference(format), inputFromText(file, text))));
    // The repeat adds nothing: a new thread (no step), read all the same.
    assert.equal(fast.session?.threads?.length, 2, format);
  }
  fs.rmSync(dir, { recursive: true });
});

test('property: checkAgainst on two random logs: the report of the windows read exact (keepRewrites)', () => {
  fc.assert(
    fc.property(formatArb, fc.array(turnArb, { minLength: 2, maxLength: 8 }), fc.array(turnArb, { minLength: 2, maxLength: 8 }), mutationArb, (format, a, b, mutation) => {
      const input = (text: string) => inputFromText('log.jsonl', text);
      const older = logText(format, a, new Map());
      const newer = logText(format, b, new Map([[b.length - 1, mutation]]));
      const fast = checkAgainst(input(older), input(newer), { tokens: false, format });
      // Keeping the windows, every window is read with its carried messages moved to its line.
      const exact = checkAgainst(input(older), input(newer), { tokens: false, format, keepRewrites: true });
      const withoutWindows = (r: Report) => comparable({ ...r, steps: r.steps.map(({ rewrite: _, ...step }) => step), finalWindow: undefined, threadWindows: undefined });
      assert.deepEqual(withoutWindows(fast), withoutWindows(exact));
    }),
    { numRuns: 60 },
  );
});
