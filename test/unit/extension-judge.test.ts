/**
 * judgeRewrite judges a pure extension on the pairs it touches
 * (src/core/append-step.ts). On every step of the real files of the corpus
 * and of random request logs whose new turns break pairs in every way (an
 * unanswered call, a duplicated or orphaned result, a reused id, a result
 * after text, a schema version the registry no longer declares), its verdict
 * is exactly the full judge's, ranges included: the carried history is the
 * same bytes at other places.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { createEngineContext } from '../../src/core/context';
import { anthropicAdapter } from '../../src/core/formats/anthropic';
import { nativeAdapter } from '../../src/core/formats/native';
import { judgeFully, judgeRewrite } from '../../src/core/guard';
import { inputFromText } from '../../src/core/io';
import type { Rewrite } from '../../src/core/model';
import type { FormatAdapter } from '../../src/core/transcript';
import { WindowTracker } from '../../src/core/window-tracker';
import { recognisedCorpusFiles } from './provider-helpers';

function stepsOf(adapter: FormatAdapter, file: string, text: string): Rewrite[] {
  return [...adapter.read(inputFromText(file, text))].flatMap((e) => (e.kind === 'step' ? [e.rewrite] : []));
}

function sameVerdicts(steps: readonly Rewrite[], tokens: false | 'o200k_base' = false): number {
  const fast = createEngineContext(tokens);
  const full = createEngineContext(tokens);
  for (const rewrite of steps) assert.deepStrictEqual(judgeRewrite(rewrite, { context: fast }), judgeFully(rewrite, { context: full }));
  return steps.length;
}

test('every step of every corpus file: the same verdict as the full judge', () => {
  let steps = 0;
  for (const { adapter, file, text } of recognisedCorpusFiles()) steps += sameVerdicts(stepsOf(adapter, file, text));
  assert.ok(steps > 20, `${steps} steps judged`);
});

type Json = Record<string, unknown>;
type Turn = { calls: number; answered: number; duplicate: boolean; ghost: boolean; textFirst: boolean; reuse: boolean; version: '1' | '2' };

const turnArb: fc.Arbitrary<Turn> = fc.record({
  calls: fc.integer({ min: 0, max: 2 }),
  answered: fc.integer({ min: 0, max: 2 }),
  duplicate: fc.boolean(),
  ghost: fc.boolean(),
  textFirst: fc.boolean(),
  reuse: fc.boolean(),
  version: fc.constantFrom('1' as const, '2' as const),
});

/** A request log of growing Anthropic requests; each turn's response and results as the turn says. */
function requestLog(turns: readonly Turn[]): string {
  const tools = [{ name: 'query_db', version: '2', input_schema: { type: 'object' } }];
  const messages: Json[] = [{ role: 'user', content: 'Count the rows.' }];
  const lines: string[] = [];
  turns.forEach((turn, t) => {
    const calls = Array.from({ length: turn.calls }, (_, c) => ({
      type: 'tool_use',
      id: turn.reuse && t > 0 ? 'toolu_0_0' : `toolu_${t}_${c}`,
      name: 'query_db',
      input: { sql: `select ${t}` },
      schema_version: turn.version,
    }));
    const response = { role: 'assistant', content: [{ type: 'text', text: `Turn ${t}.` }, ...calls] };
    lines.push(JSON.stringify({ request: { model: 'claude', max_tokens: 64, tools, messages: [...messages] }, response: { type: 'message', ...response } }));
    messages.push(response);
    const results: Json[] = calls.slice(0, turn.answered).map((c) => ({ type: 'tool_result', tool_use_id: c.id, content: `${t} rows` }));
    if (turn.duplicate && results[0]) results.push(results[0]);
    if (turn.ghost) results.push({ type: 'tool_result', tool_use_id: `ghost_${t}`, content: '?' });
    messages.push({ role: 'user', content: turn.textFirst ? [{ type: 'text', text: 'Here:' }, ...results] : [...results, { type: 'text', text: 'Go on.' }] });
  });
  return lines.join('\n') + '\n';
}

