/**
 * What a format adapter produces: a stream of windows, rewrite steps and
 * findings of its own (bad lines, skipped records). Streamed so a 100 MB
 * request log is checked one line at a time.
 */
import type { Finding } from './findings';
import type { JsonNode } from './json/parse';
import type { ContextWindow, FormatId, Rewrite } from './model';
import type { Limits } from './limits';
import type { Shift } from './shift';
import type { SourceLine } from './text';
import type { UsageRecord } from './usage';

export type TranscriptEvent =
  /**
   * A window to check as a whole (a single request, a snapshot, the trace's last state).
   * `thread`: the conversation of the file it belongs to, when the file has more than one
   * (the main one when absent); the last window of each thread is its current state.
   */
  | { readonly kind: 'window'; readonly window: ContextWindow; readonly thread?: ThreadInfo }
  /** A rewrite, judged against the window just before it. */
  | { readonly kind: 'step'; readonly rewrite: Rewrite }
  /** Something the adapter itself found: `invalid-json`, `record-skipped`, … */
  | { readonly kind: 'finding'; readonly finding: Finding }
  /** What the log says one request used (tokens, cache reads / writes): whole-file formats, read by their adapter (see usage.ts). */
  | { readonly kind: 'usage'; readonly usage: UsageRecord };

/**
 * One conversation of a file: its main one, a further thread of a request log
 * (formats/threads.ts), an Inspect sample, another agent of a trace, a Claude
 * Code side-chain (a sub-agent's conversation written into the session).
 */
export interface ThreadInfo {
  /** 1-based, in order of first appearance; 1 is the main conversation. Steps carry it (`Rewrite.thread`). */
  readonly id: number;
  readonly kind: 'main' | 'thread' | 'side-chain';
  /** `thread 2`, `sample 3`, `sub-agent Explore (a1b2c3d)`. */
  readonly label: string;
  /** The tool call of the main conversation that started it (a Claude Code Task call), when the file says so. */
  readonly parentCall?: string;
}

/** The file as an adapter reads it: lines for JSONL, the whole text for JSON, bytes for zips. */
export interface TranscriptInput {
  readonly file: string;
  /** The bounds this input was opened with (the engine applies `CheckOptions.limits` otherwise). */
  readonly limits?: Limits;
  lines(): Iterable<SourceLine>;
  text(): string;
  bytes(): Uint8Array;
  /**
   * Told the JSON value a reader parsed from one of the `lines()` (offsets in
   * the file), so the engine reads the line's usage from it instead of
   * parsing the line again (usage.ts). `shared`: the line starts with the
   * first `length` characters of `line`, an earlier line (a request log's
   * carried history).
   */
  readonly parsed?: (line: SourceLine, node: JsonNode, shared?: { readonly line: SourceLine; readonly length: number }) => void;
  /**
   * The reader may hand windows whose messages carried over from an earlier
   * line are those first readings, not copies located in the window's line
   * (formats/carry.ts `EXACT_WINDOW`: such a window builds its copies when
   * asked). Set by a check that keeps no windows.
   */
  readonly firstReadings?: boolean;
}

export interface FormatAdapter {
  readonly id: FormatId;
  /** Human name, for hints and docs. */
  readonly label: string;
  /**
   * Cheap content sniff on the first bytes of the file (up to 64 KiB; for JSONL
   * its first lines). Never parses the whole file.
   */
  sniff(head: string): boolean;
  /** Reads the file. Bad input becomes findings, never an exception. */
  read(input: TranscriptInput): Iterable<TranscriptEvent>;
  /**
   * Line-based formats a writer appends to: a reader fed one line at a time,
   * from which a followed file is read on where it stopped (`follow.ts`);
   * `read` is the same reader fed every line. `firstLine` is the file's first
   * non-blank line; undefined when the file is not read line by line (one JSON
   * document). `asked`: what the follower asks of it, as of a whole file's
   * reader (`TranscriptInput.parsed`: to be told each line's parsed value).
   */
  lineReader?(file: string, firstLine: string, asked?: Pick<TranscriptInput, 'parsed'>): LineReader | undefined;
}

/** A reader fed one line at a time (see `FormatAdapter.lineReader`). */
export interface LineReader {
  /** The events of the next line (blank ones too: the reader skips them). */
  line(line: SourceLine): Iterable<TranscriptEvent>;
  /** The events once no more lines come. The reader is done after it: call it on a fork to go on. */
  end(): Iterable<TranscriptEvent>;
  /** An independent copy: lines fed to one are not seen by the other. */
  fork(): LineReader;
  /**
   * Whether reading on from this reader's state gives the events `later`
   * (another reading of the same file, or of it before an edit) gave after
   * a line that both read: it holds what `later` held there, `next` being the
   * step `later` read from the next line. Lets a followed file keep a
   * reading's later steps after an edit (follow-reuse.ts); a reader without
   * it is always read on.
   */
  sameState?(later: LineReader, next: Rewrite): boolean;
  /** How many records it has read (its lines, blank ones not counted); with `sameState`. */
  recordsRead?(): number;
  /**
   * This reader (of the text before an edit, read past the line where
   * `before`, a reading of the edited text, holds what it held) as a reader
   * of the edited text: what it noted before `splice.from` is `before`'s,
   * the rest moved by the edit. Undefined when it cannot tell. With `sameState`.
   */
  spliced?(before: LineReader, splice: ReaderSplice): LineReader | undefined;
}

/** How a reading of a text before an edit goes on as a reading of the edited text (follow-reuse.ts). */
export interface ReaderSplice {
  /** The offsets from where the edited text is the same on (`at`), moved as the edit moved them. */
  readonly shift: Shift;
  /** The offset (before the edit) of the line from which the reading before the edit is kept. */
  readonly from: number;
  /** Lines and records the edit added before it (negative: removed). */
  readonly lines: number;
  readonly records: number;
  /** The 1-based line in the edited text of an offset (from `from` on) of the text before the edit. */
  line(offset: number): number;
}

/** Every line of the input through a line reader, then its end. */
export function* readByLines(input: TranscriptInput, reader: LineReader): Generator<TranscriptEvent> {
  for (const line of input.lines()) yield* reader.line(line);
  yield* reader.end();
}
