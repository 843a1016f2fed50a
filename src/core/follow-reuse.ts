/**
 * Keeping what a followed request log's reading found after an edit (issue
 * 14: a re-check after an edit costs what the edit changed). In a request log
 * each line is a whole request, judged against the one before it, so an edit
 * of requests k to l changes the steps k to l + 1 and nothing after them
 * (test/unit/edit-locality.test.ts). The follower reads the edited text again
 * from the checkpoint before the edit (follow.ts `rewind`), as always; after
 * each line that starts after the edit's last change it asks `converged`
 * whether the new reading holds there what the reading before the edit held
 * after the same line (the same text: `Reuse.at` on, moved by `Reuse.shift`).
 * Then the old reading's later steps, findings, usage and windows are kept
 * after the new reading's own, and the rest of the text is not read again.
 *
 * What is compared, what is spliced: the reader's state (its one thread's
 * last request with its response, against the window the old reading judged
 * the next request against: `LineReader.sameState`) and the window tracker's
 * (the window of the line, against the old one's) must be equal; what adds up
 * over the file is the new reading's up to the line plus the old reading's
 * after it: the steps (numbered on from the new reading's), the findings
 * (every finding the old reading reported after the line, from its journal,
 * reported again so that repeats and the per-rule limit meet across the
 * splice; their steps numbered on, the line and request numbers in their
 * messages moved by the lines and records the edit added: numbered.ts), the
 * messages dropped, the threads' window starts, the usage records and times,
 * the unread parts, the records skipped (the new reading's up to the line,
 * the old one's after it: `Unseen.spliced`), the line starts. Each reading
 * notes at every line end how long its journal and steps were, the UTF-8
 * bytes and the records read (`mark`). The old reading's checkpoints after
 * the edit are spliced the same way, when the edit kept the text's length.
 *
 * The edit may add or remove lines (Enter pressed, lines joined, deleted,
 * pasted): its changes span from the first line they touch to the first that
 * starts after them all (`changedSpan`). One that changes the text's length
 * moves everything after it (shift.ts): what the reading holds of its last
 * line and its later findings, usage and parts at once, the later steps'
 * windows (most of what it holds) only when a step is read (`Shift.step`:
 * from the step as read, by the moves of all the edits since composed into
 * one map, so that edits without end in a row never make a move of a move).
 * A reading that does not converge within `REUSE_LINES` lines of the first
 * line after the edit is read on to the end as before.
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
import { renumbered, sameNumber } from './numbered';

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

/** The reading before an edit (to where it had read), and where the edit is. */
export interface Reuse {
  readonly old: Reading;
  /** Where the follower was (after the byte order mark), and the UTF-8 bytes before it. */
  readonly fed: number;
  readonly fedBytes: number;
  /** The first edited line (0-based, the same in both texts). */
  readonly line: number;
  /** The first line of the text before the edit that starts after every change (its text and the rest the same in the edited text), and where it starts. */
  readonly after: number;
  readonly at: number;
  /** How the edit moved the text from `at` on. */
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
 * The part of the text the changes (in order, each on the text the ones
 * before it made) replaced: from `from` to `old` in the text before them, to
 * `now` in the text after them; undefined without changes.
 */
export function changedSpan(changes: readonly TextChange[]): { from: number; old: number; now: number } | undefined {
  let span: { from: number; old: number; now: number } | undefined;
  for (const { from, removed, inserted } of changes) {
    const end = Math.max(span?.now ?? -Infinity, from + removed);
    // What the change removed past the span was the old text's, moved by what the span added.
    const old = end - ((span?.now ?? 0) - (span?.old ?? 0));
    span = { from: Math.min(span?.from ?? Infinity, from), old: span ? Math.max(span.old, old) : from + removed, now: end + inserted.length - removed };
  }
  return span;
}

/**
 * The reuse of `old` (read to `fed`) for `changes` of its text, in order
 * (offsets after `bom` characters): when a line read before the last two
 * starts after them all.
 */
export function planReuse(old: Reading, changes: readonly TextChange[], fed: number, fedBytes: number, bom: number): Reuse | undefined {
  const span = changedSpan(changes);
  if (!old.marks || !span || span.from < bom) return undefined;
  const starts = old.starts.lineStarts();
  const line = partitionPoint(starts.length, (i) => (starts[i] ?? 0) <= span.from - bom) - 1;
  const after = partitionPoint(starts.length, (i) => (starts[i] ?? 0) <= span.old - bom);
  const at = starts[after];
  if (line < 0 || at === undefined || after + 1 >= old.lines) return undefined;
  return { old, fed, fedBytes, line, after, at, shift: new Shift(at, span.now - span.old) };
}

/** The line of the text before the edit that starts where the edited text's line starting at `next` does (its offset there), when it starts after the edit. */
function oldLineAt(reuse: Reuse, next: number): number | undefined {
  const from = next - reuse.shift.delta;
  if (from < reuse.at) return undefined;
  const starts = reuse.old.starts.lineStarts();
  const j = partitionPoint(Math.min(starts.length, reuse.old.lines), (i) => (starts[i] ?? 0) < from);
  return starts[j] === from ? j : -1;
}

/** True when a reading whose next line starts at `next` (in the edited text) is past the lines it may converge within. */
export function pastReuse(reuse: Reuse, next: number): boolean {
  const j = oldLineAt(reuse, next);
  return j !== undefined && (j < 0 || j - 1 >= reuse.after + REUSE_LINES - 1);
}

/** How the new reading, at a line where it converged with the old one, goes on as the old one went on from there. */
export interface Splice {
  /** UTF-8 bytes, lines the edit added (or removed: negative). */
  readonly bytes: number;
  readonly lines: number;
  /** The line of the old reading (0-based) after which the old one is kept. */
  readonly line: number;
  /** The old reading, or one of its checkpoints after the line, as a reading of the edited text; undefined when it cannot be told. */
  of(old: Reading): Reading | undefined;
}

/**
 * The splice of the new reading (`now`, read to the end of its line `n`,
 * the next starting at `next`, `bytes` UTF-8 bytes) into the old one, when
 * `now` holds there what the old one held after the same line; undefined
 * while they differ (or can differ).
 */
export function converged(now: Reading, reuse: Reuse, n: number, next: number, bytes: number, maxTextBytes: number | undefined): Splice | undefined {
  const { old, shift } = reuse;
  const j = oldLineAt(reuse, next) ?? -1;
  const m = j - 1;
  const starts = old.starts.lineStarts();
  const from = starts[j];
  if (m < reuse.after || !now.marks || !old.marks || from === undefined || now.run.stopped || old.run.stopped) return undefined;
  const [steps = 0, oldBytes = 0, records = 0] = old.marks.slice(MARK * m + 1, MARK * m + MARK);
  const later = old.run.steps.all().slice(steps);
  const next0 = later[0]?.rewrite;
  if (!next0 || next0.range?.start !== from || !later.every((s) => unmoved(s).rewrite)) return undefined;
  if (!sameWindowAt(now.run.steps.at(now.run.steps.length - 1), old.run.steps.at(steps - 1), starts[m], shift)) return undefined;
  if (!now.reader.sameState?.(old.reader, { ...next0, before: shift.window(next0.before) })) return undefined;
  const delta = bytes - oldBytes;
  if (maxTextBytes !== undefined && old.bytes + delta > maxTextBytes) return undefined;
  const move = { shift, m, lines: n - m, records: (now.reader.recordsRead?.() ?? 0) - records, steps: now.run.steps.length - steps, bytes: delta };
  let index: LineIndex | undefined;
  // One index of the line starts for the old reading and its checkpoints (each its own count of them).
  const starts2 = () => (index ??= splicedStarts(now, old, m, shift));
  return { bytes: delta, lines: move.lines, line: m, of: (reading) => spliced(now, reading, move, starts2) };
}

/** What moves from an old reading to the new one at its line `m`: offsets; lines, records, steps and UTF-8 bytes before it. */
interface Move {
  readonly shift: Shift;
  readonly m: number;
  readonly lines: number;
  readonly records: number;
  readonly steps: number;
  readonly bytes: number;
}

/** The new reading's line starts up to its line after `m`, then the old reading's after its line `m`, moved. */
function splicedStarts(now: Reading, old: Reading, m: number, shift: Shift): LineIndex {
  if (shift.identity && now.lines === m + 1) return old.starts;
  const later = old.starts.lineStarts().slice(m + 1, old.lines);
  return LineIndex.fromStarts([...now.starts.lineStarts().slice(0, now.lines), ...(shift.identity ? later : later.map((s) => shift.offset(s)))]);
}

/** `old` (the reading before the edit or a checkpoint of it, past line `m`) after `now`'s reading up to the line: see `converged`. */
function spliced(now: Reading, old: Reading, move: Move, starts: () => LineIndex): Reading | undefined {
  const { shift, m, lines } = move;
  const marks = old.marks?.slice(0, MARK * old.lines);
  const oldStarts = old.starts.lineStarts();
  const [journal, steps, from] = [marks?.[MARK * m], marks?.[MARK * m + 1], oldStarts[m + 1]];
  const found = old.run.journal?.slice(journal, marks?.[MARK * (old.lines - 1)]);
  if (!marks || !now.marks || !found || steps === undefined || from === undefined || old.lines <= m + 1) return undefined;
  const line = (offset: number) => partitionPoint(old.lines, (i) => (oldStarts[i] ?? 0) <= offset) + lines;
  const reader = old.reader.spliced?.(now.reader, { shift, from, lines, records: move.records, line });
  if (!reader) return undefined;
  const threads = old.run.threads.spliced(now.run.threads, from, shift);
  const usage = old.usage.spliced(now.usage, from, shift);
  if (!threads || !usage) return undefined;
  const run = splicedRun(now.run, old.run, found, old.run.steps.all().slice(steps), from, move);
  const kept = [...now.marks, ...laterMarks(marks.slice(MARK * (m + 1)), (now.run.journal?.length ?? 0) - (journal ?? 0), move)];
  return { ...old, reader, run: { ...run, threads }, unreadMemo: new UnreadMemo(), usage, starts: starts(), lines: old.lines + lines, upTo: shift.offset(old.upTo), bytes: old.bytes + move.bytes, marks: kept };
}

/** Whether both steps are read from the line at `start` (before the edit moved it), their windows after equal (the window tracker holds it). */
function sameWindowAt(now: StepReport | undefined, old: StepReport | undefined, start: number | undefined, shift: Shift): boolean {
  if (start === undefined || now?.range?.start !== shift.offset(start) || old?.range?.start !== start || !now.rewrite || !old.rewrite) return false;
  return sameValue(now.rewrite.after, shift.window(old.rewrite.after));
}

/** The new run up to the line, then what the old one found after it, moved: its steps, its findings reported again, its dropped messages counted. */
function splicedRun(now: Run, old: Run, findings: readonly Finding[], later: readonly StepReport[], from: number, move: Move): Run {
  const shift = move.shift;
  const run: Run = {
    ...forkRun(now),
    steps: CompactList.of([...now.steps.all(), ...later.map((step) => shift.step(step, move.steps))]),
    windows: old.windows.moved((window) => shift.window(window)),
    unread: splicedUnreadParts(now.unread, old.unread, from, shift),
    summary: new SummaryMemo(),
    journal: [...(now.journal ?? [])],
  };
  if (old.finalWindow) run.finalWindow = shift.window(old.finalWindow);
  for (const f of findings) report(run, renumbered(stepMoved(shift.finding(f), move.steps), move.lines, move.records));
  for (const step of later) {
    const rewrite = unmoved(step).rewrite;
    if (rewrite) run.tally.addStep(rewrite.before, rewrite.after);
  }
  return run;
}

/** The old reading's marks after the line, its journal `shift` longer and the edit's bytes and records more before each. */
function laterMarks(marks: readonly number[], shift: number, move: Move): number[] {
  const by = [shift, move.steps, move.bytes, move.records];
  return marks.map((n, i) => n + (by[i % MARK] as number));
}

/** A finding of a step numbered `steps` later. */
function stepMoved(f: Finding, steps: number): Finding {
  return steps === 0 || f.step === undefined ? f : sameNumber(f, { ...f, step: f.step + steps });
}
