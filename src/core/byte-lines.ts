/**
 * A file's lines read from its bytes. Each line is compared with the line
 * before it as bytes (native `Buffer.compare`, memcmp speed), and only the
 * bytes after the prefix they share are decoded (`SourceLine.rest`); its
 * whole text is made only when read, from the previous line's (`Origin`). A
 * request log repeats the previous request in every line, so most of its
 * bytes are compared, never decoded. Each line says how many leading
 * characters it shares with the one before it (`SourceLine.same`), so a
 * reader can carry what it read there without comparing again.
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
  /** Its bytes where they were read (the chunk, or the slot of a line cut between chunks), copied to a reused buffer (`Slot`) before they are read over. */
  readonly bytes: Buffer;
  /** Characters before each BLOCK of bytes (undefined: all ASCII, characters = bytes; 'invalid': not valid UTF-8). */
  readonly marks: Int32Array | undefined | 'invalid';
  readonly origin: Origin;
}

/**
 * How a line's whole text is made without its bytes (the buffer they were
 * read into is reused): its text, or the first `from` characters of an
 * earlier line's text followed by `rest`. A chain holding more characters
 * than its line and MAX_CHAIN_EXTRA is cut (`laterOrigin`), so no line keeps
 * more than that alive past the line before's text: a request log's lines
 * repeat a little of the line before past what they share (the request's end,
 * its response), so that is one text made every dozen lines or so. A text
 * made is one string of its own (`assemble`), not a rope of slices of the
 * texts and rests before it, which would keep all of them alive behind it,
 * and its line's rest is read from it (not kept twice).
 */
interface Origin {
  text: string | undefined;
  before: Origin | undefined;
  readonly from: number;
  /** Its characters after `from` (dropped once `text` is made: the text's slice is the same characters). */
  rest: string | undefined;
  readonly length: number;
  /** Characters held down the chain to a whole text. */
  readonly weight: number;
}

/** Characters a chain may hold past its line's before it is cut (a copy of the line before is made). */
const MAX_CHAIN_EXTRA = 16 * 1024;

function wholeOrigin(text: string): Origin {
  return { text, before: undefined, from: 0, rest: '', length: text.length, weight: text.length };
}

/**
 * The origin of a line that shares `from` characters with the line of
 * `before`. A chain too heavy is cut at the line before: its text is made.
 * That line is still held by whoever reads it, so a text made of this line
 * would be a second copy beside its chain; this line's own text, when its
 * chain is its rest after the line before's text (more than MAX_CHAIN_EXTRA
 * past its length only when it re-writes much of that line's end), is made
 * by the next line, once the line before is let go.
 */
function laterOrigin(before: Origin, from: number, rest: string): Origin {
  const length = from + rest.length;
  if (before.text === undefined && before.weight + rest.length > length + MAX_CHAIN_EXTRA) textOf(before);
  const weight = (before.text === undefined ? before.weight : before.length) + rest.length;
  return { text: undefined, before, from, rest, length, weight };
}

function textOf(origin: Origin): string {
  if (origin.text === undefined) {
    origin.text = assemble(origin);
    origin.before = undefined;
    // Its line's rest is read from the text from now on: kept as well, it would be the same characters twice.
    origin.rest = undefined;
  }
  return origin.text;
}

/**
 * The text down the chain: each line's rest past what the line after it keeps
 * of it, joined into one flat string (`join` copies; `+` would make a rope
 * whose first part, a slice, keeps the older text whole, and V8 flattens a
 * rope only when it is read into).
 */
function assemble(origin: Origin): string {
  const tails: string[] = [];
  let need = origin.length;
  let at = origin;
  while (at.text === undefined) {
    if (need > at.from) tails.push((at.rest as string).slice(0, need - at.from));
    need = Math.min(need, at.from);
    // A chain ends in a whole text.
    at = at.before as Origin;
  }
  const head = at.text.slice(0, need);
  if (tails.length === 0) return head;
  tails.push(head);
  return tails.reverse().join('');
}

