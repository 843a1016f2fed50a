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
 * The split into pieces is the table's own regex (`pat_str`), read by hand
 * on ASCII (`bpe-split.ts`: no regex compiled or run there), and the merge
 * is js-tiktoken's: repeatedly join the adjacent pair of lowest rank (the
 * first one on a tie) until no pair is a token, found through a heap rather
 * than a scan (`PairMerge`). Special tokens are ordinary
 * text (`encode(text, [], [])` allows none and forbids none).
 */

import { MEMO_WIDTH, PieceMemo } from './bpe-memo';
import { isPairAt, pieceEnd, splitVariant, utf8End } from './bpe-split';

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

/** FNV-1a's start and prime (32 bits): `RankTable.rank` hashes a token's bytes, `readTokens` as it reads them. */
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** A rank table's arrays: what `RankTable` looks tokens up in, and what a packed table holds. */
export interface RankArrays {
  readonly bytes: Uint8Array;
  /** Token k's bytes are bytes[starts[k], starts[k + 1]). */
  readonly starts: Int32Array;
  readonly ranks: Int32Array;
  /** Open addressing (a power of two long): token index + 1, 0 for an empty slot. */
  readonly slots: Int32Array;
}

/** A rank table as `bpe-packed.ts` stores it: its pattern and its arrays, built already. */
export interface PackedRanks {
  readonly pat_str: string;
  readonly arrays: RankArrays;
}

/**
 * Whether `samples` tokens, evenly spaced, are found by their bytes in
 * `arrays`' slots: slots placed by another hash or probing (a packed table of
 * another build) find almost none.
 */
export function findsItsTokens(arrays: RankArrays, samples = 64): boolean {
  const table = new RankTable(arrays);
  const n = arrays.ranks.length;
  for (let s = 0; s < Math.min(samples, n); s++) {
    const k = Math.floor((s * n) / Math.min(samples, n));
    const [from, to] = [arrays.starts[k] as number, arrays.starts[k + 1] as number];
    if (!(from >= 0 && from <= to && to <= arrays.bytes.length) || table.rank(arrays.bytes, from, to) < 0) return false;
  }
  return true;
}

/** The arrays of a rank table's text: its tokens read (`readTokens`), then put in their slots. */
export function rankArrays(table: string): RankArrays {
  // Every 4 base64 digits are at most 3 bytes; there are fewer tokens than spaces.
  const bytes = new Uint8Array(Math.ceil((table.length * 3) / 4));
  let spaces = 0;
  for (let i = table.indexOf(' '); i >= 0; i = table.indexOf(' ', i + 1)) spaces++;
  const starts = new Int32Array(spaces + 1);
  const ranks = new Int32Array(spaces);
  const hashes = new Int32Array(spaces);
  const read = readTokens(table, bytes, starts, ranks, hashes);
  let capacity = 1;
  while (capacity < read * 2) capacity <<= 1;
  const arrays = { bytes: bytes.subarray(0, starts[read]), starts: starts.subarray(0, read + 1), ranks: ranks.subarray(0, read), slots: new Int32Array(capacity) };
  const lookup = new RankTable(arrays);
  // One loop over the tokens (see `readTokens`); a later duplicate of the same bytes replaces the earlier one (as a Map set would).
  for (let k = 0; k < read; k++) lookup.place(k, hashes[k] as number);
  return arrays;
}

/** The tokens of a rank table: their bytes end to end, and a hash table from bytes to rank. */
class RankTable {
  private readonly bytes: Uint8Array;
  private readonly starts: Int32Array;
  private readonly ranks: Int32Array;
  private readonly slots: Int32Array;
  private readonly mask: number;

  constructor(arrays: RankArrays) {
    this.bytes = arrays.bytes;
    this.starts = arrays.starts;
    this.ranks = arrays.ranks;
    this.slots = arrays.slots;
    this.mask = arrays.slots.length - 1;
  }

  /** Puts token k, whose bytes hash to `h`, in its slot (building the table). */
  place(k: number, h: number): void {
    const start = this.starts[k] as number;
    const end = this.starts[k + 1] as number;
    let slot = h & this.mask;
    while (this.slots[slot] !== 0 && !this.equals((this.slots[slot] as number) - 1, this.bytes, start, end)) slot = (slot + 1) & this.mask;
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
    let h = FNV_OFFSET;
    for (let i = from; i < to; i++) h = Math.imul(h ^ (bytes[i] as number), FNV_PRIME);
    return this.rankHashed(bytes, from, to, h >>> 0);
  }

  /** `rank` of bytes[from, to), whose FNV-1a hash is `h`; `equals` written out (the CLI's V8 inlines no call, src/cli/jit.ts). */
  rankHashed(bytes: Uint8Array, from: number, to: number, h: number): number {
    let slot = h & this.mask;
    const length = to - from;
    for (;;) {
      const entry = this.slots[slot] as number;
      if (entry === 0) return -1;
      const start = this.starts[entry - 1] as number;
      if ((this.starts[entry] as number) - start === length) {
        let i = 0;
        while (i < length && this.bytes[start + i] === bytes[from + i]) i++;
        if (i === length) return this.ranks[entry - 1] as number;
      }
      slot = (slot + 1) & this.mask;
    }
  }
}

