/**
 * Following a file that grows (`check --follow`, a transcript open in the
 * editor while an agent appends to it). Its text is given as it arrives
 * (`append`): each new complete line goes to the format's line reader
 * (`FormatAdapter.lineReader`) and its events to the check run so far, so
 * nothing read before is read or judged again. The report of the text so far
 * is finished on forks of the reader and the run: the last line may still be
 * half-written and the end of the file is not final. The report equals
 * `checkTranscript` of the same text (test/unit/follow.test.ts).
 *
 * The caller says when the file was truncated or replaced (`restart`): the
 * next text is read from the start. A follower made `rewindable` keeps the
 * state of its check at line starts (one every `CHECKPOINT_CHARS` or more, checkpoints.ts):
 * after an edit, `rewind` goes back to the last one before the first changed
 * character, and only the text from there on is read again; after an edit
 * of a request log (inside a line or adding and removing lines), only until
 * the reading is back where the one before the edit was (follow-reuse.ts),
 * whose later steps are kept. Until the file's head (what the format is
 * sniffed from, 64 KiB) is complete, the text is held and the format sniffed
 * again at each append (a different format starts over); a file that is not
 * read by lines (one JSON document) is held and checked whole each time.
 */
import { checkTranscriptWith, finishRun, forkRun, newRun, onEvent, readStopped, resolveAdapter, takeLine, type Run } from './check';
import { inputFromText } from './io';
import { fileTooLarge, resolveLimits, type Limits } from './limits';
import type { CheckOptions, Report } from './results';
import { LineIndex, splitLines, type SourceLine } from './text';
import type { FormatAdapter, LineReader, TranscriptInput } from './transcript';
import { UnreadMemo } from './unread-parts';
import { UsageScanner } from './usage';
import { SummaryMemo } from './session';
import { firstLineOf } from './formats/common';
import { unsliced } from './json/parse';
import { checkpointBytes, checkpointDue, keptAfter, lazily, trimCheckpoints, type Checkpoint } from './checkpoints';
import { converged, mark, pastReuse, planReuse, resumedMarks, startMarks, type Reuse, type TextChange } from './follow-reuse';
export type { TextChange } from './follow-reuse';

/** The characters a format is sniffed from (`headOf`). */
const HEAD_CHARS = 64 * 1024;

export interface FollowOptions extends CheckOptions {
  /**
   * Stop reading at the line that takes the text past this many UTF-8 bytes,
   * as a file on disk would (the editor's documents); default: no bound.
   */
  readonly maxTextBytes?: number;
  /** Read with this reader (a library caller's own adapter, as `checkTranscriptWith`); default: the format's. */
  readonly adapter?: FormatAdapter;
  /** Keep checkpoints, so an edited text can be read again from the last line start before the edit (`rewind`). */
  readonly rewindable?: boolean;
}

/** Reading by lines: the reader and the run, and what the lines read so far add up to. */
export interface Reading {
  readonly adapter: FormatAdapter;
  readonly reader: LineReader;
  readonly run: Run;
  /** What the unread-parts counts of the reports' final windows share (given to each report's fork of the run). */
  readonly unreadMemo: UnreadMemo;
  readonly usage: UsageScanner;
  readonly starts: LineIndex;
  /** Lines read, and the offset just past the last one's text. */
  lines: number;
  upTo: number;
  /** UTF-8 bytes of the lines read, each counted with one line end (as `maxTextBytes` counts them). */
  bytes: number;
  /** What it noted at each line end, to be kept after an edit (follow-reuse.ts `mark`); shared with its checkpoints, each up to its lines. */
  marks?: number[] | undefined;
}

/** A copy of a reading that goes on independently of it, with `starts` as its line index. */
function forkReading(reading: Reading, starts: LineIndex): Reading {
  return { ...reading, reader: reading.reader.fork(), run: forkRun(reading.run), usage: reading.usage.fork(), starts };
}

