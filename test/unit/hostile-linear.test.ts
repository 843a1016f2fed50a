/**
 * Work linear in the input (issue 11): format detection on pathological heads,
 * and token counting that cuts long pre-tokenizer runs. Speed itself is
 * measured in `npm run bench` (tokens-pathological); here only generous
 * "well under N s" guards (loose enough for a loaded machine, far under what quadratic work takes) for detection and for a text that is one long
 * piece per chunk, and the counts' accuracy.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Tiktoken, type TiktokenBPE } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { ADAPTERS, detectFormat } from '../../src/core/formats/registry';
import { CHUNK, countLinear, createTokenCounter, ESTIMATE_ABOVE } from '../../src/core/tokens';

const ROOT = path.resolve(__dirname, '..', '..');
const MiB = 1 << 20;
const fill = (unit: string) => unit.repeat(Math.ceil(MiB / unit.length)).slice(0, MiB);

describe('hostile input: detection is linear', () => {
  const heads: Record<string, string> = {
    newlines: fill('\n'),
    spaces: fill(' '),
    braces: fill('{'),
    'braces, spaces and newlines': fill('{ \n'),
    'CRLF lines': fill('\r\n'),
    'open arrays': fill('[{'),
    'a key repeated on one line': fill('"parentUuid":"'),
    'an unfinished record type per line': fill('{"type":"summary","summary":\n'),
    'a Codex prefix repeated': fill('{"type":"session_meta",'),
  };
  for (const [name, head] of Object.entries(heads)) {
    // 5 s, not 1: the 2-core machine under other jobs' load took 1.4 s for this linear work; a sniffer
    // quadratic in the lines (~37 k lines of up to 1 MiB each left to scan) takes tens of seconds.
    it(`detects nothing in 1 MiB of ${name}, every sniffer in well under 5 s`, () => {
      const started = performance.now();
      assert.equal(detectFormat(head), undefined);
      for (const adapter of ADAPTERS) assert.equal(adapter.sniff(head), false, adapter.id);
      const ms = performance.now() - started;
      assert.ok(ms < 5000, `${name}: ${ms.toFixed(0)} ms`);
    });
  }
});

describe('hostile input: token counts', () => {
  const exact = new Tiktoken(o200k as TiktokenBPE);
  const encode = (text: string) => exact.encode(text, [], []).length;
  const counter = createTokenCounter('o200k_base');

  it('counts prose, JSON and code as tiktoken on the whole text (only words over 32 letters are estimated)', () => {
    for (const file of ['docs/rules.md', 'src/core/check.ts', 'src/core/tokens.ts', 'test/fixtures/cli/incident.trace.jsonl']) {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      const want = encode(text);
      assert.ok(Math.abs(counter.count(text) - want) <= want * 0.002, `${file}: ${counter.count(text)} vs ${want}`);
    }
    const json = fs.readFileSync(path.join(ROOT, 'test/fixtures/cli/incident.trace.jsonl'), 'utf8');
    assert.equal(counter.count(json), encode(json));
  });

  it('cuts texts where runs of one character class start, as one regex per class finds the runs (random texts)', () => {
    // The cut, written independently: runs of whitespace (\t-\r, space), letters (and anything non-ASCII), digits, punctuation.
    const reference = (text: string, count: (slice: string) => number): number => {
      let n = 0;
      let chunkStart = 0;
      let lastSpace = -1;
      for (const { 0: run, index: i } of text.matchAll(/[\t-\r ]+|[A-Za-z\u0080-\uffff]+|[0-9]+|[^\t-\r A-Za-z0-9\u0080-\uffff]+/g)) {
        const end = i + run.length;
        if (run.length > 32) {
          n += count(text.slice(chunkStart, i));
          const sample = text.slice(i, i + (/^[\t-\r ]/.test(run) ? 128 : 16));
          const whole = /[\ud800-\udbff]$/.test(sample) && i + sample.length < text.length ? text.slice(i, i + sample.length + 1) : sample;
          n += Math.round((count(whole) * run.length) / whole.length);
          chunkStart = end;
          lastSpace = -1;
        } else if (end - chunkStart > CHUNK) {
          const cut = lastSpace > chunkStart ? lastSpace : i;
          n += count(text.slice(chunkStart, cut));
          chunkStart = cut;
          lastSpace = -1;
        }
        if (/^[\t-\r ]/.test(run)) lastSpace = i;
      }
      return n + count(text.slice(chunkStart));
    };
    const slices = (cut: (text: string, count: (slice: string) => number) => number, text: string) => {
      const seen: string[] = [];
      const n = cut(text, (slice) => (seen.push(slice), slice.length + (slice.charCodeAt(0) % 7)));
      return { n, seen };
    };
    const short = fc.constantFrom('a', 'Z', '7', ' ', '\t', '\n', '{', '"', 'é', '文', '\ud83d\ude00', '\ud83d', '\u00a0', 'word ', '12');
    const long = fc.constantFrom('a', ' ', '1', '-', 'é').map((c) => c.repeat(30 + (c.charCodeAt(0) % 10)));
    // Short runs only (chunks cut at CHUNK, where the last space is), or long runs now and then (sampled).
    const texts = fc.oneof(fc.array(short, { minLength: 1000, maxLength: 3000 }), fc.array(fc.oneof(short, long), { maxLength: 400, size: 'max' }));
    fc.assert(
      fc.property(texts, (units) => {
        const text = units.join('');
        assert.deepEqual(slices(countLinear, text), slices(reference, text), JSON.stringify(text.slice(0, 80)));
      }),
      // No shrinking: a failure's texts are thousands of units long.
      { numRuns: 300, endOnFailure: true },
    );
  });

  it('estimates long runs of one character class within 10% of the exact count', () => {
    for (const run of ['a'.repeat(1500), 'ACGT'.repeat(300), 'กขฃคฅฆงจฉชซฌญฎฏ'.repeat(40), '文字漢語中国日本'.repeat(60), '{'.repeat(1500), ' '.repeat(1500)]) {
      const want = encode(run);
      const got = counter.count(run);
      assert.ok(Math.abs(got - want) <= Math.max(2, want * 0.1), `${run.slice(0, 8)}…: ${got} vs ${want}`);
    }
  });

  it('estimates a text longer than ESTIMATE_ABOVE from samples, within 2% of counting it in pieces', () => {
    // Fixed texts (a licence and a fixture), so editing the docs cannot move this test.
    const unit = ['LICENSE', 'test/fixtures/cli/incident.trace.jsonl'].map((f) => fs.readFileSync(path.join(ROOT, f), 'utf8')).join('\n');
    const reps = Math.ceil((ESTIMATE_ABOVE + 1) / unit.length);
    const whole = unit.repeat(reps);
    const pieces = countLinear(unit, encode) * reps;
    const estimate = counter.count(whole);
    assert.ok(Math.abs(estimate - pieces) <= pieces * 0.02, `${estimate} vs ${pieces}`);
  });

  it('counts 1 MiB of alternating ASCII and non-ASCII punctuation, one 2,048-character piece per chunk, exactly and in well under 20 s', () => {
    // No run is longer than one character, so nothing is estimated: every chunk is one piece for the byte-pair merge.
    const text = fill('!、');
    assert.ok(text.length <= ESTIMATE_ABOVE && text.length % CHUNK === 0);
    const started = performance.now();
    const got = createTokenCounter('o200k_base').count(text);
    const ms = performance.now() - started;
    assert.ok(ms < 20_000, `${ms.toFixed(0)} ms`);
    // Every chunk is the same 2,048 characters.
    assert.equal(got, (text.length / CHUNK) * encode(text.slice(0, CHUNK)));
  });
});
