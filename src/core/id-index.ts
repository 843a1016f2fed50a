/**
 * Where each id of a window reaches, built once per window for judging cuts
 * of it (cut-step.ts): every call of each id that more than one call has, and
 * for a cut at a message index, the messages whose ids reach across it. An
 * id's blocks (its calls and results) span from its first to its last
 * message; a block with an empty id stands alone.
 */
import { pairId, type ContextWindow, type ToolPair } from './model';
import { partitionPoint } from '../shared/search';

/** A call at its place in a window (as `ToolPair.call`). */
export type CallMember = NonNullable<ToolPair['call']>;

export interface IdIndex {
  /** Every call of each id that more than one call has, in order. */
  readonly repeatedCalls: ReadonlyMap<string, readonly CallMember[]>;
  /** For each message m: the last message any id found in messages 0..m reaches (non-decreasing). */
  readonly reachAfter: Int32Array;
  /** For each message m: the first message any id found in messages m.. reaches (non-decreasing). */
  readonly reachBefore: Int32Array;
}

/** Each id's first and last message, and every call of each id. */
function spans(window: ContextWindow): { first: Map<string, number>; last: Map<string, number>; calls: Map<string, CallMember[]> } {
  const first = new Map<string, number>();
  const last = new Map<string, number>();
  const calls = new Map<string, CallMember[]>();
  window.messages.forEach((message, m) =>
    message.blocks.forEach((block, b) => {
      if (block.kind !== 'tool_call' && block.kind !== 'tool_result') return;
      const id = pairId(block);
      if (id === '') return;
      if (!first.has(id)) first.set(id, m);
      last.set(id, m);
      if (block.kind !== 'tool_call') return;
      const list = calls.get(id);
      if (list) list.push({ message: m, block: b, value: block });
      else calls.set(id, [{ message: m, block: b, value: block }]);
    }),
  );
  return { first, last, calls };
}

export function idIndex(window: ContextWindow): IdIndex {
  const { first, last, calls } = spans(window);
  const n = window.messages.length;
  const reachAfter = new Int32Array(n);
  const reachBefore = new Int32Array(n);
  for (let m = 0; m < n; m++) {
    reachAfter[m] = m;
    reachBefore[m] = m;
  }
  window.messages.forEach((message, m) => {
    for (const block of message.blocks) {
      if (block.kind !== 'tool_call' && block.kind !== 'tool_result') continue;
      const id = pairId(block);
      if (id === '') continue;
      reachAfter[m] = Math.max(reachAfter[m] as number, last.get(id) as number);
      reachBefore[m] = Math.min(reachBefore[m] as number, first.get(id) as number);
    }
  });
  for (let m = 1; m < n; m++) reachAfter[m] = Math.max(reachAfter[m] as number, reachAfter[m - 1] as number);
  for (let m = n - 2; m >= 0; m--) reachBefore[m] = Math.min(reachBefore[m] as number, reachBefore[m + 1] as number);
  return { repeatedCalls: new Map([...calls].filter(([, list]) => list.length > 1)), reachAfter, reachBefore };
}

/**
 * The messages before `cut` holding an id that reaches `cut` or beyond: from
 * the first such message to `cut` (empty when none). Every id of the messages
 * before that also lies wholly before `cut`.
 */
export function reachingFrom(index: IdIndex, cut: number): { from: number; to: number } {
  // reachAfter is non-decreasing: the first m whose prefix reaches `cut` is the first message that does.
  return { from: partitionPoint(cut, (m) => (index.reachAfter[m] as number) < cut), to: cut };
}

/**
 * The messages from `cut` on holding an id that reaches before `cut`: from
 * `cut` to just past the last such message (empty when none).
 */
export function reachingBefore(index: IdIndex, cut: number): { from: number; to: number } {
  // reachBefore is non-decreasing: the last m whose suffix reaches before `cut` is the last message that does.
  return { from: cut, to: cut + partitionPoint(index.reachBefore.length - cut, (i) => (index.reachBefore[cut + i] as number) < cut) };
}