export class Follower {
  /** Characters given since the start (a leading byte order mark included). */
  private given = 0;
  /** The whole text as given, while it is needed (head not complete, or a file not read by lines). */
  private held: string | undefined = '';
  private bom = false;
  /** Offset (after the byte order mark) where the text not yet read starts, at a line start; that text. */
  private fed = 0;
  private pending = '';
  /** UTF-8 bytes of the text before `fed`. */
  private fedBytes = 0;
  private reading: Reading | undefined;
  private readonly limits: Limits;
  /** The checkpoints of the reading, in text order (`rewindable` only). */
  private checkpoints: Checkpoint[] = [];
  /** The usage scanner of the reading whose line is being read: told the value its reader parsed (no second parse of the line). */
  private told: UsageScanner | undefined;
  /** After an edit: the reading before it and its checkpoints after the edit, kept if the new one converges with it (follow-reuse.ts). */
  private reuse: Reuse | undefined;
  private afterEdit: Checkpoint[] = [];
  /** A checkpoint at the start of the line edited last (`rewindable` request logs): typing on in it reads that line again, not from the checkpoint before it. */
  private atEdit: Checkpoint | undefined;

  constructor(
    readonly file: string,
    private readonly options: FollowOptions = {},
  ) {
    this.limits = resolveLimits(undefined, options.limits);
  }

  /** Where the next `append` continues: the characters given, and after an edit those the reading it kept holds already. */
  get position(): number {
    return this.given;
  }

  /** UTF-8 bytes of the characters given (a byte order mark included): where the next `append` continues in the file. */
  get bytes(): number {
    if (!this.reading) return Buffer.byteLength(this.held ?? '', 'utf8');
    return (this.bom ? 3 : 0) + this.fedBytes + Buffer.byteLength(this.pending, 'utf8');
  }

  /** Forgets the file: the next `append` starts it again (it was truncated or replaced). */
  restart(): void {
    Object.assign(this, { given: 0, held: '', bom: false, reading: undefined, checkpoints: [], fedBytes: 0, reuse: undefined, afterEdit: [], atEdit: undefined });
  }

  /**
   * The text was edited from character `from` on (nothing before it changed):
   * goes back to the last checkpoint at or before `from`, so the next `read`
   * gives the text from `position` on. False (nothing changed) when there is
   * none: an edit in the head (the format may change) or before the first
   * checkpoint; then `restart`. Any number of rewinds in a row: what a fork
   * adds to its lookups is bounded (unread-parts.ts `Walked`). `changes`: the
   * edit's changes, in order, when known: an edit of a request log keeps what
   * was read after it (follow-reuse.ts).
   */
  rewind(from: number, changes: readonly TextChange[] = []): boolean {
    const at = from - (this.bom ? 1 : 0);
    if (this.held !== undefined || at < HEAD_CHARS) return false;
    // A splice kept below is made of this reading's checkpoints as they are: none waits on another's (no chain of edits held).
    this.settle();
    // Those before the edit, less any kept by a splice whose reading cannot be made.
    const kept = this.checkpoints.filter((c) => c.fed <= at);
    while (kept.length > 0 && !kept[kept.length - 1]?.reading()) kept.pop();
    if (this.atEdit && this.atEdit.fed > at) this.atEdit = undefined;
    const last = kept[kept.length - 1];
    const checkpoint = this.atEdit && (!last || this.atEdit.fed > last.fed) ? this.atEdit : last;
    const resumed = checkpoint?.reading();
    if (!checkpoint || !resumed) return false;
    this.reuse = this.reading && planReuse(this.reading, changes, this.fed, this.fedBytes, this.bom ? 1 : 0);
    // Its checkpoints after the edit are kept by the splice too (moved, when the edit moved the text after it: only `MOVED_CHECKPOINTS`).
    this.afterEdit = this.reuse ? keptAfter(this.checkpoints.filter((c) => c.fed > at), this.reuse.shift.identity) : [];
    const starts = LineIndex.fromStarts(resumed.starts.lineStarts().slice(0, checkpoint.lineStarts));
    Object.assign(this, { checkpoints: kept, fed: checkpoint.fed, fedBytes: checkpoint.fedBytes, pending: '' });
    this.given = checkpoint.fed + (this.bom ? 1 : 0);
    // What the reports share is keyed by what they were made from: a rewound reading starts them afresh.
    const reading = forkReading(resumed, starts);
    this.reading = { ...reading, run: { ...reading.run, summary: new SummaryMemo() }, unreadMemo: new UnreadMemo() };
    resumedMarks(this.reading, resumed);
    return true;
  }

  /**
   * Makes the readings of the checkpoints the last edit's splice kept: work
   * a re-check leaves for after its report (the next edit makes them first).
   */
  settle(): void {
    for (const c of this.checkpoints) c.reading();
  }

