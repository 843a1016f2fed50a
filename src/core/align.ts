/**
 * Aligns the messages of two windows in linear time: identical rendered
 * messages are matched greedily in order; between two matches, runs of equal
 * length whose roles agree are "modified" one to one, anything else is
 * "removed" (before side) and "inserted" (after side).
 */

import { partitionPoint } from '../shared/search';

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
  /** A run of `shared` the caller found: after messages [start, start + length) are before messages [from, from + length), the same objects. */
  readonly run?: { readonly start: number; readonly from: number; readonly length: number };
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
  return alignFound(index.nextSame.length, indexedFinder(index, sides.afterText), sides).materialized();
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

/**
 * A stretch of an alignment: after messages [after, after + length) came from
 * before messages [before, before + length), one to one, all SAME or all MODIFIED.
 */
export interface AlignedRun {
  readonly after: number;
  readonly before: number;
  readonly length: number;
  readonly kind: typeof SAME | typeof MODIFIED;
}

/**
 * An alignment held as its runs, in order on both sides (a run kept in place
 * is one entry, not one per message); the arrays are made when first read.
 * What reads it often asks the runs (`alignedRuns`, `sameOrigin`).
 */
export class RunAlignment implements Alignment {
  private arrays: Alignment | undefined;

  constructor(
    readonly runs: readonly AlignedRun[],
    readonly afterLength: number,
    readonly beforeLength: number,
  ) {}

  get afterOrigin(): Int32Array {
    return this.materialized().afterOrigin;
  }

  get afterKind(): Uint8Array {
    return this.materialized().afterKind;
  }

  get beforeFate(): Int32Array {
    return this.materialized().beforeFate;
  }

  /** The alignment as its three arrays (a plain object, as `alignIndexed` returns it). */
  materialized(): Alignment {
    if (this.arrays) return this.arrays;
    const afterOrigin = new Int32Array(this.afterLength).fill(-1);
    const afterKind = new Uint8Array(this.afterLength).fill(INSERTED);
    const beforeFate = new Int32Array(this.beforeLength).fill(-1);
    for (const run of this.runs) {
      afterKind.fill(run.kind, run.after, run.after + run.length);
      for (let k = 0; k < run.length; k++) {
        afterOrigin[run.after + k] = run.before + k;
        beforeFate[run.before + k] = run.after + k;
      }
    }
    return (this.arrays = { afterOrigin, afterKind, beforeFate });
  }
}

/** The runs of an alignment (read from its arrays when it is not held as runs). */
export function alignedRuns(alignment: Alignment): readonly AlignedRun[] {
  if (alignment instanceof RunAlignment) return alignment.runs;
  const { afterOrigin, afterKind } = alignment;
  const runs = new Runs();
  for (let i = 0; i < afterOrigin.length; i++) {
    const j = afterOrigin[i] as number;
    if (j >= 0) runs.add(i, j, 1, afterKind[i] === MODIFIED ? MODIFIED : SAME);
  }
  return runs.list;
}

/** How many before messages an alignment covers. */
export function alignedBeforeLength(alignment: Alignment): number {
  return alignment instanceof RunAlignment ? alignment.beforeLength : alignment.beforeFate.length;
}

/** True when after message i is before message j unchanged (SAME). */
export function sameOrigin(alignment: Alignment, i: number, j: number): boolean {
  if (!(alignment instanceof RunAlignment)) return alignment.afterOrigin[i] === j && alignment.afterKind[i] === SAME;
  const runs = alignment.runs;
  const run = runs[partitionPoint(runs.length, (r) => (runs[r] as AlignedRun).after + (runs[r] as AlignedRun).length <= i)];
  return !!run && run.kind === SAME && run.after <= i && run.before + i - run.after === j;
}

/** Runs being listed in order: a run that continues the last one (same kind, next on both sides) lengthens it. */
class Runs {
  readonly list: { after: number; before: number; length: number; kind: typeof SAME | typeof MODIFIED }[] = [];

  add(after: number, before: number, length: number, kind: typeof SAME | typeof MODIFIED): void {
    const last = this.list[this.list.length - 1];
    if (last && last.kind === kind && last.after + last.length === after && last.before + last.length === before) last.length += length;
    else this.list.push({ after, before, length, kind });
  }
}

/** `alignIndexed` with the before side's texts looked up by `find` (a window read lazily finds them without an index), held as runs. */
export function alignFound(beforeLength: number, find: TextFinder, sides: AlignSides): RunAlignment {
  const runs = new Runs();
  matchIdentical(beforeLength, find, sides, runs);
  return new RunAlignment(runs.list, sides.afterLength, beforeLength);
}

/**
 * Greedy in-order matching of identical texts: each after message takes the
 * first before message at or after the last match with its text. An after
 * message known to be the next before message takes it without a lookup; a
 * run the caller knows (`sides.run`) is passed in one step.
 * Matches are listed as SAME runs; the gap before each match (and after the
 * last one) is paired as it is passed (`pairGap`: matches only come later,
 * past both sides of it).
 */
function matchIdentical(beforeLength: number, find: TextFinder, sides: AlignSides, out: Runs): void {
  const [before, after] = sides.shared ? [sides.shared.before, sides.shared.after] : [[], []];
  const shared = Math.min(beforeLength, before.length);
  const afterLength = sides.afterLength;
  const known = sides.run;
  // The last match so far (after index, before index).
  let prevI = -1;
  let prevJ = -1;
  let next = 0;
  for (let i = 0; i < afterLength; i++) {
    // A run of shared messages (a window kept, or cut and shifted) is matched in place.
    const start = i;
    if (i > prevI + 1 && next < shared && after[i] === before[next]) pairGap(prevI + 1, i, prevJ + 1, next, out, sides.sameRole);
    // Inside the known run, in place: the rest of it is the same objects.
    if (known && next < shared && after[i] === before[next] && i >= known.start && i < known.start + known.length && next - known.from === i - known.start) {
      const skip = known.start + known.length - i;
      i += skip;
      next += skip;
    }
    for (; i < afterLength && next < shared && after[i] === before[next]; i++, next++);
    if (i > start) {
      out.add(start, next - (i - start), i - start, SAME);
      prevI = i - 1;
      prevJ = next - 1;
    }
    if (i === afterLength) break;
    const j = next < beforeLength && sides.sameMessage?.(i, next) ? next : find(i, next);
    if (j === -1) continue;
    if (i > prevI + 1) pairGap(prevI + 1, i, prevJ + 1, j, out, sides.sameRole);
    out.add(i, j, 1, SAME);
    next = j + 1;
    prevI = i;
    prevJ = j;
  }
  // The trailing gap may also hold appended messages (a request log's next
  // request): its first messages are paired with the before tail.
  if (afterLength > prevI + 1) pairGap(prevI + 1, Math.min(afterLength, prevI + beforeLength - prevJ), prevJ + 1, beforeLength, out, sides.sameRole);
}

function pairGap(i0: number, i1: number, j0: number, j1: number, out: Runs, sameRole?: (j: number, i: number) => boolean): void {
  if (i1 - i0 !== j1 - j0 || i1 <= i0) return;
  for (let k = 0; k < i1 - i0; k++) {
    if (sameRole && !sameRole(j0 + k, i0 + k)) return;
  }
  out.add(i0, j0, i1 - i0, MODIFIED);
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
