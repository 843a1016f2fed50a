/**
 * Zip bombs in an Inspect `.eval` (issue 11): inflating is bounded by
 * maxDecompressedBytes, entries sharing their compressed data are refused, the
 * entry count is bounded, and each ends the check with `stopped` (exit 2 in the
 * CLI), never a crash or a pass.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { zipSync } from 'fflate';
import { checkTranscript } from '../../src/core/check';
import { inputFromFile } from '../../src/core/io';
import type { Limits } from '../../src/core/limits';
import { CORPUS } from '../support/corpus';

const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'pl-zip-'));
const CORPUS_EVAL = path.join(CORPUS, 'inspect-ai', 'inspect_log_message_deduplication.eval');

function check(bytes: Uint8Array, limits: Partial<Limits> = {}) {
  const file = path.join(TMP, `${Math.random().toString(36).slice(2)}.eval`);
  fs.writeFileSync(file, bytes);
  return checkTranscript(inputFromFile(file, limits), { format: 'inspect', tokens: false });
}

/** A sample entry that inflates to `size` bytes (a JSON string of spaces, which deflate squeezes ~1000:1). */
function sample(size: number): Uint8Array {
  const text = `{"id":1,"epoch":1,"messages":[],"events":[],"pad":"${' '.repeat(size)}"}`;
  return new TextEncoder().encode(text);
}

/** Central-directory entry offsets of a zip (the EOCD's directory offset, then each entry). */
function centralEntries(zip: Uint8Array): number[] {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const end = zip.byteLength - 22;
  const count = view.getUint16(end + 10, true);
  const out: number[] = [];
  for (let at = view.getUint32(end + 16, true), i = 0; i < count; i++) {
    out.push(at);
    at += 46 + view.getUint16(at + 28, true) + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return out;
}

describe('hostile input: zip bombs in .eval', () => {
  it('stops when the entries inflate past maxDecompressedBytes, saying so', () => {
    const bomb = zipSync({ 'samples/1_epoch_1.json': sample(4 << 20) }, { level: 9 });
    assert.ok(bomb.length < 64 * 1024, `bomb is ${bomb.length} bytes`);
    const report = check(bomb, { maxDecompressedBytes: 1 << 20 });
    assert.equal(report.stopped?.reason, 'the .eval inflates to more than the maxDecompressedBytes limit (1 MiB)');
    assert.ok(report.findings.some((f) => f.severity === 'error' && f.message.includes('reader stopped')));
    assert.equal(check(bomb).stopped, undefined, 'within the default limit it is read');
  });

  it('refuses entries that share their compressed data (overlapping entries)', () => {
    const zip = zipSync({ 'samples/1_epoch_1.json': sample(10), 'samples/2_epoch_1.json': sample(10) });
    const [, second] = centralEntries(zip);
    assert.ok(second !== undefined);
    new DataView(zip.buffer).setUint32(second + 42, 0, true); // the second entry's local header := the first's
    const report = check(zip);
    assert.match(report.stopped?.reason ?? '', /share their compressed data \(overlapping entries, a zip bomb\): refused$/);
  });

  it('refuses more entries than maxZipEntries', () => {
    const files: Record<string, Uint8Array> = {};
    for (let i = 0; i < 20; i++) files[`samples/${i}_epoch_1.json`] = sample(1);
    assert.equal(check(zipSync(files), { maxZipEntries: 10 }).stopped?.reason, 'the zip has 20 entries, more than the maxZipEntries limit (10)');
  });

  it('reads a real .eval as before, and a truncated one as an unreadable zip (a finding, not a crash)', () => {
    const real = fs.readFileSync(CORPUS_EVAL);
    const whole = check(real);
    assert.equal(whole.stopped, undefined);
    assert.ok(whole.steps.length > 0);
    const cut = check(real.subarray(0, real.length >> 1));
    assert.ok(cut.findings.some((f) => f.rule === 'invalid-json' && f.message.startsWith('Inspect .eval is not a readable zip')));
  });
});
