/**
 * The window tracker's own pair index (window-tracker.ts): a request log's
 * every pair, held for the rest of the log, so held as numbers. A `Map` of
 * ids to one `IndexedPair` each took ~190 bytes a pair (the pair's object,
 * 88 bytes without pointer compression; the map's entry with its table's
 * room; the id string, which no carried message keeps once it lets go of its
 * blocks); here ~70: per pair five small integers (its key's hash, its call's
 * and first result's places), its call and first result as held (the message
 * whose block it is, or the block), and its number in an open-addressing
 * table of small integers, at most three quarters full. The key is not kept: a pair
 * found by its hash is checked against the key read from its member (its id,
 * through the message when it holds the block), so a look-up is exact.
 *
 * It is read only by look-ups (`get`: what `append-step.ts` reads of the
 * window before's pairs), each pair made when read, as `IndexedPair` makes
 * its members.
 */
import type { PairLookup } from './append-step';
import type { PairPlaces } from './session';
import { CarriedMessage } from './formats/carried-message';
import { pairId, pairKey, type Block, type Message, type ToolCall, type ToolPair, type ToolResult } from './model';

type CallMember = NonNullable<ToolPair['call']>;
type ResultMember = ToolPair['results'][number];
/** A pair as it is given to the index: its id, its call, its results in order. */
export type PairEntry = { readonly id: string; readonly call?: CallMember | undefined; readonly results: readonly ResultMember[] };

/** A member's block, or the message whose block it is (the index holds no block a carried message lets go of). */
type Held = Block | Message;

/** Small integers per pair in `ints`: its key's hash, its call's message and block, its first result's (-1: none). */
const INTS = 5;
const NO_RESULTS: readonly ResultMember[] = Object.freeze([]);

/**
 * The message whose block `member` is, or the block. A carried message that
 * let go of its blocks is not read again to compare (a `toolPairs` map turned
 * into an index would read every one): the block is kept, as the map kept it.
 */
function held(member: { readonly message: number; readonly block: number; readonly value: Block }, messages: readonly Message[]): Held {
  const owner = messages[member.message];
  if (!owner || (owner instanceof CarriedMessage && !owner.holdsBlocks())) return member.value;
  return owner.blocks[member.block] === member.value ? owner : member.value;
}

function blockOf<T extends Block>(ref: Held, block: number): T {
  return ('blocks' in ref ? ref.blocks[block] : ref) as T;
}

/** A string's hash, a small integer (FNV-1a, 30 bits). */
function hashOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h & 0x3fffffff;
}

export class PairIndex implements PairLookup, PairPlaces {
  /**
   * Typed arrays (4 bytes an integer, outside the heap's count), not small
   * integers of arrays (8 bytes each in Node, which has no pointer
   * compression): ~30 bytes a pair, ~60 before.
   */
  private ints: Int32Array = new Int32Array(INTS * 16);
  /** Per pair, its call and its first result as held (undefined: none). */
  private members: (Held | undefined)[] = [];
  /** The results after the first, of the few pairs that have any. */
  private later = new Map<number, readonly ResultMember[]>();
  /** Per slot, a pair's number + 1 (0: empty); its length a power of two, at most three quarters full (linear probing: a few probes a look-up). */
  private table: Int32Array = new Int32Array(16);
  private count = 0;

  /** The pairs of a `toolPairs` map of the window of `messages`. */
  static of(pairs: ReadonlyMap<string, ToolPair>, messages: readonly Message[]): PairIndex {
    const index = new PairIndex();
    for (const [key, pair] of pairs) index.set(key, pair, messages);
    return index;
  }

  /** An independent copy. */
  clone(): PairIndex {
    const copy = new PairIndex();
    Object.assign(copy, { ints: this.ints.slice(), members: this.members.slice(), later: new Map(this.later), table: this.table.slice(), count: this.count });
    return copy;
  }

  get(key: string): ToolPair | undefined {
    const n = this.find(key, hashOf(key));
    return n < 0 ? undefined : this.pair(n);
  }

