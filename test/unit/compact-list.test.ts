/**
 * The compact list (src/core/compact-list.ts) that holds a check's steps and
 * usage records: what it gives back is what it was given (keys in order,
 * values, references), records made once, and it holds less than the
 * records themselves (what the bench's `peak-live-heap` counts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { CompactList } from '../../src/core/compact-list';
import { checkTranscript } from '../../src/core/check';
import { settledHeap } from './settled-heap';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** A small deterministic PRNG. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => ((a = (Math.imul(a, 1103515245) + 12345) >>> 0) / 4294967296);
}

const SHARED = Object.freeze(['rule-a']);

/** A random value of the kinds records hold: small and large integers, -0, fractions, NaN, strings, booleans, undefined, null, arrays, frozen and nested objects. */
function value(rand: () => number, depth: number): unknown {
  const r = rand();
  if (r < 0.15) return Math.floor(rand() * 1000);
  if (r < 0.2) return [2 ** 30, -(2 ** 30) - 1, 2 ** 31, 2 ** 53, -0, 0.5, Number.NaN, Infinity, -7][Math.floor(rand() * 9)];
  if (r < 0.3) return ['patch', 'main', '', 'a:b,{c}', '__proto__'][Math.floor(rand() * 5)];
  if (r < 0.38) return rand() < 0.5;
  if (r < 0.42) return rand() < 0.5 ? undefined : null;
  if (r < 0.48) return rand() < 0.5 ? SHARED : [1, 'x'];
  if (r < 0.52) return Object.freeze({ start: 1, end: 2 });
  if (depth < 4 && r < 0.8) return record(rand, depth + 1);
  return { start: Math.floor(rand() * 1e6), end: Math.floor(rand() * 1e6) };
}

function record(rand: () => number, depth: number): Record<string, unknown> {
  const keys = ['index', 'decision', 'range', 'boundary', 'a:b', '{', '1', 'cacheImpact'].filter(() => rand() < 0.6);
  const out: Record<string, unknown> = {};
  for (const key of keys) out[key] = value(rand, depth);
  return out;
}

/** Keys in order, values (references where not plain objects) and the kind of every nested object, as `deepEqual` does not tell them. */
function sameRecord(got: unknown, want: unknown, path: string): void {
  if (typeof want !== 'object' || want === null || Array.isArray(want) || Object.isFrozen(want)) return assert.ok(Object.is(got, want), `${path}: ${String(got)} is not ${String(want)}`);
  assert.equal(typeof got, 'object', path);
  assert.deepEqual(Object.keys(got as object), Object.keys(want), `${path}: keys`);
  assert.equal(Object.getPrototypeOf(got), Object.getPrototypeOf(want), `${path}: prototype`);
  for (const key of Object.keys(want)) sameRecord((got as Record<string, unknown>)[key], (want as Record<string, unknown>)[key], `${path}.${key}`);
}

test('a compact list gives back its records: keys in order, the same values and references, made once, forks independent', () => {
  const rand = random(12);
  for (let round = 0; round < 50; round++) {
    const records: object[] = [];
    const list = new CompactList<object>();
    const n = Math.floor(rand() * 40);
    const odd = Object.assign(Object.create(null) as object, { start: 1 });
    for (let i = 0; i < n; i++) {
      const r = rand() < 0.1 ? odd : rand() < 0.05 ? { [Symbol('s')]: 1, a: 1 } : record(rand, 1);
      records.push(r);
      list.push(r, rand() < 0.9);
    }
    assert.equal(list.length, n);
    const fork = list.fork();
    const extra = record(rand, 1);
    list.push(extra);
    const all = list.all();
    assert.equal(all.length, n + 1);
    records.forEach((r, i) => sameRecord(all[i], r, `round ${round} record ${i}`));
    sameRecord(all[n], extra, 'after the fork');
    assert.equal(fork.length, n, 'the fork has not the record pushed after it');
    assert.ok(all.every((r, i) => list.all()[i] === r && list.at(i) === r), 'made once: the same objects on every read');
    assert.ok(fork.all().every((r, i) => r === all[i]), 'the fork shares the records made before it');
  }
});

