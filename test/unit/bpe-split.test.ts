/**
 * The rank tables' patterns read by hand on ASCII (src/core/bpe-split.ts)
 * against the patterns themselves: at every place of random texts, the end
 * of the piece the sticky regex finds there, or -1 (the regex decides); on
 * ASCII, never -1. Texts are made of each pattern's edge cases: letters of
 * both cases and contractions, digits, every kind of ASCII whitespace, line
 * breaks, slashes, quotes, control characters, and the non-ASCII letters,
 * digits, marks and spaces that would continue an ASCII run.
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import o200k from 'js-tiktoken/ranks/o200k_base';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { pieceEnd, splitVariant } from '../../src/core/bpe-split';

const ASCII = [...'aZ09 \t\n\r\v\f\'"/!.,:{}_-sStTrRvVeElLmMdD', '\x00', '\x1f', '\x7f'];
const OTHER = ['\u00a0', 'é', 'É', '²', '٣', '\u2028', '\u3000', '、', '😀', '\ud83d', '\u0301', 'ǅ', 'ʰ', '文'];

for (const [name, ranks] of [
  ['o200k_base', o200k],
  ['cl100k_base', cl100k],
] as const) {
  describe(`ASCII pieces of ${name}'s pattern`, () => {
    const variant = splitVariant(ranks.pat_str);
    const here = new RegExp(ranks.pat_str, 'uy');
    const regexEnd = (text: string, at: number) => {
      here.lastIndex = at;
      return here.test(text) ? here.lastIndex : -1;
    };

    it('is known by its text; another pattern is not', () => {
      assert.notEqual(variant, undefined);
      assert.equal(splitVariant(`${ranks.pat_str}|x`), undefined);
    });

    it('ends where the sticky regex ends, at every place, or leaves it to the regex', () => {
      let decided = 0;
      let places = 0;
      fc.assert(
        fc.property(fc.array(fc.oneof({ arbitrary: fc.constantFrom(...ASCII), weight: 8 }, { arbitrary: fc.constantFrom(...OTHER), weight: 1 }), { maxLength: 40 }), (chars) => {
          const text = chars.join('');
          for (let at = 0; at < text.length; at++) {
            const end = pieceEnd(variant as boolean, text, at);
            places++;
            if (end < 0) continue;
            decided++;
            assert.equal(end, regexEnd(text, at), `${JSON.stringify(text)} at ${at}`);
          }
        }),
        { numRuns: 20_000 },
      );
      assert.ok(decided > places / 2, `${decided} of ${places} places decided`);
    });

    it('decides every place of ASCII text', () => {
      fc.assert(
        fc.property(fc.array(fc.constantFrom(...ASCII), { maxLength: 40 }), (chars) => {
          const text = chars.join('');
          for (let at = 0; at < text.length; at++) assert.equal(pieceEnd(variant as boolean, text, at), regexEnd(text, at), `${JSON.stringify(text)} at ${at}`);
        }),
        { numRuns: 5_000 },
      );
    });
  });
}
