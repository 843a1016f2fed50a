/**
 * Keeping what a followed request log's reading found after an edit (issue
 * 14: a re-check after an edit costs what the edit changed). In a request log
 * each line is a whole request, judged against the one before it, so an edit
 * inside request k changes the steps k and k + 1 and nothing after them
 * (test/unit/edit-locality.test.ts). The follower reads the edited text again
 * from the checkpoint before the edit (follow.ts `rewind`), as always; after
 * each line from k + 1 on it asks `converged` whether the new reading holds
 * there what the reading before the edit held after the same line. Then the
 * old reading's later steps, findings, usage and windows are kept after the
 * new reading's own, and the rest of the text is not read again.
 *
 * What is compared, what is spliced: the reader's state (its one thread's
 * last request with its response, against the window the old reading judged
 * the next request against: `LineReader.sameState`) and the window tracker's
 * (the window of the line, against the old one's) must be equal; what adds up
 * over the file is the new reading's up to the line plus the old reading's
 * after it: the steps, the findings (every finding the old reading reported
 * after the line, from its journal, reported again so that repeats and the
 * per-rule limit meet across the splice), the messages dropped, the threads'
 * window starts, the usage records and times, the unread parts, the records
 * skipped after the line (none may be before it). Lines after the next that
 * are no step (blank, not JSON, a skipped record) are kept as the rest: the
 * reader must have read as many records up to the line as the old one
 * (`LineReader.recordsRead`). Each reading notes at every line end how long
 * its journal and steps were, the UTF-8 bytes and the records read (`mark`).
 * An edit that keeps the line's length keeps the old reading's checkpoints
 * after it, spliced the same way.
 *
 * The edit's changes must all fall inside one line, none touching its line
 * end or inserting a line break. One that changes the line's length moves
 * everything after it (shift.ts): what the reading holds of its last line and
 * its later findings, usage and parts at once, the later steps' windows (most
 * of what it holds) only when a step is read (`Shift.step`: from the step as
 * read, by the moves of all the edits since composed into one map, so that
 * edits without end in a row never make a move of a move); its checkpoints
 * after the edit are then dropped. Any other edit, or a reading that does not
 * converge within `REUSE_LINES` lines, is read on to the end as before.
 */
import { forkRun, report, type Run } from './check';
import { CompactList } from './compact-list';
import type { Finding } from './findings';
import type { Reading } from './follow';
import type { StepReport } from './results';
import { sameValue } from './same-value';
import { SummaryMemo } from './session';
import { partitionPoint } from '../shared/search';
import { Shift, unmoved } from './shift';
import { LineIndex } from './text';
import { splicedUnreadParts, UnreadMemo } from './unread-parts';

/** Numbers a reading notes per line: its journal's length, its steps, the UTF-8 bytes before the next line, its reader's records. */
const MARK = 4;

/** The most lines marked and findings journaled: past either a reading is read on to its end after an edit. */
const MAX_MARKED_LINES = 1 << 18;
const MAX_JOURNAL = 1 << 16;

/** Lines after the edited one within which the new reading must converge with the old. */
const REUSE_LINES = 3;

/** A change the editor made: `removed` characters from `from` on replaced by `inserted`. */
export interface TextChange {
  readonly from: number;
  readonly removed: number;
  readonly inserted: string;
}

/** The reading before an edit (to where it had read), and the line the edit is in. */
export interface Reuse {
  readonly old: Reading;
  /** Where the follower was (after the byte order mark), and the UTF-8 bytes before it. */
  readonly fed: number;
  readonly fedBytes: number;
  /** The edited line (0-based). */
  readonly line: number;
  /** How the edit moved the text after the line. */
  readonly shift: Shift;
}

/** A reading's own journal and marks, when it can be kept after an edit (a request log's, its windows kept). */
export function startMarks(reading: Reading): void {
  reading.marks = [];
  reading.run.journal = [];
}

/** Notes a reading's state at the end of a line (`bytes`: UTF-8 bytes read); stops when it marked too much. */
export function mark(reading: Reading, bytes: number): void {
  const [marks, journal] = [reading.marks, reading.run.journal];
  if (!marks || !journal) return;
  if (marks.length < MARK * MAX_MARKED_LINES && journal.length <= MAX_JOURNAL) return void marks.push(journal.length, reading.run.steps.length, bytes, reading.reader.recordsRead?.() ?? 0);
  reading.marks = undefined;
  reading.run.journal = undefined;
}

/** The journal and marks of a reading resumed from `checkpoint` (which shares them with the reading it was forked from, up to its lines). */
export function resumedMarks(reading: Reading, checkpoint: Reading): void {
  const [marks, journal, lines] = [checkpoint.marks, checkpoint.run.journal, checkpoint.lines];
  reading.marks = marks && journal && marks.slice(0, MARK * lines);
  reading.run.journal = marks && journal && journal.slice(0, lines === 0 ? 0 : marks[MARK * (lines - 1)]);
}

/**
 * The reuse of `old` (read to `fed`) for `changes` of its text, in order
 * (offsets after `bom` characters): when they all fall inside one line read
 * before the last, and none touches its line end or inserts a line break.
 */
export function planReuse(old: Reading, changes: readonly TextChange[], fed: number, fedBytes: number, bom: number): Reuse | undefined {
  const first = changes[0];
  if (!old.marks || !first) return undefined;
  const starts = old.starts.lineStarts();
  const line = partitionPoint(starts.length, (i) => (starts[i] ?? 0) <= first.from - bom) - 1;
  const [start, next] = [starts[line] ?? 0, starts[line + 1]];
  if (line < 0 || next === undefined || line + 2 >= old.lines) return undefined;
  let end = next - 1;
  for (const { from, removed, inserted } of changes) {
    if (from - bom < start || from - bom + removed > end || /[\r\n]/.test(inserted)) return undefined;
    end += inserted.length - removed;
  }
  return { old, fed, fedBytes, line, shift: new Shift(next, end - (next - 1)) };
}