  /** Each pair's call's message and first result's (-1: none), in the order the pairs were added: its state without reading its members. */
  eachPlace(visit: (call: number, result: number) => void): void {
    const ints = this.ints;
    for (let at = 0; at < this.count * INTS; at += INTS) visit(ints[at + 1] as number, ints[at + 3] as number);
  }

  /** Sets the pair of `key` (`messages`: the window's, when its members are its blocks). */
  set(key: string, entry: PairEntry, messages: readonly Message[]): void {
    const hash = hashOf(key);
    let n = this.find(key, hash);
    if (n < 0) n = this.add(hash);
    const { call, results } = entry;
    const first = results[0];
    const at = n * INTS;
    this.ints[at + 1] = call?.message ?? -1;
    this.ints[at + 2] = call?.block ?? -1;
    this.ints[at + 3] = first?.message ?? -1;
    this.ints[at + 4] = first?.block ?? -1;
    this.members[2 * n] = call && held(call, messages);
    this.members[2 * n + 1] = first && held(first, messages);
    if (results.length > 1) this.later.set(n, results.slice(1));
    else this.later.delete(n);
  }

  /** The number of the pair of `key`, or -1. */
  private find(key: string, hash: number): number {
    const mask = this.table.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const n = (this.table[slot] as number) - 1;
      if (n < 0) return -1;
      if (this.ints[n * INTS] === hash && this.keyOf(n) === key) return n;
    }
  }

  /** A new pair's number, its hash in the table (grown to stay at most three quarters full). */
  private add(hash: number): number {
    const n = this.count++;
    if ((n + 1) * INTS > this.ints.length) this.ints = grown(this.ints, n + 1 + (n >> 1));
    const at = n * INTS;
    this.ints[at] = hash;
    this.ints.fill(-1, at + 1, at + INTS);
    this.members.push(undefined, undefined);
    if (4 * this.count > 3 * this.table.length) this.grow();
    else this.place(n, hash);
    return n;
  }

  private grow(): void {
    this.table = new Int32Array(2 * this.table.length);
    for (let n = 0; n < this.count; n++) this.place(n, this.ints[n * INTS] as number);
  }

  private place(n: number, hash: number): void {
    const mask = this.table.length - 1;
    let slot = hash & mask;
    while (this.table[slot] !== 0) slot = (slot + 1) & mask;
    this.table[slot] = n + 1;
  }

  /** The key of pair `n`, read from its call or first result (an entry without an id has one member, whose place is its key). */
  private keyOf(n: number): string {
    const [call, result] = [this.members[2 * n], this.members[2 * n + 1]];
    const at = n * INTS + (call ? 1 : 3);
    const m = this.ints[at] as number;
    const b = this.ints[at + 1] as number;
    return pairKey(pairId(blockOf<ToolCall | ToolResult>((call ?? result) as Held, b)), m, b);
  }

  /** Pair `n` as it is now (a later `set` of its key does not change it), its members made when read. */
  private pair(n: number): ToolPair {
    const at = n * INTS;
    const [call, result, later] = [this.members[2 * n], this.members[2 * n + 1], this.later.get(n)];
    const ints = this.ints;
    const [callMessage, callBlock, resultMessage, resultBlock] = [ints[at + 1] as number, ints[at + 2] as number, ints[at + 3] as number, ints[at + 4] as number];
    return {
      id: pairId(blockOf<ToolCall | ToolResult>((call ?? result) as Held, call ? callBlock : resultBlock)),
      get call(): CallMember | undefined {
        return call && { message: callMessage, block: callBlock, value: blockOf<ToolCall>(call, callBlock) };
      },
      get results(): readonly ResultMember[] {
        if (!result) return NO_RESULTS;
        const first = { message: resultMessage, block: resultBlock, value: blockOf<ToolResult>(result, resultBlock) };
        return later ? [first, ...later] : [first];
      },
    };
  }
}

/** `ints` with room for `pairs` pairs. */
function grown(ints: Int32Array, pairs: number): Int32Array {
  const out = new Int32Array(pairs * INTS);
  out.set(ints);
  return out;
}
