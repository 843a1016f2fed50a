/**
 * A check of a file on disk (extension/engine.ts `checkRequest` of kind
 * `file`, what a worker is asked when a large transcript's tab opens): the
 * report of its text as a document's check gives it; a file that is not UTF-8
 * is not checked (it throws), as the editor would show it otherwise. Of kind
 * `zip` (an Inspect `.eval`, the session view's check, in the worker when
 * large): the report the engine gives for the file as the CLI reads it.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { checkTranscript, inputFromFile } from '../../src/core/index';
import { checkRequest } from '../../src/extension/engine';
import { CORPUS } from '../support/corpus';
import { generateLog } from '../../bench/generate';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prefix-lens-engine-file-'));

describe('checkRequest of a file on disk', () => {
  it('reports what the check of its text reports', () => {
    const source = path.join(CORPUS, 'claude-code', 'spotter_258c7280-ae70-4798-800f-63464d01a85d.excerpt-L1236-L1278.jsonl');
    const file = path.join(dir, 'session.jsonl');
    fs.copyFileSync(source, file);
    const text = fs.readFileSync(file, 'utf8');
    const options = { tokens: false, limits: {}, keepRewrites: false } as const;
    const fromDisk = checkRequest({ kind: 'file', file, bytes: Buffer.byteLength(text), ...options });
    assert.deepEqual(fromDisk, checkRequest({ kind: 'transcript', file, text, ...options }));
    assert.ok(fromDisk.steps.length > 0, 'a session with steps');
  });

  it('read as the CLI reads it (bytes streamed, shared prefixes compared): the report of its text, on every text file of the corpus and on request logs of the three providers, LF and CRLF', () => {
    const walk = (d: string): string[] => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
    const logs = (['anthropic', 'openai-chat', 'openai-responses'] as const).flatMap((format) => {
      const file = path.join(dir, `${format}.jsonl`);
      generateLog(file, { requests: 30, bytesPerTurn: 300, seed: 3, format });
      const lines = fs.readFileSync(file, 'utf8').split('\n');
      // An answer changed early on: steps with findings, carried from the line before and not.
      lines[12] = (lines[12] as string).replace(/"text":"(\w)/, '"text":"~$1');
      fs.writeFileSync(file, lines.join('\n'));
      const crlf = path.join(dir, `${format}-crlf.jsonl`);
      fs.writeFileSync(crlf, lines.join('\r\n'));
      return [file, crlf];
    });
    const options = { tokens: false, limits: {}, keepRewrites: false } as const;
    const files = [...walk(CORPUS).filter((f) => /\.(jsonl|json)$/.test(f)), ...logs];
    let withFindings = 0;
    for (const file of files) {
      const text = fs.readFileSync(file, 'utf8');
      if (text.includes('\uFFFD')) continue;
      const fromDisk = checkRequest({ kind: 'file', file, bytes: Buffer.byteLength(text), ...options });
      assert.deepEqual(fromDisk, checkRequest({ kind: 'transcript', file, text, ...options }), file);
      if (fromDisk.findings.length > 0) withFindings++;
    }
    assert.ok(withFindings >= 6, `${withFindings} files with findings`);
  });

  it('reads the file in chunks, never whole (a large log is not held as one text)', (t) => {
    const file = path.join(dir, 'chunks.jsonl');
    generateLog(file, { requests: 12, bytesPerTurn: 200, seed: 4 });
    // The module itself, not this file's namespace of it (whose members are getters): the engine's calls go through it.
    const nodeFs = createRequire(__filename)('node:fs') as typeof fs;
    const whole = t.mock.method(nodeFs, 'readFileSync');
    const chunks = t.mock.method(nodeFs, 'readSync');
    const report = checkRequest({ kind: 'file', file, bytes: fs.statSync(file).size, tokens: false, limits: {} });
    assert.ok(report.steps.length > 0);
    assert.equal(whole.mock.calls.length, 0, 'read whole');
    assert.ok(chunks.mock.calls.length > 0, 'read in chunks');
  });

  it('with a byte order mark: the report of its text without it, as the editor shows the file', () => {
    const file = path.join(dir, 'bom.jsonl');
    generateLog(file, { requests: 12, bytesPerTurn: 200, seed: 5 });
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines[6] = (lines[6] as string).replace(/"text":"(\w)/, '"text":"~$1');
    const text = lines.join('\n');
    fs.writeFileSync(file, `\uFEFF${text}`);
    const options = { tokens: false, limits: {}, keepRewrites: false } as const;
    const fromDisk = checkRequest({ kind: 'file', file, bytes: fs.statSync(file).size, ...options });
    assert.deepEqual(fromDisk, checkRequest({ kind: 'transcript', file, text, ...options }));
    assert.ok(fromDisk.findings.length > 0 && fromDisk.findings.every((f) => f.rule !== 'invalid-json'), JSON.stringify(fromDisk.findings.map((f) => f.rule)));
  });

  it('of a zip (an Inspect .eval): the report of the file as the engine reads it', () => {
    const file = path.join(CORPUS, 'inspect-ai', 'inspect_log_message_deduplication.eval');
    const report = checkRequest({ kind: 'zip', file, bytes: fs.statSync(file).size, tokens: false, limits: {} });
    assert.deepEqual(report, checkTranscript(inputFromFile(file), { keepRewrites: true, tokens: false, limits: {} }));
    assert.equal(report.format, 'inspect');
    assert.ok((report.session?.messages ?? 0) > 0, 'the zip was read');
  });

  it('throws for a file that is not UTF-8', () => {
    const file = path.join(dir, 'latin1.jsonl');
    fs.writeFileSync(file, Buffer.from('{"type":"prefix-lens/trace","version":1}\n{"note":"caf\xe9"}\n', 'latin1'));
    assert.throws(() => checkRequest({ kind: 'file', file, bytes: fs.statSync(file).size, tokens: false, limits: {} }), /not UTF-8/);
  });

  it('throws for a request log with a byte that is not UTF-8 in the part a line adds to the line before', () => {
    const file = path.join(dir, 'log-latin1.jsonl');
    generateLog(file, { requests: 10, bytesPerTurn: 2000, seed: 9 });
    const bytes = fs.readFileSync(file);
    const last = bytes.lastIndexOf('"text":"');
    bytes[last + 8] = 0xe9;
    fs.writeFileSync(file, bytes);
    assert.throws(() => checkRequest({ kind: 'file', file, bytes: bytes.length, tokens: false, limits: {} }), /not UTF-8/);
  });
});