/** True when a reading at line `m` is past the lines it may converge within. */
export function pastReuse(reuse: Reuse, m: number): boolean {
  return m >= reuse.line + REUSE_LINES;
}

/** How the new reading, at a line where it converged with the old one, goes on as the old one went on from there. */
export interface Splice {
  /** UTF-8 bytes the edit added (or removed: negative). */
  readonly bytes: number;
  /** The old reading, or one of its checkpoints after the line, as a reading of the edited text; undefined when it cannot be told. */
  of(old: Reading): Reading | undefined;
}

/**
 * The splice of the new reading (`now`, read to the end of line `m`,
 * `bytes` UTF-8 bytes) into the old one, when `now` holds there what the old
 * one held after the same line; undefined while they differ (or can differ).
 */
export function converged(now: Reading, reuse: Reuse, m: number, bytes: number, maxTextBytes: number | undefined): Splice | undefined {
  const { old, shift } = reuse;
  const starts = old.starts.lineStarts();
  const from = starts[m + 1];
  if (m <= reuse.line || !now.marks || !old.marks || from === undefined || now.run.stopped || old.run.stopped) return undefined;
  const [steps = 0, oldBytes = 0, records = 0] = old.marks.slice(MARK * m + 1, MARK * m + MARK);
  const later = old.run.steps.all().slice(steps);
  const next = later[0]?.rewrite;
  if (!next || next.range?.start !== from || !later.every((s) => unmoved(s).rewrite)) return undefined;
  if (now.run.steps.length !== steps || !sameWindowAt(now.run.steps.at(steps - 1), old.run.steps.at(steps - 1), starts[m], shift)) return undefined;
  // The records the old reading read after the line (blank lines are none; lines that are no step, such as a skipped record, are).
  const after = (old.marks[MARK * old.lines - 1] ?? 0) - records;
  if (!now.reader.sameState?.(old.reader, { ...next, before: shift.window(next.before) }, after)) return undefined;
  const delta = bytes - oldBytes;
  if (maxTextBytes !== undefined && old.bytes + delta > maxTextBytes) return undefined;
  return { bytes: delta, of: (reading) => spliced(now, reading, m, delta, shift) };
}

/** `old` (the reading before the edit or a checkpoint of it, past line `m`) after `now`'s reading up to the line: see `converged`. */
function spliced(now: Reading, old: Reading, m: number, delta: number, shift: Shift): Reading | undefined {
  const marks = old.marks?.slice(0, MARK * old.lines);
  const [journal, steps, from] = [marks?.[MARK * m], marks?.[MARK * m + 1], old.starts.lineStarts()[m + 1]];
  const found = old.run.journal?.slice(journal, marks?.[MARK * (old.lines - 1)]);
  const reader = shift.delta === 0 ? old.reader.fork() : old.reader.shifted?.(shift);
  if (!marks || !now.marks || !found || steps === undefined || from === undefined || old.lines <= m + 1 || !reader) return undefined;
  const threads = old.run.threads.spliced(now.run.threads, from, shift);
  const usage = old.usage.spliced(now.usage, from, shift);
  if (!threads || !usage) return undefined;
  const run = splicedRun(now.run, old.run, found, old.run.steps.all().slice(steps), from, shift);
  const kept = [...now.marks, ...laterMarks(marks.slice(MARK * (m + 1)), (now.run.journal?.length ?? 0) - (journal ?? 0), delta)];
  const starts = shift.delta === 0 ? old.starts : LineIndex.fromStarts(old.starts.lineStarts().map((s) => shift.offset(s)));
  return { ...old, reader, run: { ...run, threads }, unreadMemo: new UnreadMemo(), usage, starts, upTo: shift.offset(old.upTo), bytes: old.bytes + delta, marks: kept };
}

/** Whether both steps are read from the line at `start` (before the edit moved it), their windows after equal (the window tracker holds it). */
function sameWindowAt(now: StepReport | undefined, old: StepReport | undefined, start: number | undefined, shift: Shift): boolean {
  if (start === undefined || now?.range?.start !== shift.offset(start) || old?.range?.start !== start || !now.rewrite || !old.rewrite) return false;
  return sameValue(now.rewrite.after, shift.window(old.rewrite.after));
}

/** The new run up to the line, then what the old one found after it, moved: its steps, its findings reported again, its dropped messages counted. */
function splicedRun(now: Run, old: Run, findings: readonly Finding[], later: readonly StepReport[], from: number, shift: Shift): Run {
  const run: Run = {
    ...forkRun(now),
    steps: CompactList.of([...now.steps.all(), ...later.map((step) => shift.step(step))]),
    windows: old.windows.moved((window) => shift.window(window)),
    unread: splicedUnreadParts(now.unread, old.unread, from, shift),
    summary: new SummaryMemo(),
    journal: [...(now.journal ?? [])],
  };
  if (old.finalWindow) run.finalWindow = shift.window(old.finalWindow);
  for (const f of findings) report(run, shift.finding(f));
  for (const step of later) {
    const rewrite = unmoved(step).rewrite;
    if (rewrite) run.tally.addStep(rewrite.before, rewrite.after);
  }
  return run;
}

/** The old reading's marks after the line, its journal `shift` longer and `delta` bytes more before each. */
function laterMarks(marks: readonly number[], shift: number, delta: number): number[] {
  // The records: the same (the reader read as many up to the line as the old one: `sameState`).
  return marks.map((n, i) => (i % MARK === 0 ? n + shift : i % MARK === 2 ? n + delta : n));
}
