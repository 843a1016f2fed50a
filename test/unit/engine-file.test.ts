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
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { checkTranscript, inputFromFile } from '../../src/core/index';
import { checkRequest } from '../../src/extension/engine';
import { CORPUS } from '../support/corpus';

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
});
