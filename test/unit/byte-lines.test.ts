/**
 * Lines read from bytes, decoding only what a line does not share with the
 * line before it (`linesFromBytes`), against decoding the whole file at once
 * and splitting the text: the same texts, offsets and indexes, on random
 * files whose lines repeat long prefixes of the line before them (ASCII,
 * multi-byte and astral characters, invalid UTF-8, CRLF, a byte order mark,
 * an unterminated last line), cut into random chunks read into one buffer
 * (texts read after the whole file was); and every `same` is a
 * prefix the two lines share, with the rest of the line after it (`rest`).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { linesFromBytes } from '../../src/core/byte-lines';
import { inputFromFile } from '../../src/core/io';
import { splitLines, type SourceLine } from '../../src/core/text';
import { settledMemory } from './settled-heap';

const PIECES: readonly number[][] = [
  [...Buffer.from('{"messages":[{"role":"user","content":"the agent reads a file"}')],
  [...Buffer.from('héllo wörld — ')],
  [...Buffer.from('😀 文字 ')],
  [0x80], // a lone continuation byte
  [0xe2, 0x82], // a cut three-byte sequence
  [0xf0, 0x9f, 0x98], // a cut four-byte sequence
  [0xed, 0xa0, 0x80], // an encoded surrogate
  [0x0d], // CR
  [0xef, 0xbb, 0xbf], // a byte order mark inside a line
];

/** A line: the previous line's first bytes (most of it, often), then new pieces. */
const lineSpec = fc.record({
  keep: fc.double({ min: 0, max: 1, noNaN: true }),
  pieces: fc.array(fc.nat(PIECES.length - 1), { maxLength: 6 }),
  repeat: fc.integer({ min: 1, max: 200 }),
});

function buildFile(specs: readonly { keep: number; pieces: number[]; repeat: number }[], bom: boolean, terminated: boolean): Buffer {
  const lines: number[][] = [];
  let previous: number[] = [];
  for (const spec of specs) {
    const body = spec.pieces.flatMap((p) => PIECES[p] as number[]);
    const fresh = Array.from({ length: spec.repeat }, () => body).flat();
    const line = [...previous.slice(0, Math.floor(previous.length * spec.keep)), ...fresh].filter((b) => b !== 0x0a);
    lines.push(line);
    previous = line;
  }
  const bytes = lines.flatMap((line, i) => (i < lines.length - 1 || terminated ? [...line, 0x0a] : line));
  return Buffer.from(bom ? [0xef, 0xbb, 0xbf, ...bytes] : bytes);
}

/** The bytes cut at `cuts`, each chunk read into the same buffer (as a file is read). */
function* chunked(bytes: Buffer, cuts: readonly number[]): Generator<Buffer> {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const buffer = Buffer.alloc(bytes.length);
  let from = 0;
  for (const cut of [...at, bytes.length]) {
    if (cut > from) {
      bytes.copy(buffer, 0, from, cut);
      yield buffer.subarray(0, cut - from);
    }
    from = Math.max(from, cut);
  }
}

const withoutSame = (lines: readonly SourceLine[]) => lines.map(({ same: _same, rest: _rest, ...line }) => line);

test('property: lines read from bytes are those of the whole decoded text, and share what they say', () => {
  fc.assert(
    fc.property(fc.array(lineSpec, { minLength: 1, maxLength: 8 }), fc.boolean(), fc.boolean(), fc.array(fc.nat(), { maxLength: 12 }), (specs, bom, terminated, cuts) => {
      const bytes = buildFile(specs, bom, terminated);
      const lines = [...linesFromBytes(chunked(bytes, cuts))];
      assert.deepEqual(withoutSame(lines), [...splitLines(new TextDecoder().decode(bytes))]);
      lines.forEach((line, i) => {
        if (line.same === undefined) return;
        const before = lines[i - 1]?.text ?? '';
        assert.ok(line.same <= Math.min(before.length, line.text.length));
        assert.equal(line.text.slice(0, line.same), before.slice(0, line.same));
        assert.ok(line.rest && line.rest.from <= line.same);
        assert.equal(line.rest.text, line.text.slice(line.rest.from));
      });
    }),
    { numRuns: 300 },
  );
});

