/**
 * Carrying a request log's repeated history over (formats/carry.ts): the fast
 * path, which parses only each request's new tail, must give exactly the
 * report of the reference path that reads every line in full (the same
 * Anthropic codec without its `carrier`): findings, ranges, decisions, steps,
 * and the windows themselves.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, it } from 'node:test';
import type { Report } from '../../src/core/results';
import { checkTranscript, checkTranscriptWith } from '../../src/core/check';
import { anthropicAdapter, anthropicCodec } from '../../src/core/formats/anthropic';
import { readRequestLog } from '../../src/core/formats/request-log';
import { inputFromText } from '../../src/core/io';
import { CARRIED_FROM, type Message } from '../../src/core/model';
import { RenderCache, renderMessage } from '../../src/core/render';
import type { FormatAdapter } from '../../src/core/transcript';

/** The reference: the same codec without a carrier, so every line is parsed and read in full. */
const referenceAdapter: FormatAdapter = {
  ...anthropicAdapter,
  read: (input) => readRequestLog(input, { ...anthropicCodec, carrier: undefined }),
};

type Json = Record<string, unknown>;

const TOOLS = [{ name: 'query_db', description: 'Runs SQL.', input_schema: { type: 'object', properties: { sql: { type: 'string' } } } }];

/** A growing conversation: each turn a tool call (one turn in three two parallel ones) and their results. */
function history(turns: number): { messages: Json[]; responses: Json[] } {
  const messages: Json[] = [{ role: 'user', content: 'Count the rows of the orders table, please.' }];
  const responses: Json[] = [];
  for (let t = 0; t < turns; t++) {
    const calls = Array.from({ length: t % 3 === 2 ? 2 : 1 }, (_, c) => ({ type: 'tool_use', id: `toolu_${t}_${c}`, name: 'query_db', input: { sql: `select ${t} from orders`, limit: 10 + c } }));
    const content = [{ type: 'text', text: `Turn ${t}: querying the table again.` }, ...calls];
    responses.push({ id: `msg_${t}`, type: 'message', role: 'assistant', content, stop_reason: 'tool_use' });
    messages.push({ role: 'assistant', content });
    messages.push({ role: 'user', content: calls.map((c) => ({ type: 'tool_result', tool_use_id: c.id, content: `rows: ${t * 7 + 1.5e3}` })) });
  }
  return { messages, responses };
}

type Mutation = 'orphan' | 'mutate-consumed' | 'invalid-json' | 'tools-changed' | 'cache-control' | 'number-tail';

/** One request line per turn; `mutations[i]` changes request i. */
function requestLog(turns: number, mutations: ReadonlyMap<number, Mutation>): string {
  const { messages, responses } = history(turns);
  const lines: string[] = [];
  for (let i = 0; i < turns; i++) {
    let shown = messages.slice(0, 1 + 2 * i);
    let tools: Json[] = TOOLS;
    const mutation = mutations.get(i);
    if (mutation === 'orphan' && i > 2) shown = [...shown.slice(0, 3), ...shown.slice(4)]; // drops turn 1's results' call
    if (mutation === 'mutate-consumed' && i > 1) shown = shown.map((m, k) => (k === 1 ? { ...m, content: [{ type: 'text', text: 'rewritten' }] } : m));
    if (mutation === 'tools-changed') tools = [...TOOLS, { name: 'search', input_schema: { type: 'object' } }];
    if (mutation === 'cache-control' && shown.length > 2) shown = shown.map((m, k) => (k === shown.length - 1 ? { ...m, cache_control: { type: 'ephemeral' } } : m));
    const request = { model: 'claude', max_tokens: 1024, system: 'You are careful.', tools, messages: shown };
    const line = JSON.stringify({ request, response: responses[i] });
    if (mutation === 'invalid-json') lines.push(line.slice(0, Math.floor(line.length * 0.7)));
    else if (mutation === 'number-tail') lines.push(line.replace(/"max_tokens":1024/, '"max_tokens":1024.0'));
    else lines.push(line);
  }
  return lines.join('\n') + '\n';
}

