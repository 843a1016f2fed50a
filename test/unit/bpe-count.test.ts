/**
 * The token counter's BPE (src/core/bpe.ts) against js-tiktoken itself: the
 * same number of tokens as `Tiktoken.encode(text, [], []).length`, for both
 * encodings, on real files (the corpus, the docs, the sources) and on random
 * texts (any Unicode, lone surrogates, special-token text, long words), and
 * on long pieces of alternating ASCII and non-ASCII punctuation, one piece to
 * the pattern, where the merge runs long (merge order: lowest rank, leftmost).
 * The counter read from the packed table (src/core/bpe-packed.ts, what the
 * build ships) counts as the one built from the table's text.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Tiktoken, type TiktokenBPE } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { BpeCounter } from '../../src/core/bpe';
import { packRanks, unpackRanks } from '../../src/core/bpe-packed';
import { CORPUS } from '../support/corpus';

const ROOT = path.resolve(__dirname, '..', '..');

/** Every file under `dir` (recursively), smallest first, at most `limit` of them. */
function filesUnder(dir: string, limit: number): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) out.push(full);
    }
  };
  walk(dir);
  return out.sort((a, b) => fs.statSync(a).size - fs.statSync(b).size).slice(0, limit);
}

for (const [name, ranks] of [
  ['o200k_base', o200k],
  ['cl100k_base', cl100k],
] as const) {
  describe(`BPE token counts (${name}) equal js-tiktoken's`, () => {
    const exact = new Tiktoken(ranks as TiktokenBPE);
    const want = (text: string) => exact.encode(text, [], []).length;
    const counter = new BpeCounter(ranks);
    const packed = packRanks(ranks, name);
    const unpacked = unpackRanks(packed, name);
    assert.ok(unpacked);
    const fromPacked = new BpeCounter(unpacked);

    it('on the docs, the sources and the corpus files, in slices of 4 KiB', () => {
      const files = [...filesUnder(path.join(ROOT, 'docs'), 40), ...filesUnder(path.join(ROOT, 'src', 'core'), 40), ...filesUnder(CORPUS, 60)];
      assert.ok(files.length > 60, `${files.length} files`);
      let slices = 0;
      for (const file of files) {
        const text = fs.readFileSync(file, 'utf8').slice(0, 64 * 1024);
        for (let at = 0; at < text.length; at += 4096) {
          const slice = text.slice(at, at + 4096);
          assert.equal(counter.count(slice), want(slice), `${path.relative(ROOT, file)} at ${at}`);
          assert.equal(fromPacked.count(slice), want(slice), `packed: ${path.relative(ROOT, file)} at ${at}`);
          slices++;
        }
      }
      assert.ok(slices > 200, `${slices} slices`);
    });

    it('on random texts: any Unicode, lone surrogates, special-token text, long words, runs', () => {
      const pieces = fc.oneof(
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\n', '{', '"', '1', 'é', 'ก', '文', '\ud83d', '\ude00', "'"), maxLength: 80 }),
        fc.constantFrom('<|endoftext|>', '<|fim_prefix|>', "don't", "I'LL", '    ', '\r\n\r\n', 'supercalifragilisticexpialidocious'.repeat(3)),
      );
      fc.assert(
        fc.property(fc.array(pieces, { maxLength: 12 }), (parts) => {
          const text = parts.join('');
          assert.equal(counter.count(text), want(text), JSON.stringify(text));
          assert.equal(fromPacked.count(text), want(text), `packed: ${JSON.stringify(text)}`);
        }),
        { numRuns: 400 },
      );
    });

    it('reads its packed table only when whole: not cut, not of another magic or a header its length contradicts; misaligned, copied', () => {
      const misaligned = new Uint8Array(packed.length + 1).subarray(1);
      misaligned.set(packed);
      assert.equal(new BpeCounter(unpackRanks(misaligned, name)!).count('hello world, again'), want('hello world, again'));
      assert.equal(unpackRanks(packed.subarray(0, packed.length - 1), name), undefined);
      assert.equal(unpackRanks(packed.subarray(0, 12), name), undefined);
      const other = packed.slice();
      other[0] = (other[0] as number) ^ 1;
      assert.equal(unpackRanks(other, name), undefined);
      const lying = packed.slice();
      const header = new DataView(lying.buffer);
      header.setInt32(4, header.getInt32(4, true) + 1, true);
      assert.equal(unpackRanks(lying, name), undefined, 'a token count its length does not have');
    });

    it("is not read as another encoding's table, nor with slots another build's hash placed", () => {
      assert.equal(unpackRanks(packed, name === 'o200k_base' ? 'cl100k_base' : 'o200k_base'), undefined);
      // The same tokens, each slot moved to the mirror slot: what a table placed by another hash looks like.
      const foreign = packed.slice();
      const view = new DataView(foreign.buffer);
      const [n, c] = [view.getInt32(4, true), view.getInt32(12, true)];
      const slotsAt = 4 * (6 + 2 * n + 1);
      const slots = new Int32Array(packed.buffer.slice(slotsAt, slotsAt + 4 * c));
      slots.reverse();
      foreign.set(new Uint8Array(slots.buffer), slotsAt);
      assert.equal(unpackRanks(foreign, name), undefined);
    });

    it('on a 2,048-character piece of alternating ASCII and non-ASCII punctuation', () => {
      const piece = '.。.、,!!!'.repeat(256);
      assert.equal([...piece.matchAll(new RegExp(ranks.pat_str, 'gu'))].length, 1);
      assert.equal(counter.count(piece), want(piece));
    });

    it('on random long punctuation pieces: runs of equal pairs, ties of rank, emoji, a letter or space now and then', () => {
      const punctuation = fc.constantFrom('!', '!!', '.', '...', ',', '?', '(', '"', '、', '、、', '。', '「', '」', '…', '——', '・', '¿', '😀', '\ud83d');
      const unit = fc.oneof({ arbitrary: punctuation, weight: 60 }, { arbitrary: fc.constantFrom(' ', 'a', '\n'), weight: 1 });
      let longest = 0;
      fc.assert(
        fc.property(fc.array(unit, { minLength: 20, maxLength: 300, size: 'max' }), (units) => {
          const text = units.join('');
          for (const [piece] of text.matchAll(new RegExp(ranks.pat_str, 'gu'))) longest = Math.max(longest, piece.length);
          assert.equal(counter.count(text), want(text), JSON.stringify(text));
        }),
        { numRuns: 100 },
      );
      assert.ok(longest > 200, `longest piece ${longest} characters`);
    });
  });
}
