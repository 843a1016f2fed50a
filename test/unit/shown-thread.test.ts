/**
 * `shownThread` (report/json.ts): a step's thread is shown only when the
 * file holds more than one conversation, and the steps are looked through
 * once per report, not once per step (a CodeLens, a view row, a diagnostic
 * or a line of output asks it for each of thousands of steps).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { shownThread } from '../../src/core/report/json';
import type { StepReport } from '../../src/core/results';

/** `n` steps of the threads `threadOf(i)`, counting how often a step's thread is read. */
function steps(n: number, threadOf: (i: number) => number | undefined): { steps: StepReport[]; reads: () => number } {
  let reads = 0;
  const list = Array.from({ length: n }, (_, i) => {
    const thread = threadOf(i);
    return Object.defineProperty({ index: i + 1 } as StepReport, 'thread', { get: () => (reads++, thread), enumerable: true });
  });
  return { steps: list, reads: () => reads };
}

describe('shownThread', () => {
  it('shows the thread only when a step is of a second conversation', () => {
    const one = steps(5, () => 1);
    assert.deepEqual(one.steps.map((s) => shownThread(one.steps, s)), [undefined, undefined, undefined, undefined, undefined]);
    const two = steps(5, (i) => (i === 3 ? 2 : 1));
    assert.deepEqual(two.steps.map((s) => shownThread(two.steps, s)), [1, 1, 1, 2, 1]);
    const none = steps(3, () => undefined);
    assert.deepEqual(none.steps.map((s) => shownThread(none.steps, s)), [undefined, undefined, undefined]);
  });

  it('looks through a report\'s steps once, however many steps ask', () => {
    for (const threadOf of [() => 1, (i: number) => (i === 2_999 ? 2 : 1)]) {
      const { steps: list, reads } = steps(3_000, threadOf);
      for (const step of list) shownThread(list, step);
      // Each step's own thread read twice (once to know it has one, once to give it), and the list looked through once.
      assert.ok(reads() <= 3 * list.length, `${reads()} reads of a step's thread for ${list.length} steps`);
    }
  });
});
