/**
 * A file's lines read from its bytes. Each line is compared with the line
 * before it as bytes (native `Buffer.compare`, memcmp speed), and only the
 * bytes after the prefix they share are decoded: the text of that prefix is
 * the previous line's. A request log repeats the previous request in every
 * line, so most of its bytes are compared, never decoded. Each line says how
 * many leading characters it shares with the one before it (`SourceLine.same`),
 * so a reader can carry what it read there without comparing again.
 *
 * The texts and offsets are those of decoding the whole file at once
 * (`TextDecoder`, a leading byte order mark dropped): a line that is not valid
 * UTF-8 is decoded on its own, in full, as the decoder would (a line end ends
 * any broken sequence), and shares nothing.
 */
import { isAscii, isUtf8 } from 'node:buffer';
import type { SourceLine } from './text';
import { lineTooLong } from './limits';

/** Bytes per mark of a line's character counts. */
const BLOCK = 4096;
/** A shared prefix shorter than this is decoded again (not worth the bookkeeping). */
const MIN_SHARED = 1024;

/** The previous line, as the next one is compared with it. */
interface Previous {
  readonly bytes: Buffer;
  /** The decoded text, a trailing CR included. */
  readonly raw: string;
  readonly text: string;
  /** Characters before each BLOCK of bytes (undefined: all ASCII, characters = bytes; 'invalid': not valid UTF-8). */
  readonly marks: Int32Array | undefined | 'invalid';
}

/** Splits chunks of bytes into lines (LF or CRLF) with the UTF-16 offsets of the decoded file; no line longer than `maxLineChars`. */
export function* linesFromBytes(chunks: Iterable<Buffer>, maxLineChars = Infinity): Generator<SourceLine> {
  let pieces: Buffer[] = [];
  let pending = 0;
  let offset = 0;
  let index = 0;
  let previous: Previous | undefined;
  const take = (bytes: Buffer, unterminated: boolean): SourceLine => {
    const line = readLine(bytes, previous, index, offset, maxLineChars);
    previous = line.previous;
    offset += line.previous.raw.length + 1;
    index++;
    return unterminated ? { ...line.line, unterminated: true } : line.line;
  };
  for (const chunk of withoutBom(chunks)) {
    let from = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, from)) {
      pieces.push(chunk.subarray(from, nl));
      yield take(joined(pieces, pending + nl - from), false);
      pieces = [];
      pending = 0;
      from = nl + 1;
    }
    if (from < chunk.length) {
      pieces.push(chunk.subarray(from));
      pending += chunk.length - from;
      // A UTF-16 character takes at most three bytes: a line of more bytes than three per allowed character is too long.
      if (pending > 3 * maxLineChars) throw lineTooLong(index, maxLineChars);
    }
  }
  if (pieces.length) yield take(joined(pieces, pending), true);
}

/** The chunks without a leading byte order mark (the decoder of the whole file drops it). */
function* withoutBom(chunks: Iterable<Buffer>): Generator<Buffer> {
  let head = Buffer.alloc(0);
  let started = false;
  for (const chunk of chunks) {
    if (started) {
      yield chunk;
      continue;
    }
    head = Buffer.concat([head, chunk]);
    if (head.length < 3) continue;
    started = true;
    yield head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? head.subarray(3) : head;
  }
  if (!started && head.length > 0) yield head;
}

function joined(pieces: Buffer[], length: number): Buffer {
  return pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces, length);
}

const FULL = new TextDecoder('utf-8', { ignoreBOM: true });

function readLine(bytes: Buffer, previous: Previous | undefined, index: number, offset: number, maxLineChars: number): { line: SourceLine; previous: Previous } {
  if (bytes.length > 3 * maxLineChars) throw lineTooLong(index, maxLineChars);
  const valid = isAscii(bytes) ? 'ascii' : isUtf8(bytes);
  const shared = previous && valid ? sharedPrefix(previous, bytes) : 0;
  const marks = valid === 'ascii' ? undefined : valid ? marksOf(bytes, previous, shared) : 'invalid';
  const chars = shared === 0 ? 0 : charsAt(previous as Previous, shared);
  const decoded = marks === 'invalid' ? FULL.decode(bytes) : bytes.toString('utf8', shared);
  const raw = shared === 0 ? decoded : (previous as Previous).raw.slice(0, chars) + decoded;
  if (raw.length > maxLineChars) throw lineTooLong(index, maxLineChars);
  const text = raw.charCodeAt(raw.length - 1) === 13 ? raw.slice(0, -1) : raw;
  const same = Math.min(chars, text.length, previous?.text.length ?? 0);
  return { line: { text, offset, index, ...(same > 0 && { same }) }, previous: { bytes, raw, text, marks } };
}

/**
 * How many leading bytes the line shares with the previous one, ending at a
 * character boundary in both (0 when fewer than MIN_SHARED, or when either is
 * not valid UTF-8: its characters are not counted from its bytes).
 */
function sharedPrefix(previous: Previous, bytes: Buffer): number {
  if (previous.marks === 'invalid') return 0;
  const a = previous.bytes;
  const n = Math.min(a.length, bytes.length);
  let k = 0;
  for (let step = 16 * BLOCK; step >= 1; step >>= 4) {
    while (k + step <= n && bytes.compare(a, k, k + step, k, k + step) === 0) k += step;
  }
  while (k > 0 && (continuation(a[k]) || continuation(bytes[k]))) k--;
  return k < MIN_SHARED ? 0 : k;
}

function continuation(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

/**
 * The character marks of a valid, not all ASCII line whose first `shared`
 * bytes are the previous line's: those of the shared blocks are the previous
 * line's, the rest are counted.
 */
function marksOf(bytes: Buffer, previous: Previous | undefined, shared: number): Int32Array {
  const marks = new Int32Array(Math.floor(bytes.length / BLOCK) + 1);
  const kept = shared > 0 && previous ? Math.floor(shared / BLOCK) + 1 : 1;
  for (let j = 1; j < kept; j++) marks[j] = previous?.marks instanceof Int32Array ? (previous.marks[j] ?? 0) : j * BLOCK;
  let chars = marks[kept - 1] ?? 0;
  for (let j = kept - 1; j < marks.length - 1; j++) {
    chars += countChars(bytes, j * BLOCK, (j + 1) * BLOCK);
    marks[j + 1] = chars;
  }
  return marks;
}

/** UTF-16 characters of valid UTF-8 bytes [from, to): every byte that starts a character, twice for one outside the BMP. */
function countChars(bytes: Buffer, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const byte = bytes[i] as number;
    if ((byte & 0xc0) !== 0x80) n++;
    if (byte >= 0xf0) n++;
  }
  return n;
}

/** The characters of the previous line's first `k` bytes (a character boundary). */
function charsAt(previous: Previous, k: number): number {
  const marks = previous.marks;
  if (!(marks instanceof Int32Array)) return k;
  const block = Math.floor(k / BLOCK);
  return (marks[block] ?? 0) + countChars(previous.bytes, block * BLOCK, k);
}