test("a compact list of a report's steps holds less than half of what the steps hold as objects", () => {
  // As check.ts makes them: the strings and the empty rules shared by every step, a range, a boundary and a cache impact of its own.
  const step = (i: number) => ({
    index: i + 1,
    decision: 'patch',
    source: 'request',
    applied: true,
    rules: SHARED,
    range: { start: i * 5_000, end: i * 5_000 + 4_900 },
    boundary: { messages: 2 * i, offset: 500 * i, tokens: 125 * i },
    cacheImpact: { consumedTokens: 125 * i, invalidatedTokens: 0 },
  });
  const n = 20_000;
  const heap = () => (gc(), process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers);
  const base = heap();
  const list = new CompactList<object>();
  for (let i = 0; i < n; i++) list.push(step(i));
  const compact = heap() - base;
  const objects: object[] = [];
  for (let i = 0; i < n; i++) objects.push(step(i));
  const asObjects = heap() - base - compact;
  assert.equal(JSON.stringify(list.all()), JSON.stringify(objects));
  // ~48 bytes a step here (8 small integers, 4 references, its shape), ~180 as objects.
  assert.ok(compact < asObjects / 2, `compact ${compact} bytes, as objects ${asObjects}`);
});

test("a check's steps and usage held compactly read as those held as objects (a check that keeps its rewrites keeps its steps as they are)", () => {
  const lines = Array.from({ length: 30 }, (_, n) => {
    const messages = Array.from({ length: n + 1 }, (_, k) => ({ role: k % 2 === 0 ? 'user' : 'assistant', content: k === 3 && n > 20 ? 'edited' : `turn ${k}` }));
    const usage = { input_tokens: 10 + n, output_tokens: 5, cache_read_input_tokens: n, ...(n % 4 === 0 && { cache_creation_input_tokens: 2 ** 31 + n }) };
    return JSON.stringify({ request: { model: 'claude-x', max_tokens: 8, messages }, response: { role: 'assistant', type: 'message', content: [{ type: 'text', text: `turn ${n + 1}` }], usage } });
  });
  const text = lines.join('\n');
  const compact = checkTranscript({ file: 'log.jsonl', text });
  const kept = checkTranscript({ file: 'log.jsonl', text }, { keepRewrites: true });
  assert.equal(compact.steps.length, 29);
  assert.ok(compact.steps.some((s) => s.decision !== 'patch') && compact.steps.some((s) => s.decision === 'patch'));
  const withoutRewrite = kept.steps.map(({ rewrite, ...step }) => (assert.ok(rewrite), step));
  assert.equal(JSON.stringify(compact.steps), JSON.stringify(withoutRewrite));
  assert.equal(JSON.stringify(compact.session), JSON.stringify(kept.session));
  assert.ok(compact.session?.usage, 'usage read');
});

test('integers 0 and 1 go with the template: records whose counts are mostly empty hold only their other integers', () => {
  const record = (i: number) => ({ index: i + 2, thread: 1, invalidated: 0, cache: { read: 0, created: i % 2 }, tokens: i + 7 });
  const bytes = Math.min(
    ...[0, 1, 2].map(() => {
      const before = settledHeap();
      const list = new CompactList<object>();
      for (let i = 0; i < 20_000; i++) list.push(record(i));
      const held = (settledHeap() - before) / 20_000;
      assert.deepEqual(list.at(3), record(3));
      return held;
    }),
  );
  // 2 integers and a template index a record, with the arrays' room to grow: ~30 bytes; 5-6 integers (~60) before.
  assert.ok(bytes < 44, `${bytes.toFixed(1)} bytes a record`);
});

test("a compact list holds its records' integers as varint bytes (2-4 bytes for a step's offsets and counts), not 8-byte array elements", () => {
  // A request log's step as check.ts makes it: offsets in a 100 MB file, token counts in the thousands.
  const step = (i: number) => ({
    index: i + 2,
    decision: 'patch',
    source: 'request',
    applied: true,
    rules: SHARED,
    range: { start: 40_000_000 + i * 3_000, end: 40_000_000 + i * 3_000 + 2_900 },
    boundary: { messages: 2 * i, offset: 120_000 + 150 * i, tokens: 30_000 + 40 * i },
    cacheImpact: { consumedTokens: 30_000 + 40 * i, invalidatedTokens: 0 },
  });
  const held = () => {
    const before = settledHeap();
    const list = new CompactList<object>();
    for (let i = 0; i < 20_000; i++) list.push(step(i));
    const bytes = (settledHeap() - before) / 20_000;
    assert.deepEqual(list.at(20_000 - 1), step(20_000 - 1));
    return bytes;
  };
  held();
  const bytes = Math.min(held(), held(), held());
  // 7 integers of 3-4 bytes and a template byte: ~28 bytes a step; 7 small integers of an array and a template index (~78) before.
  assert.ok(bytes < 40, `${bytes.toFixed(1)} bytes a step`);
});
