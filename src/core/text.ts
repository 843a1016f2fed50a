/** Source positions: offsets in a file's text, and their line/column form. */
import { partitionPoint } from '../shared/search';

/** A half-open range of UTF-16 offsets into a source file's text. */
export interface SourceRange {
  readonly start: number;
  readonly end: number;
}

/** 1-based line and column, as editors and the CLI show them. */
export interface LineColumn {
  readonly line: number;
  readonly column: number;
}

/** One line of a JSONL file, with where it starts in the whole file. */
export interface SourceLine {
  /** The line's text, without its line terminator. */
  readonly text: string;
  /** Offset of the line's first character in the file. */
  readonly offset: number;
  /** 0-based line number. */
  readonly index: number;
  /** True on a last line with no line end after it: possibly still being written. */
  readonly unterminated?: true;
  /** At least this many leading characters are those of the line before it (index - 1), when the input compared them (byte-lines.ts). */
  readonly same?: number;
  /**
   * With `same`: the text from `from` (at most `same`) on. Such a line, read
   * from bytes, decodes its whole `text` only when that is read: a reader
   * that knows what the shared part holds reads this instead.
   */
  readonly rest?: { readonly from: number; readonly text: string };
}

/** The line's length in characters (its whole text is not decoded for it). */
export function lineLength(line: SourceLine): number {
  return line.rest ? line.rest.from + line.rest.text.length : line.text.length;
}

/** The line's text from `start` to `end` (from `rest` when it holds them). */
export function lineSlice(line: SourceLine, start: number, end?: number): string {
  const rest = line.rest;
  if (!rest || start < rest.from) return line.text.slice(start, end);
  return rest.text.slice(start - rest.from, end === undefined ? undefined : end - rest.from);
}

/** `line.text.indexOf(needle, from)` (from `rest` when it holds what is searched). */
export function lineIndexOf(line: SourceLine, needle: string, from: number): number {
  const rest = line.rest;
  if (!rest || from < rest.from) return line.text.indexOf(needle, from);
  const at = rest.text.indexOf(needle, from - rest.from);
  return at < 0 ? -1 : at + rest.from;
}

/** Maps offsets to line/column. Built once per text, or fed line by line while streaming. */
export class LineIndex {
  private starts: number[] = [0];

  /** An independent copy (one array copy, not a start at a time). */
  copy(): LineIndex {
    const index = new LineIndex();
    index.starts = this.starts.slice();
    return index;
  }

  /** An index from known line starts (e.g. `Report.lineStarts`); the first must be 0. */
  static fromStarts(starts: readonly number[]): LineIndex {
    const index = new LineIndex();
    for (const start of starts) index.addLineStart(start);
    return index;
  }

  /** The offsets at which lines start, in order. */
  lineStarts(): readonly number[] {
    return this.starts;
  }

  static of(text: string): LineIndex {
    const index = new LineIndex();
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) index.starts.push(i + 1);
    return index;
  }

  /** Records that a line starts at `offset` (streaming use; offsets must increase). */
  addLineStart(offset: number): void {
    const last = this.starts[this.starts.length - 1] ?? 0;
    if (offset > last) this.starts.push(offset);
  }

  /** The 1-based line/column of an offset. */
  position(offset: number): LineColumn {
    return lineColumn(this.starts, offset);
  }
}

/** The 1-based line/column of an offset, given the line starts (`Report.lineStarts`). */
export function lineColumn(starts: readonly number[], offset: number): LineColumn {
  const line = Math.max(0, partitionPoint(starts.length, (i) => (starts[i] ?? 0) <= offset) - 1);
  return { line: line + 1, column: offset - (starts[line] ?? 0) + 1 };
}

/** Splits a text into lines (LF or CRLF), keeping each line's offset. */
export function* splitLines(text: string): Generator<SourceLine> {
  let offset = 0;
  let index = 0;
  while (offset <= text.length) {
    const nl = text.indexOf('\n', offset);
    const end = nl === -1 ? text.length : nl;
    const contentEnd = end > offset && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
    if (nl === -1 && offset === text.length) return;
    const line: SourceLine = { text: text.slice(offset, contentEnd), offset, index };
    yield nl === -1 ? { ...line, unterminated: true } : line;
    if (nl === -1) return;
    offset = nl + 1;
    index++;
  }
}

/**
 * Characters a terminal may act on: C0 controls (tab, CR, LF, ESC…), DEL, C1
 * controls, line/paragraph separators and bidirectional overrides.
 */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** Shows every control character of untrusted text as a visible escape (`\x1b`, `\r`, `\n`, `\u202e`). */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
