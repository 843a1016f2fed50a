/**
 * The checkpoints of a rewindable follower (follow.ts): forks of its reading
 * at line starts, kept spread over the text and bounded in number and in
 * what they hold, so that an edit anywhere is read again from close before it.
 */
import type { Reading } from './follow';

/**
 * The fewest characters between two checkpoints (at least a 256th of the text
 * before them).
 */
const CHECKPOINT_CHARS = 64 * 1024;

/**
 * The most checkpoints kept. Each holds what its reading held then (a request
 * log's last request, parsed: several times its line), so without a bound a
 * large log kept tens of times the memory of its check. Past it the one
 * whose neighbours are closest is dropped (`closestBetween`), so they stay
 * spread over the text: an edit anywhere reads again from at most about a
 * fifteenth of the text before it (test/unit/follow-bounds.test.ts).
 */
const MAX_CHECKPOINTS = 32;

/**
 * The most characters of lines the checkpoints' readings were last given, in
 * all (each holds what it read of its last line, parsed: several times the
 * line), unless only three are left. Past it they are dropped as past
 * `MAX_CHECKPOINTS`, one at a time: a log of large requests keeps fewer, but
 * always the first (an edit anywhere is read from
 * there, not from the start) and the one before its last line (an edit there
 * reads that line again, not the file).
 */
const MAX_CHECKPOINT_LINES = 4 * 1024 * 1024;

/** Checkpoints kept next to an edit that moved the text, and at the end of the file (`keptAfter`). */
const MOVED_CHECKPOINTS = 2;

/** A fork of the reading at a line start, never read on: `rewind` goes on from a fork of it. */
export interface Checkpoint {
  /** The line start (after the byte order mark), and the UTF-8 bytes before it. */
  readonly fed: number;
  readonly fedBytes: number;
  /** Lines its reading read. */
  readonly lines: number;
  /**
   * Its reading: at hand, or for one an edit's splice kept, made when first
   * asked (a copy of its last window moved by the edit, 6–10 ms each on a
   * 20 MB log): by `Follower.settle` once the re-check's report is out, or
   * by the next `rewind`. Undefined when it cannot be made.
   */
  readonly reading: () => Reading | undefined;
  /** How many of `reading.starts` are its own (the index is shared with the reading it was forked from, which adds to it). */
  readonly lineStarts: number;
  /** Characters of the line read last before it (what its reading holds is several times that). */
  readonly held: number;
}

/** Whether a checkpoint at the line start `fed` is far enough from the last one. */
export function checkpointDue(checkpoints: readonly Checkpoint[], fed: number): boolean {
  const last = checkpoints[checkpoints.length - 1]?.fed ?? 0;
  return fed - last >= Math.max(CHECKPOINT_CHARS, last >> 8);
}

/** Drops the checkpoint whose neighbours are closest (never the first or the last two) while they are too many or hold too much. */
export function trimCheckpoints(checkpoints: Checkpoint[]): void {
  const over = () => checkpoints.length > MAX_CHECKPOINTS || (checkpoints.length > 3 && checkpoints.reduce((n, c) => n + c.held, 0) > MAX_CHECKPOINT_LINES);
  while (over()) checkpoints.splice(closestBetween(checkpoints), 1);
}

/** `make()`, made when first asked (then `make` and what it holds are let go). */
export function lazily<T>(make: () => T): () => T {
  let [pending, value] = [make as (() => T) | undefined, undefined as T];
  return () => {
    if (pending) [value, pending] = [pending(), undefined];
    return value;
  };
}

/**
 * The checkpoints after an edit that the splice keeps: all when the edit kept
 * the text's length, else the first and last `MOVED_CHECKPOINTS` (each moved
 * costs a copy of its reading's last window, 6–10 ms on a 20 MB log, made
 * after each key's re-check), so an edit near it or at the file's end reads from close.
 */
export function keptAfter(checkpoints: readonly Checkpoint[], unmoved: boolean): Checkpoint[] {
  const n = MOVED_CHECKPOINTS;
  return unmoved || checkpoints.length <= 2 * n ? [...checkpoints] : [...checkpoints.slice(0, n), ...checkpoints.slice(-n)];
}

/**
 * Which checkpoint to drop: of those between the first and the last two, the
 * one whose neighbours are closest (the earliest of equals), so the gap its
 * removal leaves is the smallest and the checkpoints stay spread over the text.
 * The gaps so left are at most twice the text over the candidates' count.
 */
function closestBetween(checkpoints: readonly Checkpoint[]): number {
  let [best, gap] = [1, Infinity];
  for (let i = 1; i < checkpoints.length - 2; i++) {
    const around = (checkpoints[i + 1]?.fed ?? 0) - (checkpoints[i - 1]?.fed ?? 0);
    if (around < gap) [best, gap] = [i, around];
  }
  return best;
}

/** The UTF-8 bytes before offset `end` of `text` (asked at increasing offsets), after `before` bytes ahead of it. */
export function checkpointBytes(text: string, before: number): (end: number) => number {
  let [at, bytes] = [0, before];
  return (end) => {
    bytes += Buffer.byteLength(text.slice(at, end), 'utf8');
    at = end;
    return bytes;
  };
}
