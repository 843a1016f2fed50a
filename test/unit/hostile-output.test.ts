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
    const text = '{"type":"prefix-lens/trace","version":1}\n{"type":"append","messages":[';
    const report = checkTranscript({ file: 'end.trace.jsonl', text }, { format: 'native', tokens: false });
    const bad = report.findings.find((f) => f.rule === 'invalid-json');
    assert.ok(bad);
    assert.ok(bad.range.start <= bad.range.end && bad.range.end <= text.length, JSON.stringify(bad.range));
  });
});

/** Runs the CLI as an unprivileged user when the tests run as root (root reads any file). */
function cliAsUser(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const asRoot = process.getuid?.() === 0;
  const run = spawnSync(process.execPath, [CLI, ...args], { cwd: TMP, encoding: 'utf8', env: { ...process.env, NO_COLOR: '' }, timeout: 60_000, ...(asRoot && { uid: 65534, gid: 65534 }) });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('hostile input: special files, unreadable files, any file name', () => {
  const incident = fs.readFileSync(path.join(ROOT, 'test/fixtures/cli/incident.trace.jsonl'));

  it('refuses a FIFO with no writer and a device with exit 2, without blocking or reading', () => {
    const fifo = path.join(TMP, 'pipe.trace.jsonl');
    spawnSync('mkfifo', [fifo]);
    for (const [target, kind] of [[fifo, 'a FIFO'], ['/dev/zero', 'a device']] as const) {
      for (const args of [['check', target], ['check', '--format', 'native', target]]) {
        const run = cli(...args);
        assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
        assert.equal(run.stderr, `prefix-lens: ${target}: cannot read (not a regular file (${kind}): refused, it could block or never end)\n`);
      }
    }
  });

  it('check DIR reports an unreadable file and exits 2, still checking the others', () => {
    const dir = fs.mkdtempSync(path.join(TMP, 'walk-'));
    fs.chmodSync(TMP, 0o755);
    fs.chmodSync(dir, 0o755);
    fs.writeFileSync(path.join(dir, 'a.trace.jsonl'), incident, { mode: 0o644 });
    fs.writeFileSync(path.join(dir, 'b.trace.jsonl'), incident, { mode: 0o000 });
    const run = cliAsUser('check', '--no-tokens', dir);
    assert.equal(run.code, 2, run.stderr);
    assert.equal(run.stderr, `prefix-lens: ${path.join(dir, 'b.trace.jsonl')}: cannot read (permission denied)\n`);
    assert.match(run.stdout, /a\.trace\.jsonl: Format native/);
  });

  it('checks a file whose name is not valid UTF-8, in a walk and by name, showing the bad byte escaped', () => {
    const dir = fs.mkdtempSync(path.join(TMP, 'names-'));
    fs.writeFileSync(Buffer.concat([Buffer.from(`${dir}/bad`), Buffer.from([0xff]), Buffer.from('.trace.jsonl')]), incident);
    const walked = cli('check', '--no-tokens', dir);
    const named = cli('check', '--no-tokens', `${dir}/bad\ufffd.trace.jsonl`);
    for (const run of [walked, named]) {
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stdout, /bad\\xff\.trace\.jsonl: Format native · 1 step: 0 patch, 0 defer, 1 abort/);
    }
  });
});

describe('hostile input: limits end a file with exit 2 and say where', () => {
  it('a line longer than --max-line-chars stops reading: exit 2, the reason and the line, an error in the report', () => {
    const file = path.join(TMP, 'long.trace.jsonl');
    fs.writeFileSync(file, `{"type":"prefix-lens/trace","version":1}\n{"type":"window","tools":[],"messages":[{"role":"user","content":"${'a'.repeat(5000)}"}],"boundary":0}\n`);
    const run = cli('check', '--no-tokens', '--max-line-chars', '1000', '--json', 'long.trace.jsonl');
    assert.equal(run.code, 2);
    assert.equal(run.stderr, 'prefix-lens: long.trace.jsonl:1:41: reading stopped, the rest was not checked: line 2 is longer than the maxLineChars limit (1,000 characters)\n');
    const [report] = JSON.parse(run.stdout) as [{ stopped: unknown; findings: { severity: string; rule: string }[] }];
    assert.deepEqual(report.stopped, { reason: 'line 2 is longer than the maxLineChars limit (1,000 characters)', line: 1, column: 41 });
    assert.ok(report.findings.some((f) => f.rule === 'record-skipped' && f.severity === 'error'));
    assert.equal(cli('check', '--no-tokens', 'long.trace.jsonl').code, 0);
  });

  it('a file larger than --max-file-bytes stops with exit 2, streamed or read whole', () => {
    fs.writeFileSync(path.join(TMP, 'big.trace.jsonl'), fs.readFileSync(path.join(ROOT, 'test/fixtures/cli/incident.trace.jsonl')));
    const run = cli('check', '--no-tokens', '--max-file-bytes', '100', 'big.trace.jsonl');
    assert.equal(run.code, 2);
    assert.match(run.stderr, /big\.trace\.jsonl:1:1: reading stopped, the rest was not checked: the file is larger than the maxFileBytes limit \(100 bytes\)\n$/);
  });

  it('findings past --max-findings-per-rule are counted in one summary finding, with exit 2', () => {
    const calls = Array.from({ length: 30 }, (_, i) => ({ role: 'tool', tool_call_id: `orphan_${i}`, content: 'x' }));
    const text = `{"type":"prefix-lens/trace","version":1}\n${JSON.stringify({ type: 'window', tools: [], messages: [{ role: 'user', content: 'hi' }, ...calls], boundary: 0 })}\n`;
    fs.writeFileSync(path.join(TMP, 'many.trace.jsonl'), text);
    const run = cli('check', '--no-tokens', '--max-findings-per-rule', '5', '--json', 'many.trace.jsonl');
    assert.equal(run.code, 2, run.stderr);
    const [report] = JSON.parse(run.stdout) as [{ omitted: Record<string, number>; findings: { rule: string; message: string }[] }];
    assert.deepEqual(report.omitted, { 'tool-result-orphaned': 25 });
    const orphans = report.findings.filter((f) => f.rule === 'tool-result-orphaned');
    assert.equal(orphans.length, 6);
    assert.ok(orphans.some((f) => f.message.startsWith('25 more tool-result-orphaned findings not listed')));
    assert.match(run.stderr, /many\.trace\.jsonl: more findings than the limit per rule, not listed: 25 tool-result-orphaned/);
  });
});