  /**
   * Reads `more`, the text appended since `position`, and returns the report of
   * the whole text so far. Throws `UnknownFormatError` as `checkTranscript`
   * does while the format is not recognised (give more text later).
   */
  append(more: string): Report {
    this.read(more);
    return this.report();
  }

  /** Reads `more` without a report (a large file read in slices); throws as `append`. */
  read(more: string): void {
    if (this.given === 0 && more.charCodeAt(0) === 0xfeff) this.bom = true;
    const text = this.given === 0 && this.bom ? more.slice(1) : more;
    this.given += more.length;
    if (this.held === undefined) return this.feed(text);
    const held = (this.held += more);
    // While the head grows the format is sniffed again: another one starts over.
    const adapter = this.adapterOf(held);
    const whole = this.bom ? held.slice(1) : held;
    if (this.reading?.adapter !== adapter) this.reading = this.startReading(adapter, whole);
    if (!this.reading) return;
    if (held.length >= HEAD_CHARS) this.held = undefined;
    this.feed(whole.slice(this.fed + this.pending.length));
  }

  /** The report of the text so far: the unfinished last line and the end read on forks. */
  report(): Report {
    const reading = this.reading;
    if (!reading) {
      // No line read yet, or a file read whole (one JSON document): checked as it is.
      const held = this.held ?? '';
      return checkTranscriptWith(this.adapterOf(held), { file: this.file, text: held }, this.options);
    }
    const fork: Reading = { ...reading, run: { ...forkRun(reading.run), unreadMemo: reading.unreadMemo }, usage: reading.usage.fork(), starts: reading.starts.copy() };
    const reader = reading.reader.fork();
    const [tail] = this.pending === '' ? [] : splitLines(this.pending);
    if (tail) this.readLine(fork, reader, { ...tail, offset: this.fed, index: reading.lines });
    try {
      if (!fork.run.stopped) for (const event of reader.end()) onEvent(fork.run, event, fork.usage);
    } catch (error) {
      readStopped(fork.run, reading.adapter, error, fork.upTo);
    }
    return finishRun(fork.run, reading.adapter, this.file, fork.starts.lineStarts(), fork.usage);
  }

  private adapterOf(held: string): FormatAdapter {
    return this.options.adapter ?? resolveAdapter(inputFromText(this.file, held), this.options);
  }

  /** Reading by lines from the start, once the first line tells how the file is read. */
  private startReading(adapter: FormatAdapter, text: string): Reading | undefined {
    Object.assign(this, { fed: 0, pending: '', fedBytes: 0 });
    const firstLine = firstLineOf(text.slice(0, text.lastIndexOf('\n') + 1));
    // A reader and its forks tell the usage scanner of the reading whose line they read (`readLine`).
    const parsed: TranscriptInput['parsed'] = (line, node, shared) => this.told?.parsed(line, node, shared);
    const reader = firstLine === undefined ? undefined : adapter.lineReader?.(this.file, firstLine, { parsed });
    if (!reader) return undefined;
    const reading: Reading = { adapter, reader, run: newRun(this.options, this.limits), unreadMemo: new UnreadMemo(), usage: new UsageScanner(adapter.id), starts: new LineIndex(), lines: 0, upTo: 0, bytes: 0 };
    if (this.options.rewindable && this.options.keepRewrites && reader.sameState && reader.recordsRead) startMarks(reading);
    return reading;
  }

  /** Reads the complete lines of the pending text and `more`; keeps the unfinished last line pending. */
  private feed(more: string): void {
    const reading = this.reading as Reading;
    const text = this.pending + more;
    const complete = text.slice(0, text.lastIndexOf('\n') + 1);
    this.pending = text.slice(complete.length);
    const [fed, fedBytes, lines] = [this.fed, this.fedBytes, reading.lines];
    this.fedBytes += Buffer.byteLength(complete, 'utf8');
    const bytesAt = checkpointBytes(complete, fedBytes);
    for (const line of splitLines(complete)) {
      // Its own copy of the line's text: what a checkpoint keeps of its last line (a request log's carry) would pin the text it was sliced from.
      this.readLine(reading, reading.reader, { ...line, text: unsliced(line.text), offset: fed + line.offset, index: lines + line.index });
      reading.lines = lines + line.index + 1;
      const end = complete.indexOf('\n', line.offset + line.text.length) + 1;
      if (reading.marks) mark(reading, bytesAt(end));
      if (this.options.rewindable && this.held === undefined) this.checkpoint(reading, fed + end, () => bytesAt(end), end - line.offset);
      if (this.reuse && reading.lines === this.reuse.line) this.atEdit = this.frozen(reading, fed + end, bytesAt(end), end - line.offset);
      if (this.reuse && this.resumed(reading, fed + end, () => bytesAt(end))) {
        // The kept reading holds the text up to `this.fed` (where it goes on): what of it is not given yet counts as
        // given, so the next text given starts there (a read in slices ends at once, not one pause per slice).
        const [held, rest] = [this.fed - (fed + end), text.slice(end)];
        this.given += Math.max(0, held - rest.length);
        return this.feed(rest.slice(held));
      }
    }
    this.fed += complete.length;
  }