/** What a slot grows by, at least (a quarter: a log's lines grow a little at a time), rounded up to SLOT_STEP. */
const SLOT_STEP = 64 * 1024;

/**
 * A buffer reused from line to line, grown as needed: the previous line's
 * bytes (`keep`), a line's bytes read so far (`add`). It grows by a quarter,
 * not twice over: a reader holds two (the line before and a line cut between
 * chunks), each as long as the longest line once it is read, and doubling made
 * each of a 262 KB line 512 KB (1 MB of the bench's Anthropic log's
 * `peak-external`, 3.9x its largest line).
 */
class Slot {
  private buffer = Buffer.allocUnsafeSlow(SLOT_STEP);
  private length = 0;

  /** `bytes` alone in the buffer. */
  keep(bytes: Buffer): Buffer {
    this.length = 0;
    return this.add(bytes);
  }

  /** `bytes` after those added since the last `keep` or `clear`. */
  add(bytes: Buffer): Buffer {
    const length = this.length + bytes.length;
    if (this.buffer.length < length) {
      const grown = Buffer.allocUnsafeSlow(Math.ceil(Math.max(length, this.buffer.length * 1.25) / SLOT_STEP) * SLOT_STEP);
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    bytes.copy(this.buffer, this.length);
    this.length = length;
    return this.buffer.subarray(0, length);
  }

  /** The bytes added since the last `keep` or `clear`. */
  held(): Buffer {
    return this.buffer.subarray(0, this.length);
  }

  clear(): void {
    this.length = 0;
  }
}

/**
 * Splits chunks of bytes into lines (LF or CRLF) with the UTF-16 offsets of
 * the decoded file; no line longer than `maxLineChars`. A chunk may be reused
 * for the next once its lines are taken: no line keeps its bytes. A line is
 * compared with the one before it where it was read (the chunk, or the slot
 * of a line cut between chunks); the last line of a chunk is copied before
 * the next chunk is asked for (one copy per chunk, not per line).
 */
export function* linesFromBytes(chunks: Iterable<Buffer>, maxLineChars = Infinity): Generator<SourceLine> {
  let pending = 0;
  let offset = 0;
  let index = 0;
  let previous: Previous | undefined;
  const kept = new Slot();
  const cut = new Slot();
  const take = (bytes: Buffer, unterminated: boolean): SourceLine => {
    const read = readLine(bytes, previous, { index: index++, offset, unterminated }, maxLineChars);
    previous = { ...read.previous, bytes };
    offset += read.chars + 1;
    return read.line;
  };
  for (const chunk of withoutBom(chunks)) {
    let from = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, from)) {
      const line = chunk.subarray(from, nl);
      yield take(pending > 0 ? cut.add(line) : line, false);
      pending = 0;
      from = nl + 1;
    }
    // Copied: the chunk may be read into again, and the cut line's slot written (its bytes may be the last line's).
    if (previous) previous = { ...previous, bytes: kept.keep(previous.bytes) };
    if (from < chunk.length) {
      if (pending === 0) cut.clear();
      cut.add(chunk.subarray(from));
      pending += chunk.length - from;
      // A UTF-16 character takes at most three bytes: a line of more bytes than three per allowed character is too long.
      if (pending > 3 * maxLineChars) throw lineTooLong(index, maxLineChars);
    }
  }
  if (pending > 0) yield take(cut.held(), true);
}

