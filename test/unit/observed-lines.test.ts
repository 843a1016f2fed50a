/**
 * What a check keeps per line that is not the engine's (issue 12, "bounded
 * memory"): the tracked lines are an iterator of their own, read as the
 * generator they replace (observed-lines.ts), as are the memory probe's sampled
 * lines, and a tally's window starts are numbers, not an object per window
 * (file-threads.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sampledInput } from '../../bench/memory-probe';
import { ThreadTally } from '../../src/core/file-threads';
import type { ContextWindow } from '../../src/core/model';
import { observedLines } from '../../src/core/observed-lines';
import type { SourceLine } from '../../src/core/text';
import type { UsageRecord } from '../../src/core/usage';
import { settledHeap } from './settled-heap';

/** Lines `0..n-1`, recording what the reader did: started, lines handed on, closed (`finally`). */
function source(n: number, log: string[], failAt = -1): () => Iterable<SourceLine> {
  return function* () {
    log.push('start');
    try {
      for (let i = 0; i < n; i++) {
        if (i === failAt) throw new Error(`bad line ${i}`);
        log.push(`line ${i}`);
        yield { text: `${i}`, offset: 2 * i, index: i };
      }
    } finally {
      log.push('closed');
    }
  };
}

test('tracked lines read as the generator they replace: started on the first line asked for, every line observed before it is handed on, closed on a break and on a failure', () => {
  const log: string[] = [];
  const lines = observedLines(source(3, log), (line) => log.push(`seen ${line.index}`));
  assert.deepEqual(log, [], 'nothing read before the first line is asked for');
  assert.deepEqual([...lines].map((l) => l.text), ['0', '1', '2']);
  assert.deepEqual(log, ['start', 'line 0', 'seen 0', 'line 1', 'seen 1', 'line 2', 'seen 2', 'closed']);
  assert.equal(lines.next().done, true, 'done stays done');

  const broken: string[] = [];
  for (const line of observedLines(source(5, broken), () => undefined)) if (line.index === 1) break;
  assert.deepEqual(broken, ['start', 'line 0', 'line 1', 'closed'], 'a break closes the reader');

  const refused: string[] = [];
  const failing = observedLines(source(5, refused), (line) => {
    if (line.index === 2) throw new Error('too long');
  });
  assert.throws(() => [...failing], /too long/);
  assert.deepEqual(refused, ['start', 'line 0', 'line 1', 'line 2', 'closed'], 'an observer that throws closes the reader');
  assert.equal(failing.next().done, true);

  const unread: string[] = [];
  assert.throws(() => [...observedLines(source(5, unread, 1), () => undefined)], /bad line 1/);
  assert.deepEqual(unread, ['start', 'line 0', 'closed']);
});

test("a tally's window starts take two numbers a window, not an object: 100,000 tagged windows in under 24 bytes each, usage threaded as before", () => {
  const window = (start: number): ContextWindow => ({ format: 'anthropic', tools: [], messages: [], boundary: 0, live: false, source: { start, end: start + 5 } });
  const windows = Array.from({ length: 100_000 }, (_, k) => window(10 * k));
  const threads = [1, 2].map((id) => ({ id, kind: id === 1 ? ('main' as const) : ('thread' as const), label: `thread ${id}` }));
  // The least of three tallies, each `see` compiled by the one before (its code is in the heap too): a bound on what a
  // tally holds, which any tally over it would break in every round.
  let perWindow = Infinity;
  let tally = new ThreadTally();
  for (let round = 0; round < 3; round++) {
    tally = new ThreadTally();
    tally.see(windows[0] as ContextWindow, threads[0]);
    const base = settledHeap();
    for (let k = 1; k < windows.length; k++) tally.see(windows[k] as ContextWindow, threads[k % 2]);
    perWindow = Math.min(perWindow, (settledHeap() - base) / (windows.length - 1));
  }
  // Two small integers (8 bytes each in Node, no pointer compression) and the array's room to grow: ~19 bytes; an
  // object per window ({ at, thread }: 40 bytes) and its element took ~52.
  assert.ok(perWindow < 24, `${perWindow.toFixed(1)} bytes a window start`);
  const record = (offset: number): UsageRecord => ({ offset, end: offset + 8, thread: 'main' }) as unknown as UsageRecord;
  // A record is the thread's of the first window starting at or after it, when that starts before the record ends.
  const threaded = tally.threadUsage([record(5), record(200_001), record(13), record(30_005)]);
  assert.deepEqual(
    threaded.map((r) => r.thread),
    ['thread 2', 'main', 'main', 'thread 2'],
  );
});

test("the memory probe's sampled lines are an iterator, not a generator (a suspended generator's stale register kept a line the check had let go), each sampled before it is handed on", () => {
  const log: string[] = [];
  const input = { file: 'x.jsonl', text: () => '', bytes: () => new Uint8Array(), lines: source(3, log) };
  const lines = sampledInput(input, () => log.push('sampled')).lines();
  assert.notEqual(Object.prototype.toString.call(lines), '[object Generator]');
  assert.deepEqual(log, [], 'nothing read before the first line is asked for');
  assert.deepEqual([...lines].map((line) => line.index), [0, 1, 2]);
  assert.deepEqual(log, ['start', 'line 0', 'sampled', 'line 1', 'sampled', 'line 2', 'sampled', 'closed']);
});

test("a tally's window starts, held as varints (int-run.ts), thread usage as before: starts past 2^31 (a file over 2 GiB, its limit raised) and in a fork", () => {
  const window = (start: number): ContextWindow => ({ format: 'anthropic', tools: [], messages: [], boundary: 0, live: false, source: { start, end: start + 5 } });
  const threads = [1, 2].map((id) => ({ id, kind: id === 1 ? ('main' as const) : ('thread' as const), label: `thread ${id}` }));
  const tally = new ThreadTally();
  const starts = [0, 1_000, 2 ** 30 - 100, 2 ** 30 + 100, 2 ** 31 + 7, 3 * 2 ** 31 + 5];
  starts.forEach((start, k) => tally.see(window(start), threads[k % 2]));
  const record = (offset: number): UsageRecord => ({ offset, end: offset + 8, thread: 'main' }) as unknown as UsageRecord;
  // A record is the thread's of the first window starting at or after it, when that starts before the record ends.
  const records = starts.map((start) => record(start - 3));
  assert.deepEqual(
    tally.fork().threadUsage(records).map((r) => r.thread),
    ['main', 'thread 2', 'main', 'thread 2', 'main', 'thread 2'],
  );
  assert.deepEqual(
    tally.threadUsage(records.map((r) => record(r.offset + 1))).map((r) => r.thread),
    ['main', 'thread 2', 'main', 'thread 2', 'main', 'thread 2'],
  );
});
