/**
 * Transcript inputs: from a string already in memory, or from a file that is
 * streamed line by line (a 100 MB request log is never read into one string
 * unless an adapter asks for the whole text).
 */
import * as fs from 'node:fs';
import type { TranscriptInput } from './transcript';
import { splitLines, type SourceLine } from './text';

/** A transcript input that can also hand out its first characters for format sniffing. */
export interface SniffableInput extends TranscriptInput {
  /** Up to `maxChars` characters from the start of the file (default 64 KiB). */
  head(maxChars?: number): string;
}

const HEAD_CHARS = 64 * 1024;
const CHUNK_BYTES = 1 << 20;

/**
 * An input from text in memory. A leading byte order mark is dropped, as when
 * a file is read (`inputFromFile`, the CLI, an editor): ranges are offsets
 * into the text after it.
 */
export function inputFromText(file: string, withBom: string): SniffableInput {
  const text = withBom.charCodeAt(0) === 0xfeff ? withBom.slice(1) : withBom;
  return {
    file,
    lines: () => splitLines(text),
    text: () => text,
    bytes: () => new TextEncoder().encode(text),
    head: (maxChars = HEAD_CHARS) => text.slice(0, maxChars),
  };
}

/** Reads a file lazily; `lines()` streams it in chunks with exact UTF-16 offsets. */
export function inputFromFile(path: string): SniffableInput {
  return {
    file: path,
    lines: () => streamLines(path),
    text: () => new TextDecoder().decode(fs.readFileSync(path)),
    bytes: () => fs.readFileSync(path),
    head: (maxChars = HEAD_CHARS) => readHead(path, maxChars),
  };
}

/** The first characters of any input: `head()` when it has one, else its first lines. */
export function headOf(input: TranscriptInput, maxChars = HEAD_CHARS): string {
  const sniffable = input as Partial<SniffableInput>;
  if (typeof sniffable.head === 'function') return sniffable.head(maxChars);
  let head = '';
  for (const line of input.lines()) {
    head += (line.index ? '\n' : '') + line.text;
    if (head.length >= maxChars) break;
  }
  return head.slice(0, maxChars);
}

function readHead(path: string, maxChars: number): string {
  const fd = fs.openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(Math.min(maxChars * 3, 4 * HEAD_CHARS));
    const read = fs.readSync(fd, buffer, 0, buffer.length, 0);
    return new TextDecoder().decode(buffer.subarray(0, read), { stream: true }).slice(0, maxChars);
  } finally {
    fs.closeSync(fd);
  }
}

function* streamLines(path: string): Generator<SourceLine> {
  const fd = fs.openSync(path, 'r');
  try {
    yield* linesFromChunks(readChunks(fd));
  } finally {
    fs.closeSync(fd);
  }
}

function* readChunks(fd: number): Generator<string> {
  const decoder = new TextDecoder();
  const buffer = Buffer.alloc(CHUNK_BYTES);
  for (;;) {
    const read = fs.readSync(fd, buffer, 0, buffer.length, null);
    if (read === 0) break;
    yield decoder.decode(buffer.subarray(0, read), { stream: true });
  }
  const rest = decoder.decode();
  if (rest) yield rest;
}

/** Splits decoded chunks into lines; a line spanning chunks is joined once. */
export function* linesFromChunks(chunks: Iterable<string>): Generator<SourceLine> {
  let pieces: string[] = [];
  let lineOffset = 0;
  let chunkOffset = 0;
  let index = 0;
  for (const chunk of chunks) {
    let from = 0;
    for (let nl = chunk.indexOf('\n'); nl !== -1; nl = chunk.indexOf('\n', from)) {
      pieces.push(chunk.slice(from, nl));
      yield makeLine(pieces, lineOffset, index++);
      pieces = [];
      from = nl + 1;
      lineOffset = chunkOffset + from;
    }
    if (from < chunk.length) pieces.push(chunk.slice(from));
    chunkOffset += chunk.length;
  }
  if (pieces.length) yield { ...makeLine(pieces, lineOffset, index), unterminated: true };
}

function makeLine(pieces: string[], offset: number, index: number): SourceLine {
  let text = pieces.length === 1 ? (pieces[0] ?? '') : pieces.join('');
  if (text.charCodeAt(text.length - 1) === 13) text = text.slice(0, -1);
  return { text, offset, index };
}
