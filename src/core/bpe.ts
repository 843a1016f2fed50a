/**
 * Counting tokens with a byte-pair-encoding rank table (js-tiktoken's data),
 * without encoding: `count(text)` equals js-tiktoken's
 * `new Tiktoken(ranks).encode(text, [], []).length` (test/unit/bpe-count.test.ts).
 *
 * js-tiktoken's constructor turns the table into two maps of 200,000 entries
 * (a `"12,34"` string key and a byte array per token): ~0.4 s of CPU and
 * ~100 MB, more than checking a 100 MB request log costs otherwise. Counting
 * needs only "is this byte sequence a token, and of which rank": here the
 * tokens' bytes sit in one array, found through an open-addressing hash
 * table of indexes, built in one pass over the table's text.
 *
 * The split into pieces is the table's own regex (`pat_str`), and the merge
 * is js-tiktoken's: repeatedly join the adjacent pair of lowest rank (the
 * first one on a tie) until no pair is a token. Special tokens are ordinary
 * text (`encode(text, [], [])` allows none and forbids none).
 */

/** A rank table as js-tiktoken ships it: `pat_str`, and `bpe_ranks` lines of `! offset token64 token64 …`. */
export interface RankData {
  readonly pat_str: string;
  readonly bpe_ranks: string;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Base64 digit values by character code (-1: not a digit, `=` or a separator). */
const DIGITS = (() => {
  const digits = new Int8Array(128).fill(-1);
  for (let i = 0; i < BASE64.length; i++) digits[BASE64.charCodeAt(i)] = i;
  return digits;
})();

/** FNV-1a over bytes[from, to). */
function hash(bytes: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ (bytes[i] as number), 0x01000193);
  return h >>> 0;
}

/** The tokens of a rank table: their bytes end to end, and a hash table from bytes to rank. */
class RankTable {
  private readonly bytes: Uint8Array;
  /** Token k's bytes are bytes[starts[k], starts[k + 1]). */
  private readonly starts: Int32Array;
  private readonly ranks: Int32Array;
  /** Open addressing: token index + 1, 0 for an empty slot. */
  private readonly slots: Int32Array;
  private readonly mask: number;

  constructor(table: string) {
    // Every 4 base64 digits are at most 3 bytes; there are fewer tokens than spaces.
    const bytes = new Uint8Array(Math.ceil((table.length * 3) / 4));
    let spaces = 0;
    for (let i = table.indexOf(' '); i >= 0; i = table.indexOf(' ', i + 1)) spaces++;
    const starts = new Int32Array(spaces + 1);
    const ranks = new Int32Array(spaces);
    let count = 0;
    let size = 0;
    let pos = 0;
    while (pos < table.length) {
      let end = table.indexOf('\n', pos);
      if (end < 0) end = table.length;
      // `! offset t0 t1 …`: token i has rank offset + i.
      const first = table.indexOf(' ', pos);
      const second = first < 0 || first > end ? -1 : table.indexOf(' ', first + 1);
      if (second >= 0 && second < end) {
        let rank = Number.parseInt(table.slice(first + 1, second), 10);
        let at = second + 1;
        while (at < end) {
          let stop = table.indexOf(' ', at);
          if (stop < 0 || stop > end) stop = end;
          starts[count] = size;
          size = decodeBase64(table, at, stop, bytes, size);
          ranks[count++] = rank++;
          at = stop + 1;
        }
      }
      pos = end + 1;
    }
    starts[count] = size;
    this.bytes = bytes;
    this.starts = starts;
    this.ranks = ranks;
    let capacity = 1;
    while (capacity < count * 2) capacity <<= 1;
    this.slots = new Int32Array(capacity);
    this.mask = capacity - 1;
    for (let k = 0; k < count; k++) this.insert(k);
  }

  private insert(k: number): void {
    const start = this.starts[k] as number;
    const end = this.starts[k + 1] as number;
    let slot = hash(this.bytes, start, end) & this.mask;
    // A later duplicate of the same bytes replaces the earlier one (as a Map set would).
    while (this.slots[slot] !== 0) {
      if (this.equals(((this.slots[slot] as number) - 1), this.bytes, start, end)) break;
      slot = (slot + 1) & this.mask;
    }
    this.slots[slot] = k + 1;
  }

  private equals(k: number, bytes: Uint8Array, from: number, to: number): boolean {
    const start = this.starts[k] as number;
    if ((this.starts[k + 1] as number) - start !== to - from) return false;
    for (let i = 0; i < to - from; i++) if (this.bytes[start + i] !== bytes[from + i]) return false;
    return true;
  }

  /** The rank of the token made of bytes[from, to), or -1 when it is none. */
  rank(bytes: Uint8Array, from: number, to: number): number {
    let slot = hash(bytes, from, to) & this.mask;
    for (;;) {
      const entry = this.slots[slot] as number;
      if (entry === 0) return -1;
      if (this.equals(entry - 1, bytes, from, to)) return this.ranks[entry - 1] as number;
      slot = (slot + 1) & this.mask;
    }
  }
}

/** Decodes the base64 text[from, to) into out from `at`; returns the end. */
function decodeBase64(text: string, from: number, to: number, out: Uint8Array, at: number): number {
  let acc = 0;
  let bits = 0;
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    const digit = code < 128 ? (DIGITS[code] as number) : -1;
    if (digit < 0) break;
    acc = ((acc << 6) | digit) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[at++] = (acc >> bits) & 0xff;
    }
  }
  return at;
}

/** Counts the tokens of texts with one rank table. */
export class BpeCounter {
  private readonly table: RankTable;
  private readonly pattern: RegExp;
  private readonly encoder = new TextEncoder();
  private scratch = new Uint8Array(1024);
  /** Part boundaries of the piece being merged. */
  private bounds = new Int32Array(1024);

  constructor(data: RankData) {
    this.table = new RankTable(data.bpe_ranks);
    this.pattern = new RegExp(data.pat_str, 'gu');
  }

  /** Tokens in `text`: the sum over the pattern's pieces. */
  count(text: string): number {
    let n = 0;
    for (const match of text.matchAll(this.pattern)) n += this.piece(match[0]);
    return n;
  }

  /** Tokens in one piece: 1 when its bytes are a token, else what the merge leaves. */
  private piece(piece: string): number {
    if (this.scratch.length < piece.length * 3) this.scratch = new Uint8Array(piece.length * 3);
    const length = this.encoder.encodeInto(piece, this.scratch).written;
    if (length <= 1) return length;
    if (this.table.rank(this.scratch, 0, length) >= 0) return 1;
    return this.merge(length);
  }

  /** js-tiktoken's `bytePairMerge` on scratch[0, length): the number of parts that are tokens at the end. */
  private merge(length: number): number {
    if (this.bounds.length < length + 1) this.bounds = new Int32Array(length + 1);
    const bounds = this.bounds;
    for (let i = 0; i <= length; i++) bounds[i] = i;
    let parts = length;
    while (parts > 1) {
      let best = -1;
      let bestRank = 0;
      for (let i = 0; i < parts - 1; i++) {
        const rank = this.table.rank(this.scratch, bounds[i] as number, bounds[i + 2] as number);
        if (rank >= 0 && (best < 0 || rank < bestRank)) {
          best = i;
          bestRank = rank;
        }
      }
      if (best < 0) break;
      bounds.copyWithin(best + 1, best + 2, parts + 1);
      parts--;
    }
    let tokens = 0;
    for (let i = 0; i < parts; i++) if (this.table.rank(this.scratch, bounds[i] as number, bounds[i + 1] as number) >= 0) tokens++;
    return tokens;
  }
}
