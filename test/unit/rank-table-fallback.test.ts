/**
 * The packed rank table (`<encoding>.bin` beside the bundles) is read first;
 * when it is there but cannot be read (a directory in its place, no
 * permission), the text table is read instead and counts are the same.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { BpeCounter } from '../../src/core/bpe';
import { loadRanks } from '../../src/core/tokens';

const TEXTS = ['Hello, world!', 'The rank table could not be read; the text table counts the same.', '  indented\n\tcode(x) => x + 1;', 'naïve café 東京 🙂'];

function countsOf(counter: BpeCounter): number[] {
  return TEXTS.map((text) => counter.count(text));
}

describe('rank table fallback', () => {
  const expected = countsOf(new BpeCounter(o200k));

  it('a directory where the packed table should be: the text table is read', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pl-ranks-'));
    fs.mkdirSync(path.join(dir, 'o200k_base.bin'));
    assert.deepEqual(countsOf(new BpeCounter(loadRanks('o200k_base', dir))), expected);
  });
});
