/**
 * The conversations (threads) of one file, as its adapter tags its windows
 * (`ThreadInfo`): the last window of each is that thread's current state. A
 * check keeps it to count every thread's messages and pairs, and (for the
 * session view) to show each thread's conversation on its own.
 *
 * Bounded: the last windows of at most `MAX_KEPT` threads are held; a thread
 * not continued for longer is reduced to its counts (a hostile log cannot pin
 * one window per request).
 */
import type { ContextWindow } from './model';
import { IntRun } from './int-run';
import { partitionPoint } from '../shared/search';
import { pairCounts, turnsOf, type KnownPairs, type PairCounts } from './session';
import type { Shift } from './shift';
import type { ThreadInfo } from './transcript';
import { threadKey, type UsageRecord } from './usage';

export const MAX_KEPT = 64;

/** The most window starts kept (`ThreadTally.threadUsage`). */
const MAX_STARTS = 100_000;

const MAIN: ThreadInfo = { id: 1, kind: 'main', label: 'main' };

/** A thread at the end of a check: who it is, and its last window's counts. */
export interface ThreadSummary extends ThreadInfo {
  readonly messages: number;
  /** User messages that say something (not only tool results). */
  readonly turns: number;
  readonly pairs: PairCounts;
}

/** A thread's last window (kept when the check keeps rewrites). */
export interface ThreadWindow {
  readonly thread: ThreadInfo;
  readonly window: ContextWindow;
}

type Counts = Pick<ThreadSummary, 'messages' | 'turns' | 'pairs'>;

interface Entry {
  readonly info: ThreadInfo;
  window?: ContextWindow;
  counts?: Counts;
}

export class ThreadTally {
  /** Every thread, by id. */
  private readonly entries = new Map<number, Entry>();
  /** The threads whose last window is held, least recently seen first. */
  private readonly held = new Map<number, Entry>();
  /**
   * Where each tagged window starts in the file, with its thread (to thread
   * the usage read from lines): three varints a window (`startsOf`), ~6 bytes,
   * not two small integers of an array (16 bytes and its room to grow) nor an
   * object (~40 bytes more a request of a log, for the rest of it).
   */
  private starts = new IntRun();

  see(window: ContextWindow, thread: ThreadInfo | undefined): void {
    const info = thread ?? MAIN;
    let entry = this.entries.get(info.id);
    if (!entry) this.entries.set(info.id, (entry = { info }));
    entry.window = window;
    entry.counts = undefined;
    this.held.delete(info.id);
    this.held.set(info.id, entry);
    if (thread && window.source && this.starts.length < STARTS * MAX_STARTS) pushStart(this.starts, window.source.start, thread.id);
    if (this.held.size > MAX_KEPT) this.reduceOldest();
  }

  /** An independent copy (a followed file's report is finished on a fork, the check goes on). */
  fork(): ThreadTally {
    const copy = new ThreadTally();
    for (const [id, entry] of this.entries) copy.entries.set(id, { ...entry });
    for (const id of this.held.keys()) copy.held.set(id, copy.entries.get(id)!);
    copy.starts = this.starts.copy();
    return copy;
  }

  /**
   * This tally (a later reading's) with the window starts before offset
   * `from` those of `before` (a reading of an edited text up to there), the
   * rest moved by `shift`, for a file of one thread in both (its last window
   * is this tally's); undefined for any other.
   */
  spliced(before: ThreadTally, from: number, shift: Shift): ThreadTally | undefined {
    const [mine, theirs] = [[...this.held.values()], [...before.held.values()]];
    const [one, other] = [mine[0], theirs[0]];
    if (this.entries.size !== 1 || before.entries.size !== 1 || !one || !other || mine.length !== 1 || theirs.length !== 1) return undefined;
    if (one.info.id !== other.info.id || one.info.kind !== other.info.kind || one.info.label !== other.info.label) return undefined;
    if (this.starts.length >= STARTS * MAX_STARTS || before.starts.length >= STARTS * MAX_STARTS) return undefined;
    const copy = this.fork();
    const later = startsOf(this.starts).filter((s) => s.at >= from).map((s) => ({ at: shift.offset(s.at), thread: s.thread }));
    copy.starts = new IntRun();
    for (const s of [...startsOf(before.starts).filter((s) => s.at < shift.offset(from)), ...later]) pushStart(copy.starts, s.at, s.thread);
    for (const entry of copy.entries.values()) if (entry.window) entry.window = shift.window(entry.window);
    return copy;
  }

  /** More than one thread: the file has conversations worth telling apart. */
  get threaded(): boolean {
    return this.entries.size > 1;
  }

  /** The last window of every thread still held, in thread order. */
  windows(): ThreadWindow[] {
    return this.sorted().flatMap((e) => (e.window ? [{ thread: e.info, window: e.window }] : []));
  }

  /** Every thread's counts; `pairsOf`: a window's pair index when the check already made it. */
  summaries(pairsOf?: (window: ContextWindow) => KnownPairs): ThreadSummary[] {
    return this.sorted().map((e) => ({ ...e.info, ...(e.counts ?? countsOf(e.window, pairsOf)) }));
  }

  /** Usage read from a line tagged 'main' that holds a window of another thread belongs to that thread. */
  threadUsage(usage: readonly UsageRecord[]): UsageRecord[] {
    if (this.starts.length === 0) return [...usage];
    const starts = startsOf(this.starts).sort((a, b) => a.at - b.at);
    return usage.map((record) => {
      if (record.thread !== 'main') return record;
      const start = starts[partitionPoint(starts.length, (i) => starts[i]!.at < record.offset)];
      return start && start.at < record.end ? { ...record, thread: threadKey(start.thread) } : record;
    });
  }

  private sorted(): Entry[] {
    return [...this.entries.values()].sort((a, b) => a.info.id - b.info.id);
  }

  private reduceOldest(): void {
    const [id, entry] = this.held.entries().next().value as [number, Entry];
    this.held.delete(id);
    entry.counts = countsOf(entry.window);
    entry.window = undefined;
  }
}

/** Integers a window start takes in `ThreadTally.starts`: its offset's low 30 bits, the rest (0 in a file under 1 GiB), its thread. */
const STARTS = 3;
const LOW = 2 ** 30;

function pushStart(starts: IntRun, at: number, thread: number): void {
  const high = Math.trunc(at / LOW);
  starts.push(at - high * LOW);
  starts.push(high);
  starts.push(thread);
}

/** The window starts held as varints (`ThreadTally.starts`), as objects. */
function startsOf(starts: IntRun): { at: number; thread: number }[] {
  const out: { at: number; thread: number }[] = [];
  const read = starts.reader();
  for (let i = 0; i + STARTS <= starts.length; i += STARTS) {
    const low = read.next();
    const at = read.next() * LOW + low;
    out.push({ at, thread: read.next() });
  }
  return out;
}

function countsOf(window: ContextWindow | undefined, pairsOf?: (window: ContextWindow) => KnownPairs): Counts {
  return { messages: window?.messages.length ?? 0, turns: window ? turnsOf(window) : 0, pairs: pairCounts(window, window && pairsOf?.(window)) };
}
