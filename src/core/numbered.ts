/**
 * Findings whose message counts lines or records ("Line 57 is not valid
 * JSON", "request 57 continues server-side state"). A followed log keeps
 * what it found after an edit (follow-reuse.ts); when the edit added or
 * removed lines (or records), the number in each such kept message moves
 * with it, as a full check of the edited text would write it. The number and
 * where it sits in the message are kept on the finding, out of sight (a
 * symbol key, not enumerable: reports, their JSON and deep comparisons do not
 * see it).
 */
import type { Finding } from './findings';

/** What a number counts: lines (1-based) or the records of a log (1-based). */
export type Counted = 'line' | 'record';

const NUMBER: unique symbol = Symbol('number');

interface NumberIn {
  readonly counts: Counted;
  readonly n: number;
  /** Where the number starts in the message. */
  readonly at: number;
}

/** `f`, its message holding `n` (a line or record number) at `at`. */
export function numbered(f: Finding, counts: Counted, n: number, at: number): Finding {
  return Object.defineProperty(f, NUMBER, { value: { counts, n, at } satisfies NumberIn });
}

/** `to` (a copy of `from`, its message unchanged) with `from`'s number kept. */
export function sameNumber(from: Finding, to: Finding): Finding {
  const number = (from as { [NUMBER]?: NumberIn })[NUMBER];
  return number ? Object.defineProperty(to, NUMBER, { value: number }) : to;
}

/** `f` with its number moved by `lines` or `records` (what it counts); `f` itself when it does not move. */
export function renumbered(f: Finding, lines: number, records: number): Finding {
  const number = (f as { [NUMBER]?: NumberIn })[NUMBER];
  const by = number?.counts === 'line' ? lines : records;
  if (!number || by === 0) return f;
  const [was, now] = [String(number.n), String(number.n + by)];
  const message = f.message.slice(0, number.at) + now + f.message.slice(number.at + was.length);
  return numbered({ ...f, message }, number.counts, number.n + by, number.at);
}
