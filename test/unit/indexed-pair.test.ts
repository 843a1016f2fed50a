/**
 * The pair index kept from window to window (`extendPairs`, its pairs kept as
 * `indexedPair`s: fields, not member objects) reads exactly as `toolPairs` of
 * the window it indexes: the same keys in the same order, each pair's id,
 * call and results at the same places with the same blocks, on random
 * windows grown a few messages at a time (calls answered once, twice or not
 * at all, results before their calls or with no call, ids reused, empty ids,
 * several calls and results in one message).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { extendPairs } from '../../src/core/append-step';
import { indexedPair } from '../../src/core/indexed-pair';
import { toolPairs, type Block, type ContextWindow, type Message, type ToolPair } from '../../src/core/model';

/** A pair as plain data, its members' blocks kept as themselves (compared by identity). */
function plain(pair: ToolPair | undefined): unknown {
  if (!pair) return undefined;
  const member = (m: { message: number; block: number; value: Block } | undefined) => m && { message: m.message, block: m.block, value: m.value };
  return { id: pair.id, call: member(pair.call), results: pair.results.map(member) };
}

function plainIndex(pairs: ReadonlyMap<string, ToolPair>): unknown[] {
  return [...pairs].map(([key, pair]) => [key, plain(pair)]);
}

type BlockSpec = { readonly kind: 'call' | 'result' | 'text'; readonly id: number };

const blockArb: fc.Arbitrary<BlockSpec> = fc.record({ kind: fc.constantFrom('call' as const, 'result' as const, 'text' as const), id: fc.integer({ min: 0, max: 6 }) });

/** Block specs as blocks; id 0 is the empty id (each such block a pair of its own). */
function message(specs: readonly BlockSpec[], n: number): Message {
  const blocks: Block[] = specs.map((spec, b) => {
    const id = spec.id === 0 ? '' : `call_${spec.id}`;
    if (spec.kind === 'call') return { kind: 'tool_call', id, name: `tool_${spec.id}`, input: undefined, source: { start: n, end: n + b + 1 } };
    if (spec.kind === 'result') return { kind: 'tool_result', callId: id, content: undefined, source: { start: n, end: n + b + 1 } };
    return { kind: 'text', text: `text ${n}.${b}` };
  });
  return { role: n % 2 === 0 ? 'assistant' : 'user', blocks };
}

function windowOf(messages: readonly Message[]): ContextWindow {
  return { format: 'anthropic', tools: [], messages, boundary: messages.length, live: false };
}

test('an index extended window by window reads as toolPairs of each window, in place or copied', () => {
  const historyArb = fc.record({
    messages: fc.array(fc.array(blockArb, { minLength: 0, maxLength: 4 }), { minLength: 1, maxLength: 24 }),
    cuts: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 24 }),
    inPlace: fc.boolean(),
  });
  fc.assert(
    fc.property(historyArb, ({ messages: specs, cuts, inPlace }) => {
      const messages = specs.map((blocks, n) => message(blocks, n));
      let shown = Math.min(cuts[0] ?? 1, messages.length);
      let pairs = toolPairs(windowOf(messages.slice(0, shown)));
      for (let c = 1; shown < messages.length; c++) {
        const next = Math.min(messages.length, shown + (cuts[c % cuts.length] ?? 1));
        const window = windowOf(messages.slice(0, next));
        const before = inPlace ? undefined : plainIndex(pairs);
        const extended = extendPairs(pairs, window, shown, inPlace);
        assert.deepStrictEqual(plainIndex(extended), plainIndex(toolPairs(window)));
        if (before) assert.deepStrictEqual(plainIndex(pairs), before, 'a copied index leaves the one it extends as it was');
        pairs = extended;
        shown = next;
      }
    }),
    { numRuns: 300 },
  );
});

test('an indexed pair reads as the pair it was made from: no call, no result, one and several results', () => {
  const call = { message: 0, block: 1, value: { kind: 'tool_call', id: 'a', name: 'run', input: undefined } } as const;
  const result = (message: number) => ({ message, block: 0, value: { kind: 'tool_result', callId: 'a', content: undefined } }) as const;
  const pairs: ToolPair[] = [
    { id: 'a', results: [] },
    { id: 'a', call, results: [] },
    { id: 'a', results: [result(1)] },
    { id: 'a', call, results: [result(1)] },
    { id: 'a', call, results: [result(1), result(2), result(3)] },
  ];
  for (const pair of pairs) {
    const indexed = indexedPair(pair);
    assert.deepStrictEqual(plain(indexed), plain(pair));
    assert.equal(indexed.call?.value, pair.call?.value);
    assert.equal(indexed.results[0]?.value, pair.results[0]?.value);
  }
});
