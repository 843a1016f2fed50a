/**
 * Aligns the messages of two windows in linear time: identical rendered
 * messages are matched greedily in order; between two matches, runs of equal
 * length whose roles agree are "modified" one to one, anything else is
 * "removed" (before side) and "inserted" (after side).
 */

export const SAME = 0;
export const MODIFIED = 1;
export const INSERTED = 2;

export interface Alignment {
  /** For each after message: the before index it came from, or -1 when inserted. */
  readonly afterOrigin: Int32Array;
  /** For each after message: SAME, MODIFIED or INSERTED. */
  readonly afterKind: Uint8Array;
  /** For each before message: the after index it went to, or -1 when removed. */
  readonly beforeFate: Int32Array;
}

/**
 * @param before rendered before messages
 * @param after rendered after messages
 * @param roles optional role of each message (before, after) so modified pairs keep their role
 */
export function alignMessages(
  before: readonly string[],
  after: readonly string[],
  roles?: { readonly before: readonly string[]; readonly after: readonly string[] },
): Alignment {
  const afterOrigin = new Int32Array(after.length).fill(-1);
  const afterKind = new Uint8Array(after.length).fill(INSERTED);
  const beforeFate = new Int32Array(before.length).fill(-1);
  const anchors = matchIdentical(before, after);
  for (const [i, j] of anchors) {
    afterOrigin[i] = j;
    afterKind[i] = SAME;
    beforeFate[j] = i;
  }
  // Pair up the gaps between anchors (and after the last one).
  let prevI = -1;
  let prevJ = -1;
  for (const [i, j] of [...anchors, [after.length, before.length] as const]) {
    // The trailing gap may also hold appended messages (a request log's next
    // request): its first messages are paired with the before tail.
    const trailing = i === after.length;
    pairGap(prevI + 1, trailing ? Math.min(i, prevI + 1 + j - prevJ - 1) : i, prevJ + 1, j, { afterOrigin, afterKind, beforeFate }, roles);
    prevI = i;
    prevJ = j;
  }
  return { afterOrigin, afterKind, beforeFate };
}

/**
 * Greedy in-order matching of identical strings: each before index is passed
 * at most once. Per text, `head` holds the first before index not yet passed
 * and `nextSame` chains the later ones, so no list is built per text.
 */
function matchIdentical(before: readonly string[], after: readonly string[]): [number, number][] {
  const head = new Map<string, number>();
  const nextSame = new Int32Array(before.length).fill(-1);
  for (let j = before.length - 1; j >= 0; j--) {
    const text = before[j] as string;
    const first = head.get(text);
    if (first !== undefined) nextSame[j] = first;
    head.set(text, j);
  }
  const anchors: [number, number][] = [];
  let next = 0;
  for (let i = 0; i < after.length; i++) {
    const text = after[i] as string;
    let j = head.get(text);
    if (j === undefined) continue;
    while (j !== -1 && j < next) j = nextSame[j] ?? -1;
    if (j === -1) {
      head.set(text, -1);
      continue;
    }
    anchors.push([i, j]);
    head.set(text, nextSame[j] ?? -1);
    next = j + 1;
  }
  return anchors;
}

function pairGap(
  i0: number,
  i1: number,
  j0: number,
  j1: number,
  out: { afterOrigin: Int32Array; afterKind: Uint8Array; beforeFate: Int32Array },
  roles?: { readonly before: readonly string[]; readonly after: readonly string[] },
): void {
  if (i1 - i0 !== j1 - j0 || i1 <= i0) return;
  for (let k = 0; k < i1 - i0; k++) {
    if (roles && roles.before[j0 + k] !== roles.after[i0 + k]) return;
  }
  for (let k = 0; k < i1 - i0; k++) {
    out.afterOrigin[i0 + k] = j0 + k;
    out.afterKind[i0 + k] = MODIFIED;
    out.beforeFate[j0 + k] = i0 + k;
  }
}

/**
 * The boundary of a proposal that does not state one: just past the last
 * after message that stands for a consumed before message.
 */
export function inferBoundary(alignment: Alignment, beforeBoundary: number): number {
  for (let i = alignment.afterOrigin.length - 1; i >= 0; i--) {
    const origin = alignment.afterOrigin[i] ?? -1;
    if (origin >= 0 && origin < beforeBoundary) return i + 1;
  }
  return 0;
}
