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

/** The before messages by rendered text: each text's first index and the chain of later equal ones. Built once per window. */
export interface TextIndex {
  readonly first: ReadonlyMap<string, number>;
  /** For each before index, the next index with the same text, or -1. */
  readonly nextSame: Int32Array;
}

export function textIndex(texts: readonly string[]): TextIndex {
  const first = new Map<string, number>();
  const nextSame = new Int32Array(texts.length).fill(-1);
  for (let j = texts.length - 1; j >= 0; j--) {
    const text = texts[j] as string;
    const later = first.get(text);
    if (later !== undefined) nextSame[j] = later;
    first.set(text, j);
  }
  return { first, nextSame };
}

/** What aligning reads of two windows' messages, beside the before side's `TextIndex`. */
export interface AlignSides {
  readonly afterLength: number;
  /** The rendered text of after message i. */
  afterText(i: number): string;
  /** The messages themselves: after message i is before message j when they are the same object (then its text is not needed). */
  readonly shared?: { readonly before: readonly unknown[]; readonly after: readonly unknown[] };
  /** True when after message i is known to render as before message j otherwise (another reading of it). */
  sameMessage?(i: number, j: number): boolean;
  /** Whether before message j and after message i may be paired as modified (their roles agree); default yes. */
  sameRole?(j: number, i: number): boolean;
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
  return alignIndexed(textIndex(before), {
    afterLength: after.length,
    afterText: (i) => after[i] as string,
    ...(roles && { sameRole: (j: number, i: number) => roles.before[j] === roles.after[i] }),
  });
}

/** For after message i, the first before index at or after `next` rendering as it, or -1 (`next` never decreases within one alignment). */
export type TextFinder = (i: number, next: number) => number;

/** `alignMessages` against a before window indexed once; after messages known to be the same are not rendered. */
export function alignIndexed(index: TextIndex, sides: AlignSides): Alignment {
  return alignFound(index.nextSame.length, indexedFinder(index, sides.afterText), sides);
}

/** The finder of an indexed before window: `cursor` holds, per text, how far its chain has been passed, so each before index is passed at most once. */
export function indexedFinder(index: TextIndex, afterText: (i: number) => string): TextFinder {
  const cursor = new Map<string, number>();
  return (i, next) => {
    const text = afterText(i);
    let j = cursor.get(text) ?? index.first.get(text);
    if (j === undefined) return -1;
    while (j !== -1 && j < next) j = index.nextSame[j] ?? -1;
    cursor.set(text, j);
    return j;
  };
}

/** `alignIndexed` with the before side's texts looked up by `find` (a window read lazily finds them without an index). */
export function alignFound(beforeLength: number, find: TextFinder, sides: AlignSides): Alignment {
  // One buffer for the three arrays (each typed array of this size is a buffer allocated outside the heap).
  const buffer = new ArrayBuffer(4 * (sides.afterLength + beforeLength) + sides.afterLength);
  const out = {
    afterOrigin: new Int32Array(buffer, 0, sides.afterLength).fill(-1),
    beforeFate: new Int32Array(buffer, 4 * sides.afterLength, beforeLength).fill(-1),
    afterKind: new Uint8Array(buffer, 4 * (sides.afterLength + beforeLength), sides.afterLength).fill(INSERTED),
  };
  matchIdentical(beforeLength, find, sides, out);
  return out;
}

/**
 * Greedy in-order matching of identical texts: each after message takes the
 * first before message at or after the last match with its text. An after
 * message known to be the next before message takes it without a lookup.
 * Matches are written into `out` as SAME; the gap before each match (and
 * after the last one) is paired as it is passed (`pairGap`: matches only come
 * later, past both sides of it).
 */
function matchIdentical(beforeLength: number, find: TextFinder, sides: AlignSides, out: Alignment): void {
  const { afterOrigin, afterKind, beforeFate } = out;
  const [before, after] = sides.shared ? [sides.shared.before, sides.shared.after] : [[], []];
  const shared = Math.min(beforeLength, before.length);
  const afterLength = sides.afterLength;
  // The last match so far (after index, before index).
  let prevI = -1;
  let prevJ = -1;
  let next = 0;
  for (let i = 0; i < afterLength; i++) {
    // A run of shared messages (a window kept, or cut and shifted) is matched in place.
    const start = i;
    if (i > prevI + 1 && next < shared && after[i] === before[next]) pairGap(prevI + 1, i, prevJ + 1, next, out, sides.sameRole);
    for (; i < afterLength && next < shared && after[i] === before[next]; i++, next++) {
      afterOrigin[i] = next;
      beforeFate[next] = i;
    }
    if (i > start) {
      afterKind.fill(SAME, start, i);
      prevI = i - 1;
      prevJ = next - 1;
    }
    if (i === afterLength) break;
    const j = next < beforeLength && sides.sameMessage?.(i, next) ? next : find(i, next);
    if (j === -1) continue;
    if (i > prevI + 1) pairGap(prevI + 1, i, prevJ + 1, j, out, sides.sameRole);
    afterOrigin[i] = j;
    afterKind[i] = SAME;
    beforeFate[j] = i;
    next = j + 1;
    prevI = i;
    prevJ = j;
  }
  // The trailing gap may also hold appended messages (a request log's next
  // request): its first messages are paired with the before tail.
  if (afterLength > prevI + 1) pairGap(prevI + 1, Math.min(afterLength, prevI + beforeLength - prevJ), prevJ + 1, beforeLength, out, sides.sameRole);
}

function pairGap(
  i0: number,
  i1: number,
  j0: number,
  j1: number,
  out: { afterOrigin: Int32Array; afterKind: Uint8Array; beforeFate: Int32Array },
  sameRole?: (j: number, i: number) => boolean,
): void {
  if (i1 - i0 !== j1 - j0 || i1 <= i0) return;
  for (let k = 0; k < i1 - i0; k++) {
    if (sameRole && !sameRole(j0 + k, i0 + k)) return;
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