/**
 * Reads the table's lines (`! offset t0 t1 …`: token i has rank offset + i)
 * in one pass: each token's base64 digits decoded into `bytes` (up to its
 * first non-digit, its padding), where it starts, its rank and the FNV-1a
 * hash of its bytes (`hash`'s). Returns how many tokens were read. One loop,
 * not a call per token: it runs once per process, mostly before the JIT has
 * optimised anything.
 */
function readTokens(table: string, bytes: Uint8Array, starts: Int32Array, ranks: Int32Array, hashes: Int32Array): number {
  let count = 0;
  let size = 0;
  let pos = 0;
  while (pos < table.length) {
    let end = table.indexOf('\n', pos);
    if (end < 0) end = table.length;
    const first = table.indexOf(' ', pos);
    const second = first < 0 || first > end ? -1 : table.indexOf(' ', first + 1);
    if (second >= 0 && second < end) {
      let rank = Number.parseInt(table.slice(first + 1, second), 10);
      let at = second + 1;
      while (at < end) {
        starts[count] = size;
        let acc = 0;
        let bits = 0;
        let h = FNV_OFFSET;
        let digits = true;
        for (; at < end; at++) {
          const code = table.charCodeAt(at);
          if (code === 32) break;
          const digit = digits && code < 128 ? (DIGITS[code] as number) : -1;
          if (digit < 0) {
            digits = false;
            continue;
          }
          acc = ((acc << 6) | digit) & 0xffffff;
          bits += 6;
          if (bits >= 8) {
            bits -= 8;
            const byte = (acc >> bits) & 0xff;
            bytes[size++] = byte;
            h = Math.imul(h ^ byte, FNV_PRIME);
          }
        }
        hashes[count] = h >>> 0;
        ranks[count++] = rank++;
        at++;
      }
    }
    pos = end + 1;
  }
  starts[count] = size;
  return count;
}

/** Counts the tokens of texts with one rank table. */
export class BpeCounter {
  private readonly table: RankTable;
  private readonly patternText: string;
  /** Which pattern `pieceEnd` reads by hand on ASCII (`bpe-split.ts`; undefined: another, the regexes read every piece). */
  private readonly split: boolean | undefined;
  /** The pieces as js-tiktoken finds them (`matchAll`), for where no piece starts at the place reached; made on first use. */
  private pattern: RegExp | undefined;
  /** The same pattern, sticky: a piece that starts at the place reached, found without building a match; made on first use. */
  private here: RegExp | undefined;
  private readonly encoder = new TextEncoder();
  private readonly merger: PairMerge;
  private readonly memo = new PieceMemo();
  private scratch = new Uint8Array(1024);

  /** From a rank table's text, or from its arrays as `bpe-packed.ts` reads them from a file. */
  constructor(data: RankData | PackedRanks) {
    this.table = new RankTable('arrays' in data ? data.arrays : rankArrays(data.bpe_ranks));
    this.merger = new PairMerge(this.table);
    this.patternText = data.pat_str;
    this.split = splitVariant(data.pat_str);
  }

  /**
   * Tokens in `text`: the sum over the pattern's pieces (`matchAll`'s). The
   * text is encoded to UTF-8 once and each piece counted on its bytes. A
   * piece of ASCII is found by the splitter; else, where it follows the one
   * before, by the sticky pattern's `test` (no match array, no piece string:
   * ~20% of a count was making them).
   */
  count(text: string): number {
    if (this.scratch.length < text.length * 3) this.scratch = new Uint8Array(text.length * 3);
    this.encoder.encodeInto(text, this.scratch);
    let n = 0;
    let at = 0;
    let byte = 0;
    while (at < text.length) {
      const split = this.split === undefined ? -1 : pieceEnd(this.split, text, at);
      if (split > at) {
        // ASCII throughout: as many bytes as characters.
        const to = byte + split - at;
        n += this.piece(byte, to);
        byte = to;
        at = split;
        continue;
      }
      let start = at;
      let end: number;
      const here = (this.here ??= new RegExp(this.patternText, 'uy'));
      here.lastIndex = at;
      if (here.test(text)) end = here.lastIndex;
      else {
        const pattern = (this.pattern ??= new RegExp(this.patternText, 'gu'));
        pattern.lastIndex = at;
        const match = pattern.exec(text);
        if (!match) break;
        start = match.index;
        end = start + match[0].length;
        byte = utf8End(text, at, start, byte);
      }
      if (end === start) {
        // An empty piece has no tokens; matchAll goes on one code point further.
        const step = isPairAt(text, end) ? 2 : 1;
        byte = utf8End(text, end, end + step, byte);
        at = end + step;
        continue;
      }
      const to = utf8End(text, start, end, byte);
      n += this.piece(byte, to);
      byte = to;
      at = end;
    }
    return n;
  }

