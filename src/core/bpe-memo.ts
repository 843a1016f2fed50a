/**
 * The token counts of the pieces a counter saw last (`BpeCounter.piece`):
 * text repeats its words and a log's JSON its keys and punctuation, so most
 * pieces were counted a little before. A piece found here costs its hash
 * and a compare in a 48 KB table that stays in the CPU's cache, instead of
 * a look-up in the rank table's 5 MB (three reads far apart in memory: its
 * slot, its token's start, its bytes) and, for a piece of several tokens,
 * the merge. Direct-mapped: a piece takes its hash's slot, replacing what
 * was there, so the table never grows; a piece is matched by its bytes, not
 * its hash alone, so a count is never another piece's.
 */

/** Slots (a power of two). */
const SLOTS = 1024;
/** A piece of more bytes is not kept (rare in text: the pattern's pieces are words, numbers, punctuation runs). */
export const MEMO_WIDTH = 32;

export class PieceMemo {
  private readonly hashes = new Int32Array(SLOTS);
  /** The piece's length in bytes; 0 for an empty slot. */
  private readonly lengths = new Uint8Array(SLOTS);
  private readonly counts = new Int32Array(SLOTS);
  /** Slot s's piece is bytes[s * MEMO_WIDTH, s * MEMO_WIDTH + lengths[s]). */
  private readonly bytes = new Uint8Array(SLOTS * MEMO_WIDTH);

  /** The count of the piece source[from, to) whose FNV-1a hash is `hash`, or -1 when it is not here. */
  get(source: Uint8Array, from: number, to: number, hash: number): number {
    const slot = hash & (SLOTS - 1);
    const length = to - from;
    if (this.lengths[slot] !== length || this.hashes[slot] !== hash) return -1;
    const at = slot * MEMO_WIDTH;
    for (let i = 0; i < length; i++) if (this.bytes[at + i] !== source[from + i]) return -1;
    return this.counts[slot] as number;
  }

  /** Keeps the count of source[from, to) (at most MEMO_WIDTH bytes), hash `hash`, in its slot. */
  set(source: Uint8Array, from: number, to: number, hash: number, count: number): void {
    const slot = hash & (SLOTS - 1);
    this.bytes.set(source.subarray(from, to), slot * MEMO_WIDTH);
    this.hashes[slot] = hash;
    this.lengths[slot] = to - from;
    this.counts[slot] = count;
  }
}
