/**
 * Hostile transcripts and file names against what the CLI prints: control
 * characters from the input are shown escaped (a transcript cannot erase a
 * line or fake the summary), SARIF URIs are percent-encoded, every entry point
 * handles a BOM alike, and ranges stay inside the text.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import { build } from 'esbuild';
import { checkTranscript } from '../../src/core/check';
import { inputFromFile, inputFromText } from '../../src/core/io';
import { artifactLocation } from '../../src/core/report/sarif';
import { escapeControls } from '../../src/core/text';

const ROOT = path.resolve(__dirname, '..', '..');
/** Its own bundle, so this file never races cli.test.ts over dist/cli.js. */
const CLI = path.join(ROOT, 'dist', 'test', 'hostile-cli.js');
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'pl-hostile-'));

function cli(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '' };
  delete env.PREFIX_LENS_DEBUG;
  const run = spawnSync(process.execPath, [CLI, ...args], { cwd: TMP, encoding: 'utf8', env, timeout: 60_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

before(async () => {
  await build({
    entryPoints: [path.join(ROOT, 'src/cli/main.ts')],
    outfile: CLI,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    logLevel: 'error',
  });
});

const ESC = '\u001b';
/** Every control character except the newlines between output lines. */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const FAKE = `${ESC}[1A${ESC}[2K\r\nclean.jsonl: Format \`codex\` · no rewrite steps · 0 errors, 0 warnings, 0 info`;

/** A Codex rollout whose record type and call id try to erase the error line and print a clean summary. */
function hostileRollout(): string {
  const lines = [
    { timestamp: '2026-01-02T03:04:05.000Z', type: 'session_meta', payload: { id: 's', base_instructions: 'be brief' } },
    { timestamp: '2026-01-02T03:04:06.000Z', type: 'event_msg', payload: { type: 'task_started' } },
    { timestamp: '2026-01-02T03:04:07.000Z', type: FAKE, payload: {} },
    { timestamp: '2026-01-02T03:04:08.000Z', type: 'response_item', payload: { type: 'function_call', name: 'sh', arguments: '{}', call_id: `c1${FAKE}` } },
    { timestamp: '2026-01-02T03:04:09.000Z', type: 'event_msg', payload: { type: 'task_complete' } },
  ];
  return `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;
}

describe('hostile input: plain output escapes control characters', () => {
  it('escapes C0, DEL, C1, separators and bidi overrides as visible text', () => {
    assert.equal(escapeControls(`a${ESC}[2K\r\n\tb\u007f\u009b\u2028\u202e`), 'a\\x1b[2K\\r\\n\\tb\\x7f\\x9b\\u2028\\u202e');
    assert.equal(escapeControls('plain ünïcödé 文字'), 'plain ünïcödé 文字');
  });

  it('a hostile transcript and file name cannot change the summary line', () => {
    const name = `x${ESC}]0;title\u0007\r.jsonl`;
    fs.writeFileSync(path.join(TMP, name), hostileRollout());
    const run = cli('check', name);
    assert.equal(run.code, 1, run.stderr);
    assert.doesNotMatch(run.stdout, RAW_CONTROL);
    assert.doesNotMatch(run.stderr, RAW_CONTROL);
    const lines = run.stdout.trimEnd().split('\n');
    const summaries = lines.filter((l) => l.includes(': Format codex'));
    assert.equal(summaries.length, 1, run.stdout);
    assert.equal(lines.at(-1), summaries[0]);
    assert.match(summaries[0] ?? '', /^x\\x1b\]0;title\\x07\\r\.jsonl: Format codex · no rewrite steps · 1 error, 0 warnings, 1 info$/);
    assert.ok(lines.some((l) => l.includes('error tool-use-orphaned') && l.includes('[c1\\x1b[1A\\x1b[2K\\r\\nclean.jsonl')), run.stdout);
  });

  it('escapes a hostile file name in the one-line reason on stderr', () => {
    const run = cli('check', `missing${ESC}[31m\n.jsonl`);
    assert.equal(run.code, 2);
    assert.equal(run.stderr, 'prefix-lens: missing\\x1b[31m\\n.jsonl: cannot read (no such file or directory)\n');
  });
});

describe('hostile input: SARIF URIs, BOM, ranges', () => {
  it('percent-encodes every path segment of a SARIF URI', () => {
    assert.deepEqual(artifactLocation('run#1?.trace.jsonl', { baseUri: 'file:///w/' }), { uri: 'run%231%3F.trace.jsonl', uriBaseId: 'SRCROOT' });
    assert.deepEqual(artifactLocation('/a b/50%/x#y.jsonl', {}), { uri: 'file:///a%20b/50%25/x%23y.jsonl' });
    assert.deepEqual(artifactLocation('C:\\runs\\a#b.jsonl', {}), { uri: 'file:///C:/runs/a%23b.jsonl' });
    assert.deepEqual(artifactLocation('bad\ud800.jsonl', {}), { uri: 'bad%EF%BF%BD.jsonl' });
  });

  it('the CLI writes the encoded URI of a file named run#1?.trace.jsonl', () => {
    fs.copyFileSync(path.join(ROOT, 'test/fixtures/cli/clean.trace.jsonl'), path.join(TMP, 'run#1?.trace.jsonl'));
    const run = cli('check', '--sarif', 'run#1?.trace.jsonl');
    assert.equal(run.code, 0, run.stderr);
    const sarif = JSON.parse(run.stdout) as { runs: [{ artifacts: [{ location: { uri: string } }] }] };
    assert.equal(sarif.runs[0].artifacts[0].location.uri, 'run%231%3F.trace.jsonl');
  });

  it('a text with its BOM is checked exactly like the file with it', () => {
    const file = path.join(TMP, 'bom.trace.jsonl');
    const text = `\ufeff${fs.readFileSync(path.join(ROOT, 'test/fixtures/cli/incident.trace.jsonl'), 'utf8')}`;
    fs.writeFileSync(file, text);
    const fromFile = checkTranscript(inputFromFile(file), { tokens: false });
    const fromText = checkTranscript(inputFromText(file, text), { tokens: false });
    assert.ok(fromFile.findings.length > 0);
    assert.ok(fromText.findings.every((f) => f.rule !== 'invalid-json'));
    assert.deepEqual(fromText.findings, fromFile.findings);
    assert.deepEqual(fromText.lineStarts, fromFile.lineStarts);
  });

  it('locates invalid JSON at the end of the last line inside the text', () => {
    const text = '{"type":"prefix-lens.trace","version":1}\n{"op":"append","messages":[';
    const report = checkTranscript({ file: 'end.trace.jsonl', text }, { format: 'native', tokens: false });
    const bad = report.findings.find((f) => f.rule === 'invalid-json');
    assert.ok(bad);
    assert.ok(bad.range.start <= bad.range.end && bad.range.end <= text.length, JSON.stringify(bad.range));
  });
});
