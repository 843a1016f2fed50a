/**
 * The window tracker's pair index held as numbers (pair-index.ts, issue 12,
 * "bounded memory"): its look-ups read as `toolPairs` of the same window, and
 * what it holds per pair is bounded (an `IndexedPair` per pair in a `Map` is not).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEngineContext } from '../../src/core/context';
import { toolPairs, type ContextWindow, type Message, type ToolPair } from '../../src/core/model';
import { PairIndex } from '../../src/core/pair-index';
import { WindowTracker } from '../../src/core/window-tracker';
import { settledHeap } from './settled-heap';

const call = (id: string): Message => ({ role: 'assistant', blocks: [{ kind: 'tool_call', id, name: 'read', input: undefined }] });
const result = (id: string): Message => ({ role: 'user', blocks: [{ kind: 'tool_result', callId: id, content: undefined }] });
const windowOf = (messages: readonly Message[]): ContextWindow => ({ format: 'anthropic', tools: [], messages, boundary: messages.length, live: false });

/** A pair as plain data (its members' places and blocks). */
const plain = (pair: ToolPair | undefined) => pair && { id: pair.id, call: pair.call, results: pair.results };

test('a pair index reads as toolPairs of its window: ids shared, missing, empty, results after the first, keys set again', () => {
  const messages: Message[] = [{ role: 'system', blocks: [{ kind: 'text', text: 'sys' }] }];
  const ids = ['a', 'b', 'a', '', 'c', '', 'toolu_01', 'x'.repeat(300)];
  for (const id of ids) messages.push(call(id), result(id), result(id));
  messages.push(result('orphan'), call('pending'));
  const pairs = toolPairs(windowOf(messages));
  const index = PairIndex.of(pairs, messages);
  for (const [key, pair] of pairs) assert.deepEqual(plain(index.get(key)), plain(pair), key);
  for (const key of ['', 'nope', '\u00003.0', 'toolu_02']) assert.equal(index.get(key), undefined, key);
  // A copy set again is not the original.
  const copy = index.clone();
  const only = { message: 1, block: 0, value: messages[1]?.blocks[0] as Extract<ToolPair['call'], object>['value'] };
  copy.set('a', { id: 'a', call: only, results: [] }, messages);
  assert.deepEqual(plain(copy.get('a')), { id: 'a', call: only, results: [] });
  assert.deepEqual(plain(index.get('a')), plain(pairs.get('a')));
});

/** Bytes a tracker (and its engine context) comes to hold per pair, fed windows of 1, 2, 4, ... 2^`doublings` call/result pairs, each extending the one before (the windows made, and held, before). */
function perPair(doublings: number): number {
  const messages: Message[] = [];
  const windows: ContextWindow[] = [];
  for (let n = 0, size = 1; n <= doublings; n++, size *= 2) {
    for (let k = messages.length / 2; k < size; k++) {
      // A flat string (a concatenation is a rope, which the first look-up by it would flatten: a change of the heap not the tracker's).
      const id = JSON.parse(`"toolu_${k.toString(36).padStart(24, '0')}"`) as string;
      messages.push(call(id), result(id));
    }
    windows.push(windowOf(messages.slice()));
  }
  const before = settledHeap();
  const tracker = new WindowTracker(createEngineContext(false));
  for (const window of windows) assert.deepEqual(tracker.next(window), []);
  const bytes = (settledHeap() - before) / (messages.length / 2);
  // Still held: its index is what was measured.
  assert.ok(tracker.pairsOf(windows[windows.length - 1] as ContextWindow));
  return bytes;
}

test('what a tracker holds per pair is bounded: numbers in arrays, not an object and a map entry per pair', () => {
  perPair(10);
  // The least of three rounds: a loaded machine's GC timing adds to one round, never to what the tracker holds.
  const bytes = Math.min(...[0, 1, 2].map(() => perPair(14)));
  // 66-75 bytes a pair, least of three (five small integers, two references, a slot or two of the table, the arrays'
  // room to grow); 92-108 with an IndexedPair (88 bytes) per pair in a Map (the code before pair-index.ts).
  assert.ok(bytes < 86, `${bytes.toFixed(1)} bytes a pair`);
});

test("a tracker's pair index keeps its integers in typed arrays (4 bytes each, outside the heap's count): under 40 bytes of heap a pair", () => {
  perPair(10);
  const heap = Math.min(...[0, 1, 2].map(() => perPair(14)));
  // Two references a pair and the arrays' room to grow (~17 bytes); 66-79 with five small integers and the table's slots in arrays.
  assert.ok(heap < 40, `${heap.toFixed(1)} bytes of heap a pair`);
});
