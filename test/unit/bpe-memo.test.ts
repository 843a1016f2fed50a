/**
 * The token counter's memo of recent pieces (src/core/bpe-memo.ts): a piece
 * read back is the piece kept, byte for byte: never another piece's count,
 * whether it shares the slot, the hash's low bits, the length or a prefix.
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { MEMO_WIDTH, PieceMemo } from '../../src/core/bpe-memo';

/** FNV-1a, as the counter hashes a piece. */
function fnv(bytes: Uint8Array): number {
  let h = 0x811c9dc5;
  for (const b of bytes) h = Math.imul(h ^ b, 0x01000193);
  return h;
}

describe('PieceMemo', () => {
  it('reads back the count of the piece kept in a slot, and -1 for any other piece', () => {
    const piece = fc.uint8Array({ minLength: 2, maxLength: MEMO_WIDTH, max: 3 });
    fc.assert(
      fc.property(fc.array(fc.tuple(piece, fc.nat(1000)), { minLength: 1, maxLength: 300 }), fc.array(piece, { maxLength: 100 }), (kept, asked) => {
        const memo = new PieceMemo();
        // What each slot holds, by hash (the last piece kept there).
        const last = new Map<number, { bytes: string; count: number }>();
        const slotOf = (h: number) => h & 1023;
        for (const [bytes, count] of kept) {
          // Placed inside a larger buffer, as the counter's scratch holds its pieces.
          const source = new Uint8Array([9, ...bytes, 9]);
          memo.set(source, 1, 1 + bytes.length, fnv(bytes), count);
          last.set(slotOf(fnv(bytes)), { bytes: bytes.join(), count });
        }
        for (const bytes of [...kept.map(([b]) => b), ...asked]) {
          const held = last.get(slotOf(fnv(bytes)));
          const want = held && held.bytes === bytes.join() ? held.count : -1;
          assert.equal(memo.get(new Uint8Array([7, ...bytes]), 1, 1 + bytes.length, fnv(bytes)), want);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('tells pieces of the same hash apart by their bytes', () => {
    const memo = new PieceMemo();
    const a = new Uint8Array([1, 2, 3]);
    memo.set(a, 0, 3, 42, 2);
    assert.equal(memo.get(new Uint8Array([1, 2, 4]), 0, 3, 42), -1);
    assert.equal(memo.get(new Uint8Array([1, 2]), 0, 2, 42), -1);
    assert.equal(memo.get(a, 0, 3, 42), 2);
  });
});
