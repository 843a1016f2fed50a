/**
 * Transcript inputs: from a string already in memory, or from a file that is
 * streamed line by line (a 100 MB request log is never read into one string
 * unless an adapter asks for the whole text).
 */
import * as fs from 'node:fs';
import { fileTooLarge, formatBytes, LimitError, resolveLimits, type Limits } from './limits';
import type { TranscriptInput } from './transcript';
import { splitLines, type SourceLine } from './text';
import { linesFromBytes } from './byte-lines';
import { observedLines } from './observed-lines';

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

/**
 * Reads a file lazily; `lines()` streams it in chunks with exact UTF-16
 * offsets. Only regular files are read (a FIFO, device or socket is refused
 * before any read: it could block or never end), and every read is bounded by
 * `limits` (file size, line length). A name that is not valid UTF-8 can be
 * given as a Buffer; the input's `file` is then its escaped form.
 */
export function inputFromFile(path: string | Buffer, overrides?: Partial<Limits>): SniffableInput {
  const limits = resolveLimits(overrides);
  return {
    file: typeof path === 'string' ? path : displayName(path),
    limits,
    lines: () => streamLines(path, limits),
    text: () => decodeWhole(readWhole(path, limits)),
    bytes: () => readWhole(path, limits),
    head: (maxChars = HEAD_CHARS) => readHead(path, maxChars),
  };
}

/** A file name's bytes as text: valid UTF-8 decoded, any other byte shown as `\\xNN`. */
export function displayName(bytes: Uint8Array): string {
  const strict = new TextDecoder('utf-8', { fatal: true });
  let out = '';
  for (let i = 0; i < bytes.length; ) {
    const lead = bytes[i] ?? 0;
    const length = lead < 0x80 ? 1 : lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
    const char = length > 0 && i + length <= bytes.length ? decodeOrUndefined(strict, bytes.subarray(i, i + length)) : undefined;
    out += char ?? `\\x${lead.toString(16).padStart(2, '0')}`;
    i += char === undefined ? 1 : length;
  }
  return out;
}

function decodeOrUndefined(decoder: TextDecoder, bytes: Uint8Array): string | undefined {
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Opens a regular file without blocking (a FIFO without a writer would block `open`), refusing anything else. */
function openRegular(path: string | Buffer): { fd: number; size: number } {
  const fd = fs.openSync(path, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  const stat = fs.fstatSync(fd);
  if (stat.isFile()) return { fd, size: stat.size };
  fs.closeSync(fd);
  throw new LimitError(`not a regular file (${kindOf(stat)}): refused, it could block or never end`);
}

function kindOf(stat: fs.Stats): string {
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isSocket()) return 'a socket';
  if (stat.isDirectory()) return 'a directory';
  return 'a special file';
}

/** The whole file, at most `maxFileBytes`. */
function readWhole(path: string | Buffer, limits: Limits): Uint8Array {
  const { fd, size } = openRegular(path);
  try {
    if (size > limits.maxFileBytes) throw fileTooLarge(limits.maxFileBytes);
    const buffer = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const n = fs.readSync(fd, buffer, read, size - read, null);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read);
  } finally {
    fs.closeSync(fd);
  }
}

function decodeWhole(bytes: Uint8Array): string {
  try {
    return new TextDecoder().decode(bytes);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new LimitError(`the file's text (${formatBytes(bytes.length)}) is too long for one string; only JSONL files can be this large`);
  }
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

function readHead(path: string | Buffer, maxChars: number): string {
  const { fd } = openRegular(path);
  try {
    const buffer = Buffer.alloc(Math.min(maxChars * 3, 4 * HEAD_CHARS));
    const read = fs.readSync(fd, buffer, 0, buffer.length, 0);
    return new TextDecoder().decode(buffer.subarray(0, read), { stream: true }).slice(0, maxChars);
  } finally {
    fs.closeSync(fd);
  }
}

function* streamLines(path: string | Buffer, limits: Limits): Generator<SourceLine> {
  const { fd } = openRegular(path);
  try {
    yield* linesFromBytes(readChunks(fd, limits), limits.maxLineChars);
  } finally {
    fs.closeSync(fd);
  }
}

/** The file's bytes in chunks, read into one buffer (each chunk is gone when the next is read). */
function* readChunks(fd: number, limits: Limits): Generator<Buffer> {
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let total = 0;
  for (;;) {
    const read = fs.readSync(fd, buffer, 0, buffer.length, null);
    if (read === 0) break;
    total += read;
    if (total > limits.maxFileBytes) throw fileTooLarge(limits.maxFileBytes);
    yield buffer.subarray(0, read);
  }
}

/**
 * A document's text as an input that stops reading, as a file on disk would,
 * at the line that takes it past `maxFileBytes` (UTF-8): the report then says
 * where reading stopped and the document has not passed.
 */
export function boundedTextInput(document: { readonly file: string; readonly text: string }, maxFileBytes: number): TranscriptInput {
  const input = inputFromText(document.file, document.text);
  if (Buffer.byteLength(document.text, 'utf8') <= maxFileBytes) return input;
  const tooLarge = () => fileTooLarge(maxFileBytes);
  return {
    ...input,
    *lines() {
      let bytes = 0;
      for (const line of input.lines()) {
        bytes += Buffer.byteLength(line.text, 'utf8') + 1;
        if (bytes > maxFileBytes) throw tooLarge();
        yield line;
      }
    },
    text: () => {
      throw tooLarge();
    },
    bytes: () => {
      throw tooLarge();
    },
  };
}

/**
 * A file's input (`inputFromFile`) refused when it is not UTF-8, as an editor
 * would show it otherwise than as read: its read stops at a U+FFFD (what a
 * byte that is not UTF-8 decodes to), and `refused` says so. Each character is
 * looked at once: in the part of its line that is not the line before's
 * (`rest`), or in its whole line when nothing is shared (a line that shares is
 * valid UTF-8).
 */
export function utf8OnlyInput(input: SniffableInput): { readonly input: TranscriptInput; readonly refused: () => boolean } {
  let refused = false;
  const refuse = (text: string): void => {
    if (!text.includes('\uFFFD')) return;
    refused = true;
    throw new Error(`${input.file} is not UTF-8`);
  };
  const lines = () => observedLines(() => input.lines(), (line) => refuse(line.rest?.text ?? line.text));
  const text = () => {
    const whole = input.text();
    refuse(whole);
    return whole;
  };
  return { input: { ...input, lines, text }, refused: () => refused };
}
