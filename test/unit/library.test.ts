/**
 * The library as a runtime imports it: package.json's `exports` entry (the
 * esbuild bundle of src/core/index.ts, built here into a temp folder laid out
 * like dist/) refuses a
 * bad compaction before it is applied, and counts tokens with the rank tables
 * it loads at run time: the tables' text, or their packed form alone (what
 * the build also writes, read first), with the same counts.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { build } from 'esbuild';
import { packRanks } from '../../src/core/bpe-packed';

const ROOT = path.resolve(__dirname, '../..');
const DIST = mkdtempSync(path.join(tmpdir(), 'prefix-lens-lib-'));
const OUT = path.join(DIST, 'lib.js');
/** The same bundle beside the packed o200k_base table only. */
const PACKED = mkdtempSync(path.join(tmpdir(), 'prefix-lens-lib-packed-'));

interface Library {
  guardRewrite(window: unknown, proposal: unknown, options?: unknown): { decision: string; findings: { rule: string }[] };
  createGuard(window: unknown, options?: unknown): {
    check(proposal: unknown, options?: unknown): { decision: string; findings: { rule: string }[] };
    apply(proposal: unknown): unknown;
    append(messages: unknown[]): unknown;
    generate(messages: unknown[]): unknown;
    readonly window: { boundary: number; messages: unknown[] };
  };
  checkTranscript(input: unknown, options?: unknown): { steps: { decision: string; boundary: { tokens: number } }[] };
  inputFromFile(file: string): unknown;
}

let lib: Library;

before(async () => {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { exports: { '.': { default: string } } };
  assert.equal(pkg.exports['.'].default, './dist/lib.js');
  await build({ entryPoints: [path.join(ROOT, 'src/core/index.ts')], outfile: OUT, bundle: true, format: 'cjs', platform: 'node', target: 'node20', logLevel: 'error' });
  // The same layout as esbuild.js ships: rank tables beside the bundle, outside any node_modules.
  mkdirSync(path.join(DIST, 'ranks'));
  for (const encoding of ['o200k_base', 'cl100k_base']) {
    copyFileSync(path.join(ROOT, `node_modules/js-tiktoken/dist/ranks/${encoding}.cjs`), path.join(DIST, 'ranks', `${encoding}.js`));
  }
  lib = require(OUT) as Library;
  mkdirSync(path.join(PACKED, 'ranks'));
  copyFileSync(OUT, path.join(PACKED, 'lib.js'));
  writeFileSync(path.join(PACKED, 'ranks', 'o200k_base.bin'), packRanks(require('js-tiktoken/ranks/o200k_base') as { pat_str: string; bpe_ranks: string }, 'o200k_base'));
});

const current = {
  tools: [{ name: 'query_db', input_schema: { type: 'object' } }],
  messages: [
    { role: 'user', content: 'How many users?' },
    { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', name: 'query_db', input: { sql: 'select count(*) from users' } }] },
    { role: 'tool', tool_call_id: 'call_1', content: '42' },
  ],
  boundary: 2,
};

describe('library: prefix-lens as a runtime imports it', () => {
  it('guardRewrite aborts a compaction that drops a call but keeps its result', () => {
    const proposal = { tools: [], messages: [current.messages[0], current.messages[2]] };
    const verdict = lib.guardRewrite(current, proposal, { source: 'compaction' });
    assert.equal(verdict.decision, 'abort');
    assert.ok(verdict.findings.some((f) => f.rule === 'tool-result-orphaned'));
  });

  it('guardRewrite patches a pure append', () => {
    const proposal = { messages: [...current.messages, { role: 'user', content: 'Thanks' }] };
    assert.equal(lib.guardRewrite(current, proposal).decision, 'patch');
  });

  it('createGuard follows a runtime loop: append, generate, check, apply', () => {
    const messages: unknown[] = [...current.messages];
    const guard = lib.createGuard({ ...current, messages: [...messages] });
    const thanks = { role: 'user', content: 'Thanks' };
    guard.append([thanks]);
    messages.push(thanks);
    const reply = { role: 'assistant', content: 'You are welcome.' };
    guard.generate([reply]);
    messages.push(reply);
    assert.equal(guard.window.boundary, 5);
    const cut = { messages: [messages[0], ...messages.slice(2)] };
    assert.equal(guard.check(cut, { source: 'compaction' }).decision, 'abort');
    assert.equal(guard.window.messages.length, 5, 'check changes nothing');
    const append = { messages: [...messages, { role: 'user', content: 'Bye' }] };
    assert.deepEqual(guard.check(append), lib.guardRewrite(guard.window, append));
    guard.apply(append);
    assert.equal(guard.window.messages.length, 6);
  });

  it('checkTranscript reads a file and counts consumed tokens', () => {
    const report = lib.checkTranscript(lib.inputFromFile(path.join(ROOT, 'examples/seed-incident.trace.jsonl')));
    assert.equal(report.steps[0]?.decision, 'abort');
    assert.ok((report.steps[0]?.boundary.tokens ?? 0) > 0);
  });

  it('refuses an unknown token encoding with a clear error, loading nothing by its name', () => {
    const file = path.join(ROOT, 'examples/seed-incident.trace.jsonl');
    for (const tokens of [true, 'gpt2', '../../../package']) {
      assert.throws(() => lib.checkTranscript(lib.inputFromFile(file), { tokens }), (e: Error) => e instanceof TypeError && /tokens: unknown encoding .*'o200k_base', 'cl100k_base' or false/.test(e.message), String(tokens));
      assert.throws(() => lib.guardRewrite(current, current, { tokens }), TypeError, String(tokens));
    }
  });

  it('counts the same tokens with the packed rank table alone', () => {
    const packed = require(path.join(PACKED, 'lib.js')) as Library;
    const file = path.join(ROOT, 'examples/seed-incident.trace.jsonl');
    const tokens = (l: Library) => l.checkTranscript(l.inputFromFile(file)).steps.map((s) => s.boundary.tokens);
    assert.deepEqual(tokens(packed), tokens(lib));
  });
});
