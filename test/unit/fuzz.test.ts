/**
 * Seeded, bounded fuzzing (issue 11): a few thousand mutants of every format's
 * fixtures (byte flips, truncation, inserted structure and control characters,
 * CR / U+2028 / NUL / BOM, lines duplicated or dropped) through the engine.
 * Every mutant: no exception; every finding's range (and related range in the
 * same file) inside the text and ordered (the range property); the JSON and
 * SARIF reports serialise and parse; every JSONL line that is not JSON has a
 * finding on it, and a whole-JSON file that does not parse has an
 * `invalid-json` finding; and the file read from disk gives the same report as
 * its text. The seed is fixed, so a failure names a reproducible mutant.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { checkTranscript } from '../../src/core/check';
import { detectFormat } from '../../src/core/formats/registry';
import { inputFromFile } from '../../src/core/io';
import type { FormatId } from '../../src/core/model';
import { toJsonReport } from '../../src/core/report/json';
import { toSarif } from '../../src/core/report/sarif';
import type { Report } from '../../src/core/results';
import { CORPUS } from '../support/corpus';

const ROOT = path.resolve(__dirname, '..', '..');
const SOURCES = [path.join(ROOT, 'test', 'fixtures'), CORPUS];
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'pl-fuzz-'));
const MUTANTS_PER_FORMAT = 300;
const FILES_PER_FORMAT = 3;
const MAX_FIXTURE_BYTES = 24 * 1024;

/** mulberry32: a small seeded PRNG. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Up to FILES_PER_FORMAT small text fixtures per detected format, in a stable order. */
function fixturesByFormat(): Map<FormatId, string[]> {
  const out = new Map<FormatId, string[]>();
  const visit = (dir: string) => {
    if (!fs.existsSync(dir)) return;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(file);
      else if (entry.isFile() && fs.statSync(file).size <= MAX_FIXTURE_BYTES && !file.endsWith('.eval')) {
        const format = detectFormat(fs.readFileSync(file, 'utf8').slice(0, 65536))?.id;
        const list = format ? (out.get(format) ?? out.set(format, []).get(format)!) : undefined;
        if (list && list.length < FILES_PER_FORMAT) list.push(file);
      }
    }
  };
  SOURCES.forEach(visit);
  return out;
}

const INSERTS = ['{', '}', '[', ']', '"', ',', ':', '\\', '\n', '\r\n', '\r', '\u2028', '\u0000', '\u001b[2K', 'null', '1e999', '"\ud83d\ude00"', '{"a":', '\t'];

function mutate(text: string, rand: () => number): string {
  const at = Math.floor(rand() * (text.length + 1));
  const pick = <T,>(items: readonly T[]) => items[Math.floor(rand() * items.length)] as T;
  switch (Math.floor(rand() * 7)) {
    case 0:
      return text.slice(0, at) + String.fromCharCode(32 + Math.floor(rand() * 95)) + text.slice(at + 1);
    case 1:
      return text.slice(0, at);
    case 2:
      return text.slice(0, at) + pick(INSERTS) + text.slice(at);
    case 3:
      return text.slice(0, at) + text.slice(at + 1 + Math.floor(rand() * 40));
    case 4: {
      const lines = text.split('\n');
      const i = Math.floor(rand() * lines.length);
      return rand() < 0.5 ? [...lines.slice(0, i), lines[i], ...lines.slice(i)].join('\n') : [...lines.slice(0, i), ...lines.slice(i + 1)].join('\n');
    }
    case 5:
      return text.startsWith('\ufeff') ? text : `\ufeff${text}`;
    default:
      return text.replace(/\n/g, rand() < 0.5 ? '\r\n' : '\n\n');
  }
}

function assertRanges(report: Report, length: number, where: string): void {
  for (const f of report.findings) {
    const ranges = [f.range, ...(f.related ?? []).filter((r) => r.file === undefined || r.file === report.file).map((r) => r.range)];
    for (const r of ranges) {
      assert.ok(Number.isInteger(r.start) && Number.isInteger(r.end) && r.start >= 0 && r.start <= r.end && r.end <= length, `${where}: ${f.rule} range ${JSON.stringify(r)} in ${length}`);
    }
  }
}

function assertReportsSerialise(report: Report, where: string): void {
  JSON.parse(JSON.stringify(toJsonReport(report)));
  const sarif = JSON.parse(JSON.stringify(toSarif([report], { toolVersion: '0', rulesDocUri: 'docs/rules.md' }))) as { version: string; runs: { results: unknown[] }[] };
  assert.equal(sarif.version, '2.1.0', where);
  assert.equal(sarif.runs[0]?.results.length, report.findings.length, where);
}

/** Every non-blank JSONL line that is not JSON has a finding starting on it. */
function assertBadLinesReported(report: Report, text: string, where: string): void {
  let offset = 0;
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() !== '' && !parses(line)) {
      const end = offset + line.length;
      assert.ok(report.findings.some((f) => f.range.start >= offset && f.range.start <= end), `${where}: no finding on bad line at ${offset}: ${JSON.stringify(line.slice(0, 60))}`);
    }
    offset += raw.length + 1;
  }
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

describe('fuzz: mutants of every format', () => {
  const fixtures = fixturesByFormat();
  it('finds fixtures for most formats', () => assert.ok(fixtures.size >= 9, [...fixtures.keys()].join(', ')));

  for (const [format, files] of fixtures) {
    it(`${format}: ${MUTANTS_PER_FORMAT} mutants of ${files.length} fixture(s)`, () => {
      const rand = random(0x5eed + format.length * 7919 + format.charCodeAt(0));
      for (let n = 0; n < MUTANTS_PER_FORMAT; n++) {
        const file = files[n % files.length] as string;
        let text = fs.readFileSync(file, 'utf8');
        for (let k = 1 + Math.floor(rand() * 3); k > 0; k--) text = mutate(text, rand);
        const where = `${format} mutant ${n} of ${path.basename(file)}`;
        const name = `fuzz${path.extname(file)}`;
        const report = checkTranscript({ file: name, text }, { format, tokens: false });
        const body = text.startsWith('\ufeff') ? text.slice(1) : text;
        assertRanges(report, body.length, where);
        assertReportsSerialise(report, where);
        if (file.endsWith('.jsonl')) assertBadLinesReported(report, body, where);
        else if (!parses(body)) assert.ok(report.findings.some((f) => f.rule === 'invalid-json'), `${where}: whole JSON that does not parse has no invalid-json: ${JSON.stringify(body.slice(0, 300))} ${JSON.stringify(report.findings.map((f) => f.message))}`);
        if (n % 10 === 0) {
          const onDisk = path.join(TMP, name);
          fs.writeFileSync(onDisk, text);
          const fromFile = checkTranscript(inputFromFile(onDisk), { format, tokens: false });
          assert.deepEqual({ findings: fromFile.findings, lineStarts: fromFile.lineStarts }, { findings: report.findings, lineStarts: report.lineStarts }, `${where}: file and text disagree`);
        }
      }
    });
  }
});