  /**
   * After a line of a reading of an edited text (the next starts at `next`):
   * when it converged with the reading before the edit, goes on from the end
   * of that one (the text up to there was read before); true then. The reuse
   * ends there, or past the lines it may converge within.
   */
  private resumed(reading: Reading, next: number, bytes: () => number): boolean {
    const [reuse, later] = [this.reuse as Reuse, this.afterEdit];
    const splice = converged(reading, reuse, reading.lines - 1, next, bytes(), this.options.maxTextBytes);
    const spliced = splice?.of(reuse.old);
    if (!spliced && !pastReuse(reuse, next)) return false;
    Object.assign(this, { reuse: undefined, afterEdit: [] });
    if (!splice || !spliced) return false;
    // The old checkpoints after the line, spliced too when a later edit further down reads from one of them
    // (nothing splicing reads from the new reading is changed after: its parts are forked or copied).
    const after = later.filter((c) => c.lines > splice.line + 1).map((c) => {
      const reading = lazily(() => {
        const old = c.reading();
        return old && splice.of(old);
      });
      return { ...c, fed: reuse.shift.offset(c.fed), fedBytes: c.fedBytes + splice.bytes, lineStarts: c.lineStarts + splice.lines, lines: c.lines + splice.lines, reading };
    });
    this.checkpoints.push(...after);
    trimCheckpoints(this.checkpoints);
    Object.assign(this, { reading: spliced, fed: reuse.shift.offset(reuse.fed), fedBytes: reuse.fedBytes + splice.bytes, pending: '' });
    return true;
  }

  /**
   * Keeps a fork of the reading at the line start `fed` (after a line of
   * `held` characters), when it is far enough from the last checkpoint; then
   * drops the one whose neighbours are closest (never the first or the last
   * two) while they are too many or hold too much.
   */
  private checkpoint(reading: Reading, fed: number, fedBytes: () => number, held: number): void {
    if (!checkpointDue(this.checkpoints, fed)) return;
    this.checkpoints.push(this.frozen(reading, fed, fedBytes(), held));
    trimCheckpoints(this.checkpoints);
  }

  /** A checkpoint of the reading at the line start `fed`. */
  private frozen(reading: Reading, fed: number, fedBytes: number, held: number): Checkpoint {
    const frozen = forkReading(reading, reading.starts);
    // The journal is shared as the marks are: a checkpoint's part is what its marks count.
    frozen.run.journal = reading.run.journal;
    return { fed, fedBytes, lines: frozen.lines, reading: () => frozen, lineStarts: reading.starts.lineStarts().length, held };
  }

  /** One line through the checks `checkTranscript` makes on its input, then the reader; a stop is said once. */
  private readLine(reading: Reading, reader: LineReader, line: SourceLine): void {
    if (reading.run.stopped) return;
    try {
      this.bound(reading, line);
      reading.upTo = Math.max(reading.upTo, takeLine(line, this.limits, reading.starts, reading.usage));
      this.told = reading.usage;
      for (const event of reader.line(line)) onEvent(reading.run, event, reading.usage);
    } catch (error) {
      readStopped(reading.run, reading.adapter, error, reading.upTo);
    } finally {
      this.told = undefined;
    }
  }

  /** `maxTextBytes` as the editor's check applies it: lines counted with one line end each, once the whole text is over it. */
  private bound(reading: Reading, line: SourceLine): void {
    const max = this.options.maxTextBytes;
    if (max === undefined) return;
    reading.bytes += Buffer.byteLength(line.text, 'utf8') + 1;
    if (reading.bytes <= max) return;
    const total = (this.bom ? 3 : 0) + this.fedBytes + Buffer.byteLength(this.pending, 'utf8');
    if (line.unterminated && total <= max) return;
    throw fileTooLarge(max);
  }
}