/** The chunks without a leading byte order mark (the decoder of the whole file drops it). */
function* withoutBom(chunks: Iterable<Buffer>): Generator<Buffer> {
  let head: Buffer = Buffer.alloc(0);
  let started = false;
  for (const chunk of chunks) {
    if (started) {
      yield chunk;
      continue;
    }
    // The first chunk itself when it is handed on at once, not a copy: a copy would be held for the whole read (this
    // frame keeps `head`). A piece of fewer than 3 bytes is copied: the buffer it is in may be read into again.
    head = head.length === 0 && chunk.length >= 3 ? chunk : Buffer.concat([head, chunk]);
    if (head.length < 3) continue;
    started = true;
    yield head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? head.subarray(3) : head;
  }
  if (!started && head.length > 0) yield head;
}

const FULL = new TextDecoder('utf-8', { ignoreBOM: true });
/** Bytes before the shared part that `rest` holds too (a search for a short word across its start needs no whole text). */
const OVERLAP = 64;

interface Place {
  readonly index: number;
  readonly offset: number;
  readonly unterminated: boolean;
}

/** A line and what the next one is compared with (its bytes aside); `chars`: its characters, a trailing CR included (where the next line starts). */
function readLine(bytes: Buffer, previous: Previous | undefined, at: Place, maxLineChars: number): { line: SourceLine; previous: Omit<Previous, 'bytes'>; chars: number } {
  if (bytes.length > 3 * maxLineChars) throw lineTooLong(at.index, maxLineChars);
  const valid = isAscii(bytes) ? 'ascii' : isUtf8(bytes);
  // Counted before it is decoded: a line too long may be too long for a string too.
  if (bytes.length > maxLineChars && charsOf(bytes, valid, maxLineChars) > maxLineChars) throw lineTooLong(at.index, maxLineChars);
  const shared = previous && valid ? sharedPrefix(previous, bytes) : 0;
  const marks = valid === 'ascii' ? undefined : valid ? marksOf(bytes, previous, shared) : 'invalid';
  const cr = bytes[bytes.length - 1] === 13 ? 1 : 0;
  if (shared === 0 || !previous) {
    const raw = marks === 'invalid' ? FULL.decode(bytes) : bytes.toString('utf8');
    if (raw.length > maxLineChars) throw lineTooLong(at.index, maxLineChars);
    const text = cr ? raw.slice(0, -1) : raw;
    const line = { text, offset: at.offset, index: at.index, ...(at.unterminated && { unterminated: true as const }) };
    return { line, previous: { marks, origin: wholeOrigin(text) }, chars: raw.length };
  }
  let from = Math.max(0, shared - OVERLAP);
  while (continuation(bytes[from])) from++;
  const origin = laterOrigin(previous.origin, charsAt(previous, from), bytes.toString('utf8', from, bytes.length - cr));
  if (origin.length + cr > maxLineChars) throw lineTooLong(at.index, maxLineChars);
  const same = Math.min(charsAt(previous, shared), origin.length, previous.origin.length);
  return { line: restLine(origin, at, same), previous: { marks, origin }, chars: origin.length + cr };
}

/** A line whose whole text is made when read (`Origin`). */
function restLine(origin: Origin, at: Place, same: number): SourceLine {
  return {
    get text() {
      return textOf(origin);
    },
    offset: at.offset,
    index: at.index,
    ...(at.unterminated && { unterminated: true as const }),
    same,
    get rest() {
      return { from: origin.from, text: origin.rest ?? (origin.text as string).slice(origin.from) };
    },
  };
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

/**
 * The characters the line decodes to, or some number past `limit` when it
 * decodes to more: a line not valid UTF-8 is decoded piece by piece (its
 * characters are not counted from its bytes) until it is past the limit.
 */
function charsOf(bytes: Buffer, valid: 'ascii' | boolean, limit: number): number {
  if (valid === 'ascii') return bytes.length;
  if (valid) return countChars(bytes, 0, bytes.length);
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  let chars = 0;
  for (let at = 0; at < bytes.length && chars <= limit; at += 16 * BLOCK) chars += decoder.decode(bytes.subarray(at, at + 16 * BLOCK), { stream: true }).length;
  return chars > limit ? chars : chars + decoder.decode().length;
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