test('a request log read from a file shares its history line to line', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prefix-lens-'));
  const file = path.join(dir, 'log.jsonl');
  const history = Array.from({ length: 60 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `turn ${i} — ünïcödé 😀 ${'x'.repeat(40)}` }));
  const text = [20, 40, 60].map((n) => JSON.stringify({ messages: history.slice(0, n) })).join('\r\n') + '\r\n';
  fs.writeFileSync(file, text);
  const lines = [...inputFromFile(file).lines()];
  assert.deepEqual(withoutSame(lines), [...splitLines(text)]);
  assert.equal(lines[0]?.same, undefined);
  const shared = JSON.stringify({ messages: history.slice(0, 20) }).length - 2;
  assert.ok((lines[1]?.same ?? 0) >= shared, `line 2 shares its first ${shared} characters, said ${lines[1]?.same}`);
  fs.rmSync(dir, { recursive: true });
});

test('lines that each keep a little of the line before and add much (their chains made into texts on the way): the texts are whole', () => {
  const shared = 'ü'.repeat(1500);
  const lines = Array.from({ length: 120 }, (_, i) => `${shared}${String(i).repeat(2000).slice(0, 2000)}😀`);
  const bytes = Buffer.from(lines.join('\n'));
  const read = [...linesFromBytes(chunked(bytes, [4096, 70000, 150000]))];
  assert.deepEqual(
    read.map((line) => line.text),
    lines,
  );
  assert.ok(read.slice(1).every((line) => (line.same ?? 0) >= shared.length));
});

test('maxLineChars counts characters, not bytes: a line of that many passes however many bytes they take, one more is too long', () => {
  const read = (text: string) => [...linesFromBytes(chunked(Buffer.from(text), [7]), 10)].map((line) => line.text);
  assert.deepEqual(read('éééééééé😀\nabc\n'), ['éééééééé😀', 'abc']);
  assert.throws(() => read('abc\nééééééééééé\n'), /line 2 is longer than the maxLineChars limit \(10 characters\)/);
  assert.throws(() => read('abcdefghijk'), /line 1 is longer than the maxLineChars limit/);
  assert.throws(() => read(`${'😀'.repeat(40)}\n`), /line 1 is longer than the maxLineChars limit/);
});

test('a line not valid UTF-8 is counted as the decoder decodes it, across the pieces it is counted in: that many characters pass, one more is too long', () => {
  // 'é' then a stray byte: 3 bytes, 2 characters; 65,536 bytes (a piece) cut an 'é' in two.
  const line = Buffer.from(Array.from({ length: 50_000 }, () => [0xc3, 0xa9, 0xff]).flat());
  const text = new TextDecoder().decode(line);
  const read = (maxLineChars: number) => [...linesFromBytes([line], maxLineChars)].map((l) => l.text);
  assert.deepEqual(read(text.length), [text]);
  assert.throws(() => read(text.length - 1), /line 1 is longer than the maxLineChars limit/);
});

test('a huge line not valid UTF-8, past the limit, is refused by the limit without being decoded whole (it would not fit in a string)', () => {
  // More characters than a string can hold, in no more bytes than three per allowed character.
  const line = Buffer.alloc(2 ** 29, 0xff);
  const maxLineChars = Math.ceil(line.length / 3);
  assert.throws(() => [...linesFromBytes([line], maxLineChars)], /line 1 is longer than the maxLineChars limit/);
});

test("a log of lines that grow a little at a time holds its reader's buffers at about twice its longest line, not five times (slots grown by a quarter, not doubled; the first chunk not copied)", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prefix-lens-'));
  const file = path.join(dir, 'log.jsonl');
  // 28 lines of 10 KB to 280 KB, each the one before with 10 KB more: lines cut between the 1 MiB chunks, lines kept.
  const lines = Array.from({ length: 28 }, (_, i) => `{"messages":"${'y'.repeat((i + 1) * 10_000)}"}`);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  const longest = (lines.at(-1) as string).length;
  const before = settledMemory().external;
  let held = 0;
  for (const line of inputFromFile(file).lines()) {
    // The reader holds its chunk (1 MiB), the line before (kept) and the line cut between chunks.
    if (line.index === lines.length - 1) held = settledMemory().external - before - 1024 * 1024;
  }
  // Both slots at 320 KiB (64, 128, 192, 256, 320): 640 KiB held; doubled (64, 128, 256, 512 KiB) they held 1 MiB. The
  // first chunk was copied to look for a byte order mark, and the copy held for the whole read: 1 MiB more.
  assert.ok(held > 0 && held < 2.5 * longest, `the reader held ${held} bytes of buffers besides its chunk for a longest line of ${longest}`);
  fs.rmSync(dir, { recursive: true });
});