/** Everything of a report, with the windows of its steps as JSON (the carried-from link is a symbol: not in it). */
function comparable(report: Report): unknown {
  return JSON.parse(JSON.stringify(report));
}

function bothWays(text: string): { fast: Report; reference: Report } {
  const input = () => inputFromText('log.jsonl', text);
  return {
    fast: checkTranscriptWith(anthropicAdapter, input(), { tokens: false, keepRewrites: true }),
    reference: checkTranscriptWith(referenceAdapter, input(), { tokens: false, keepRewrites: true }),
  };
}

function carriedMessages(text: string): number {
  let carried = 0;
  for (const event of anthropicAdapter.read(inputFromText('log.jsonl', text))) {
    if (event.kind === 'window') carried += event.window.messages.filter((m) => m[CARRIED_FROM]).length;
  }
  return carried;
}

describe('request-log carry: same report as reading every line in full', () => {
  const mutations = new Map<number, Mutation>([
    [5, 'orphan'],
    [9, 'mutate-consumed'],
    [12, 'invalid-json'],
    [15, 'tools-changed'],
    [18, 'cache-control'],
  ]);
  const text = requestLog(24, mutations);

  it('finds the planted problems, with the same findings, ranges, steps and windows', () => {
    const { fast, reference } = bothWays(text);
    assert.deepEqual(comparable(fast), comparable(reference));
    const rules = new Set(fast.findings.map((f) => f.rule));
    for (const rule of ['tool-result-orphaned', 'prefix-mutated', 'invalid-json'] as const) assert.ok(rules.has(rule), `${rule} found`);
    assert.ok(fast.steps.some((s) => s.decision === 'abort'));
    assert.ok(fast.steps.some((s) => s.decision === 'patch'));
  });

  it('carries the repeated history instead of reading it again', () => {
    const clean = requestLog(24, new Map());
    assert.ok(carriedMessages(clean) > 200, 'most messages are carried');
    assert.ok(carriedMessages(text) > 100);
  });

  it('locates carried messages (and their blocks) in the line they are now in', () => {
    const log = requestLog(8, new Map());
    const report = checkTranscript(inputFromText('log.jsonl', log), { tokens: false, keepRewrites: true });
    const window = report.finalWindow!;
    const expected = history(8).messages.slice(0, 15);
    const lastLine = report.lineStarts[7]!;
    assert.equal(window.messages.length, 1 + expected.length);
    window.messages.slice(1).forEach((message, k) => {
      assert.ok(message.source!.start > lastLine, 'in the last line');
      assert.equal(log.slice(message.source!.start, message.source!.end), JSON.stringify(expected[k]));
      for (const block of message.blocks) assert.ok('{"'.includes(log.charAt(block.source!.start)), 'a block starts on its value');
    });
  });

  it('a copy of a carried message with other blocks (the fix planner spreads messages) gets its own render', () => {
    const report = checkTranscript(inputFromText('log.jsonl', requestLog(6, new Map())), { tokens: false, keepRewrites: true });
    const carried = report.finalWindow!.messages.find((m) => m[CARRIED_FROM] && m.blocks.length > 1)!;
    assert.ok(carried, 'a carried message with several blocks');
    const cache = new RenderCache();
    assert.equal(cache.messageText(carried), renderMessage(carried[CARRIED_FROM]!), 'shares the render of its first reading');
    const edited: Message = { ...carried, blocks: carried.blocks.slice(1) };
    assert.equal(edited[CARRIED_FROM], undefined);
    assert.equal(cache.messageText(edited), renderMessage(edited));
    assert.notEqual(cache.messageText(edited), cache.messageText(carried));
  });

  it('property: random mutations anywhere give the reference report', () => {
    const kinds: Mutation[] = ['orphan', 'mutate-consumed', 'invalid-json', 'tools-changed', 'cache-control', 'number-tail'];
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 14 }), fc.array(fc.tuple(fc.nat(13), fc.constantFrom(...kinds)), { maxLength: 4 }), (turns, planted) => {
        const { fast, reference } = bothWays(requestLog(turns, new Map(planted)));
        assert.deepEqual(comparable(fast), comparable(reference));
      }),
      { numRuns: 40 },
    );
  });
});