test('property: random request logs, steps that break pairs in the new turn: the full judge\'s verdicts', () => {
  fc.assert(
    fc.property(fc.array(turnArb, { minLength: 2, maxLength: 10 }), fc.boolean(), (turns, tokens) => {
      sameVerdicts(stepsOf(anthropicAdapter, 'log.jsonl', requestLog(turns)), tokens ? 'o200k_base' : false);
    }),
    { numRuns: 150 },
  );
});

test('the new turns do bring findings, so the shortcut is judged on something', () => {
  const turns: Turn[] = [0, 1, 2, 3].map((t) => ({ calls: 2, answered: t % 2, duplicate: true, ghost: true, textFirst: true, reuse: t === 3, version: '1' }));
  const steps = stepsOf(anthropicAdapter, 'log.jsonl', requestLog(turns));
  const rules = new Set(steps.flatMap((s) => judgeRewrite(s).findings.map((f) => f.rule)));
  // The calls are in the window before (the logged response holds them), so what a step brings is in the results.
  for (const rule of ['tool-result-orphaned', 'tool-result-duplicated', 'tool-result-misplaced']) {
    assert.ok(rules.has(rule as never), `${rule} found`);
  }
});

/** The window findings a check reports, window by window: incremental tracker against the full one. */
function sameWindowReports(adapter: FormatAdapter, file: string, text: string): number {
  const fast = new WindowTracker(createEngineContext(false));
  const full = new WindowTracker(createEngineContext(false), false);
  let windows = 0;
  for (const event of adapter.read(inputFromText(file, text))) {
    if (event.kind !== 'window') continue;
    assert.deepStrictEqual(fast.next(event.window), full.next(event.window), `window ${++windows} of ${file}`);
  }
  return windows;
}

test('window findings reported window by window: the incremental path gives the full path\'s, on every corpus file', () => {
  let windows = 0;
  for (const { adapter, file, text } of recognisedCorpusFiles()) windows += sameWindowReports(adapter, file, text);
  assert.ok(windows > 20, `${windows} windows`);
});

test('property: random request logs, window by window: the incremental path gives the full path\'s findings', () => {
  fc.assert(
    fc.property(fc.array(turnArb, { minLength: 2, maxLength: 10 }), (turns) => {
      sameWindowReports(anthropicAdapter, 'log.jsonl', requestLog(turns));
    }),
    { numRuns: 200 },
  );
});

/** Native traces (live windows): rewrites that append any message, or drop one. */
test('property: random native traces, window by window: the incremental path gives the full path\'s findings', () => {
  const message = fc.oneof(
    fc.record({ role: fc.constantFrom('user', 'assistant'), content: fc.constantFrom('ok', 'go on') }),
    fc.record({ role: fc.constant('assistant'), content: fc.constant(''), tool_calls: fc.array(fc.record({ id: fc.constantFrom('a', 'b', 'c'), name: fc.constant('f'), input: fc.constant({}) }), { minLength: 1, maxLength: 2 }) }),
    fc.record({ role: fc.constant('tool'), tool_call_id: fc.constantFrom('a', 'b', 'c', 'z'), content: fc.constant('done') }),
  );
  const op = fc.record({ add: fc.array(message, { maxLength: 3 }), drop: fc.option(fc.nat(20), { freq: 4 }) });
  fc.assert(
    fc.property(fc.array(message, { maxLength: 6 }), fc.array(op, { minLength: 1, maxLength: 10 }), (start, ops) => {
      const lines: unknown[] = [{ type: 'prefix-lens/trace', version: 1 }, { type: 'window', tools: [{ name: 'f' }], messages: start }];
      let messages = [...start];
      for (const { add, drop } of ops) {
        messages = drop !== null && messages.length ? messages.filter((_, i) => i !== drop % messages.length) : [...messages, ...add];
        lines.push({ type: 'rewrite', source: 'runtime', messages });
      }
      sameWindowReports(nativeAdapter, 't.jsonl', lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    }),
    { numRuns: 300 },
  );
});