  /** Tokens in the piece of bytes scratch[from, to): 1 when they are a token, else what the merge leaves; kept in the memo. */
  private piece(from: number, to: number): number {
    const length = to - from;
    if (length <= 1) return length;
    const bytes = this.scratch;
    let h = FNV_OFFSET;
    for (let i = from; i < to; i++) h = Math.imul(h ^ (bytes[i] as number), FNV_PRIME);
    const kept = length <= MEMO_WIDTH;
    let count = kept ? this.memo.get(bytes, from, to, h) : -1;
    if (count >= 0) return count;
    count = this.table.rankHashed(bytes, from, to, h >>> 0) >= 0 ? 1 : this.merger.merge(bytes.subarray(from, to), length);
    if (kept) this.memo.set(bytes, from, to, h, count);
    return count;
  }
}

const POSITIONS = 2 ** 32;

/**
 * js-tiktoken's `bytePairMerge` in O(n log n): it joins the adjacent pair of
 * parts of lowest rank (the leftmost on a tie) until no pair is a token, and
 * finds that pair by scanning every pair after every join, quadratic in the
 * piece (~0.2 s for a 2,048-character piece of `!、`, whose characters
 * alternate between two classes). Here the parts are a linked list over byte
 * offsets, and every adjacent pair that is a token waits in a binary min-heap
 * keyed `rank * 2^32 + start`, so the heap's top is the pair js-tiktoken joins
 * next. A join changes only the pairs beside it: entries for pairs that no
 * longer exist stay in the heap and are skipped when they come up (the pair
 * starting there must still end where the entry says). Measured no slower
 * than the scan on prose and short words, so every piece merges this way.
 */
class PairMerge {
  /** next[s]: the end of the part that starts at byte s (where the next part starts); -1 once s is joined into the part before it. */
  private next = new Int32Array(0);
  /** prev[s]: the start of the part before the part at s, -1 for the first. */
  private prev = new Int32Array(0);
  private keys = new Float64Array(0);
  /** ends[i]: where the pair of heap entry i ends. */
  private ends = new Int32Array(0);
  private size = 0;

  constructor(private readonly table: RankTable) {}

  /** The number of parts that are tokens once bytes[0, length) is merged. */
  merge(bytes: Uint8Array, length: number): number {
    this.reserve(length);
    const { next, prev } = this;
    for (let i = 0; i < length; i++) {
      next[i] = i + 1;
      prev[i] = i - 1;
    }
    this.size = 0;
    for (let i = 0; i + 1 < length; i++) this.offer(bytes, i, i + 2);
    while (this.size > 0) {
      const key = this.keys[0] as number;
      const end = this.ends[0] as number;
      this.pop();
      const start = key % POSITIONS;
      const middle = next[start] as number;
      if (middle < 0 || middle >= length || next[middle] !== end) continue;
      next[start] = end;
      next[middle] = -1;
      if (end < length) {
        prev[end] = start;
        this.offer(bytes, start, next[end] as number);
      }
      const before = prev[start] as number;
      if (before >= 0) this.offer(bytes, before, end);
    }
    let tokens = 0;
    for (let s = 0; s < length; s = next[s] as number) if (this.table.rank(bytes, s, next[s] as number) >= 0) tokens++;
    return tokens;
  }

  /** Room for a piece of `length` bytes: every pair at the start, and two more per join. */
  private reserve(length: number): void {
    if (this.next.length >= length) return;
    this.next = new Int32Array(length);
    this.prev = new Int32Array(length);
    this.keys = new Float64Array(3 * length);
    this.ends = new Int32Array(3 * length);
  }

  /** Queues the pair bytes[start, end) when it is a token. */
  private offer(bytes: Uint8Array, start: number, end: number): void {
    const rank = this.table.rank(bytes, start, end);
    if (rank < 0) return;
    const key = rank * POSITIONS + start;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((this.keys[parent] as number) <= key) break;
      this.keys[i] = this.keys[parent] as number;
      this.ends[i] = this.ends[parent] as number;
      i = parent;
    }
    this.keys[i] = key;
    this.ends[i] = end;
  }

  /** Removes the top entry. */
  private pop(): void {
    const size = --this.size;
    const key = this.keys[size] as number;
    const end = this.ends[size] as number;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= size) break;
      if (child + 1 < size && (this.keys[child + 1] as number) < (this.keys[child] as number)) child++;
      if ((this.keys[child] as number) >= key) break;
      this.keys[i] = this.keys[child] as number;
      this.ends[i] = this.ends[child] as number;
      i = child;
    }
    this.keys[i] = key;
    this.ends[i] = end;
  }
}
