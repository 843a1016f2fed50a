/**
 * The `prefix-lens` CLI, spawned as users run it (`node dist/cli.js`, built by
 * esbuild in `before`): exit codes, the exact --json shape, SARIF structure,
 * plain output, format hints, invalid input and --against.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import * as os from 'node:os';
import { build } from 'esbuild';
import { generateLog } from '../../bench/generate';
import { checkTranscript } from '../../src/core/check';
import { RULE_IDS } from '../../src/core/findings';
import { inputFromFile } from '../../src/core/io';

const ROOT = path.resolve(__dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const FIX = 'test/fixtures/cli';

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function cli(...args: string[]): Run {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '' };
  delete env.PREFIX_LENS_DEBUG;
  const run = spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, encoding: 'utf8', env, timeout: 120_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

function json(...args: string[]): { run: Run; reports: Array<Record<string, unknown>> } {
  const run = cli('check', '--json', ...args);
  return { run, reports: JSON.parse(run.stdout) as Array<Record<string, unknown>> };
}

/** 1-based line/column of an offset, computed independently of the engine's LineIndex. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: (before[before.length - 1] ?? '').length + 1 };
}

const STACK = /\n\s+at .+\(.+:\d+:\d+\)/;

before(async () => {
  await build({
    entryPoints: [path.join(ROOT, 'src/cli/main.ts')],
    outfile: CLI,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
    logLevel: 'error',
  });
});

describe('prefix-lens CLI: exit codes', () => {
  it('prints help and the package version with exit 0', () => {
    const help = cli('--help');
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: prefix-lens check/);
    const version = cli('--version');
    assert.equal(version.code, 0);
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    assert.equal(version.stdout.trim(), pkg.version);
  });

  it('exits 0 for a clean trace and 1 for the seed incident', () => {
    assert.equal(cli('check', `${FIX}/clean.trace.jsonl`).code, 0);
    assert.equal(cli('check', `${FIX}/incident.trace.jsonl`).code, 1);
    assert.equal(cli('check', `${FIX}/clean.trace.jsonl`, `${FIX}/incident.trace.jsonl`).code, 1);
  });

  it('exits 2 with a one-line hint listing the formats for a file of no known format', () => {
    const run = cli('check', `${FIX}/not-a-transcript.json`);
    assert.equal(run.code, 2);
    assert.equal(run.stdout, '');
    const lines = run.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, run.stderr);
    assert.match(lines[0] ?? '', /not-a-transcript\.json: format not recognised\. Known formats: native .*anthropic .*Pass --format/);
  });

  it('exits 2 with a one-line reason for a missing file, and still checks the others', () => {
    const run = cli('check', '--json', `${FIX}/clean.trace.jsonl`, `${FIX}/missing.jsonl`);
    assert.equal(run.code, 2);
    assert.equal(run.stderr.trimEnd().split('\n').length, 1);
    assert.match(run.stderr, /missing\.jsonl: cannot read \(no such file or directory\)/);
    assert.equal((JSON.parse(run.stdout) as unknown[]).length, 1);
  });

  it('exits 2 on a usage error', () => {
    assert.equal(cli('check').code, 2);
    assert.equal(cli('check', '--bogus', `${FIX}/clean.trace.jsonl`).code, 2);
    assert.equal(cli('check', '--json', '--sarif', `${FIX}/clean.trace.jsonl`).code, 2);
    const format = cli('check', '--format', 'yaml', `${FIX}/clean.trace.jsonl`);
    assert.equal(format.code, 2);
    assert.match(format.stderr, /unknown format 'yaml' \(known: .*native/);
  });
});

describe('prefix-lens CLI: --json', () => {
  it('prints one report per file in the exact shape, the seed incident aborting with its three reasons', () => {
    const { run, reports } = json(`${FIX}/incident.trace.jsonl`);
    assert.equal(run.code, 1);
    assert.equal(reports.length, 1);
    const report = reports[0]!;
    assert.deepEqual(Object.keys(report), ['file', 'format', 'session', 'steps', 'findings']);
    assert.equal(report.file, `${FIX}/incident.trace.jsonl`);
    assert.equal(report.format, 'native');
    const steps = report.steps as Array<Record<string, unknown>>;
    assert.equal(steps.length, 1);
    assert.deepEqual(Object.keys(steps[0]!), ['index', 'decision', 'source', 'rules', 'applied', 'cacheImpact']);
    assert.equal(steps[0]!.index, 1);
    assert.equal(steps[0]!.decision, 'abort');
    assert.equal(steps[0]!.source, 'compaction');
    for (const rule of ['tool-result-orphaned', 'schema-dropped', 'prefix-mutated']) {
      assert.ok((steps[0]!.rules as string[]).includes(rule), `step rules include ${rule}`);
    }
    const findings = report.findings as Array<Record<string, unknown>>;
    for (const f of findings) {
      const keys = ['rule', 'severity', 'message', 'step', 'line', 'column', 'endLine', 'endColumn'];
      assert.deepEqual(Object.keys(f), 'toolCallId' in f ? [...keys, 'toolCallId'] : keys);
      assert.ok(f.step === null || (typeof f.step === 'number' && f.step >= 1));
    }
    const orphan = findings.find((f) => f.rule === 'tool-result-orphaned');
    assert.ok(orphan, 'a tool-result-orphaned finding');
    assert.equal(orphan.line, 5);
    assert.equal(orphan.step, 1);
    assert.equal(orphan.toolCallId, 'call_1');
  });

  it('gives 1-based line/column positions exactly matching the engine ranges', () => {
    for (const file of ['incident.trace.jsonl', 'broken-line.trace.jsonl']) {
      const full = path.join(ROOT, FIX, file);
      const text = fs.readFileSync(full, 'utf8');
      const engine = checkTranscript(inputFromFile(full), {});
      const { reports } = json(`${FIX}/${file}`);
      const findings = reports[0]!.findings as Array<Record<string, unknown>>;
      assert.equal(findings.length, engine.findings.length);
      assert.ok(findings.length > 0);
      engine.findings.forEach((f, i) => {
        const start = lineColumn(text, f.range.start);
        const end = lineColumn(text, f.range.end);
        const printed = findings[i]!;
        assert.equal(printed.rule, f.rule);
        assert.deepEqual(
          [printed.line, printed.column, printed.endLine, printed.endColumn],
          [start.line, start.column, end.line, end.column],
          `${file}: ${f.rule}`,
        );
        assert.equal(printed.step, f.step ?? null);
      });
    }
  });

  it('locates invalid JSON as a finding, keeps reading, and never prints a stack trace', () => {
    const { run, reports } = json(`${FIX}/broken-line.trace.jsonl`);
    assert.equal(run.code, 1);
    assert.doesNotMatch(run.stderr, STACK);
    const findings = reports[0]!.findings as Array<Record<string, unknown>>;
    const invalid = findings.filter((f) => f.rule === 'invalid-json');
    assert.equal(invalid.length, 1);
    assert.equal(invalid[0]!.line, 4);
    assert.equal(invalid[0]!.severity, 'error');
    const forced = cli('check', '--format', 'native', `${FIX}/not-a-transcript.json`);
    assert.ok(forced.code === 0 || forced.code === 1, `exit ${forced.code}: ${forced.stderr}`);
    assert.doesNotMatch(forced.stderr, STACK);
  });

  it('walks a directory recursively, skipping unrecognised files silently', () => {
    const { run, reports } = json(`${FIX}/dir`);
    assert.equal(run.code, 1);
    assert.equal(run.stderr, '');
    assert.deepEqual(
      reports.map((r) => r.file),
      [path.join(FIX, 'dir', 'clean.trace.jsonl'), path.join(FIX, 'dir', 'nested', 'incident.trace.jsonl')],
    );
  });
});

describe('prefix-lens CLI: plain output', () => {
  it('prints file:line:col severity rule message, one line per step and a summary, uncoloured when piped', () => {
    const run = cli('check', `${FIX}/incident.trace.jsonl`);
    assert.equal(run.code, 1);
    assert.doesNotMatch(run.stdout, /\u001b\[/);
    const lines = run.stdout.trimEnd().split('\n');
    const findingLines = lines.filter((l) => /^\S+:\d+:\d+ /.test(l));
    assert.ok(findingLines.length >= 3);
    for (const line of findingLines) {
      assert.match(line, /^test\/fixtures\/cli\/incident\.trace\.jsonl:\d+:\d+ (error|warning|info) [a-z-]+ \S/);
    }
    assert.ok(findingLines.some((l) => /:5:\d+ error tool-result-orphaned /.test(l)), run.stdout);
    assert.ok(lines.some((l) => /^step 1\/1 ABORT compaction .*tool-result-orphaned/.test(l)), run.stdout);
    assert.match(lines[lines.length - 1] ?? '', /incident\.trace\.jsonl: Format native · 1 step: 0 patch, 0 defer, 1 abort · \d+ errors?/);
  });
});

describe('prefix-lens CLI: --sarif', () => {
  it('prints SARIF 2.1.0 with the rule table and located results', () => {
    const run = cli('check', '--sarif', `${FIX}/incident.trace.jsonl`);
    assert.equal(run.code, 1);
    const sarif = JSON.parse(run.stdout) as {
      version: string;
      $schema: string;
      runs: Array<{
        tool: { driver: { name: string; rules: Array<{ id: string; helpUri: string; shortDescription: { text: string } }> } };
        results: Array<{
          ruleId: string;
          ruleIndex: number;
          level: string;
          message: { text: string };
          locations: Array<{ physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number; startColumn: number } } }>;
        }>;
      }>;
    };
    assert.equal(sarif.version, '2.1.0');
    assert.match(sarif.$schema, /sarif-2\.1\.0/);
    assert.equal(sarif.runs.length, 1);
    const { driver } = sarif.runs[0]!.tool;
    assert.equal(driver.name, 'prefix-lens');
    assert.deepEqual(driver.rules.map((r) => r.id), RULE_IDS);
    for (const rule of driver.rules) {
      assert.ok(rule.helpUri.endsWith(`rules.md#${rule.id}`), rule.helpUri);
      assert.ok(rule.shortDescription.text.length > 0);
    }
    const { reports } = json(`${FIX}/incident.trace.jsonl`);
    const findings = reports[0]!.findings as Array<Record<string, unknown>>;
    const results = sarif.runs[0]!.results;
    assert.equal(results.length, findings.length);
    results.forEach((r, i) => {
      assert.equal(driver.rules[r.ruleIndex]?.id, r.ruleId);
      assert.ok(['error', 'warning', 'note'].includes(r.level));
      const loc = r.locations[0]!.physicalLocation;
      assert.equal(loc.artifactLocation.uri, `${FIX}/incident.trace.jsonl`);
      assert.equal(loc.region.startLine, findings[i]!.line);
      assert.equal(loc.region.startColumn, findings[i]!.column);
    });
    assert.ok(results.some((r) => r.ruleId === 'tool-result-orphaned' && r.level === 'error'));
  });
});

describe('prefix-lens CLI: --against', () => {
  it('judges append-only growth of a request as patch', () => {
    const { run, reports } = json('--against', `${FIX}/against/old.json`, `${FIX}/against/new-append.json`);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(reports.length, 1);
    assert.equal(reports[0]!.file, `${FIX}/against/new-append.json`);
    const steps = reports[0]!.steps as Array<Record<string, unknown>>;
    assert.equal(steps.length, 1);
    assert.equal(steps[0]!.decision, 'patch');
    assert.equal(steps[0]!.source, 'snapshot');
  });

  it('locates a change to the consumed prefix in the new file', () => {
    const { reports } = json('--against', `${FIX}/against/old.json`, `${FIX}/against/new-mutated.json`);
    const steps = reports[0]!.steps as Array<Record<string, unknown>>;
    assert.notEqual(steps[0]!.decision, 'patch');
    assert.ok((steps[0]!.rules as string[]).includes('prefix-mutated'));
    const text = fs.readFileSync(path.join(ROOT, FIX, 'against/new-mutated.json'), 'utf8').split('\n');
    const mutatedLine = text.findIndex((l) => l.includes('this month')) + 1;
    const mutated = (reports[0]!.findings as Array<Record<string, unknown>>).find((f) => f.rule === 'prefix-mutated');
    assert.ok(mutated);
    assert.equal(mutated.line, mutatedLine);
  });

  it('exits 2 when OLD cannot be read', () => {
    const run = cli('check', '--against', `${FIX}/against/nope.json`, `${FIX}/against/new-append.json`);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /nope\.json: cannot read/);
  });
});

describe('prefix-lens CLI: the sample corpus', () => {
  it('checks the whole corpus folder in seconds, every file with a report and no stack trace', () => {
    const started = Date.now();
    const { run, reports } = json('../shared/corpus');
    assert.ok(run.code === 0 || run.code === 1, `exit ${run.code}: ${run.stderr}`);
    assert.equal(run.stderr, '');
    assert.ok(Date.now() - started < 60_000, 'seconds, even on a busy machine');
    const files = reports.map((r) => r.file as string);
    assert.equal(new Set(files).size, files.length);
    for (const dir of ['anthropic-messages', 'openai-chat', 'openai-responses', 'claude-code', 'codex']) {
      const expected = fs.readdirSync(path.join(ROOT, '../shared/corpus', dir)).map((f) => path.join('../shared/corpus', dir, f));
      for (const file of expected) assert.ok(files.includes(file), `${file} was checked`);
    }
    const anthropic = reports.filter((r) => r.format === 'anthropic');
    assert.equal(anthropic.length, 4);
  });

  it('judges the codemie Claude Code turn-1 snapshot as an append-only prefix of turn-2 (patch)', () => {
    const dir = '../shared/corpus/claude-code';
    const { run, reports } = json('--against', `${dir}/codemie_incremental-subagents_turn-1.jsonl`, `${dir}/codemie_incremental-subagents_turn-2.jsonl`);
    assert.equal(run.code, 0, run.stderr);
    const steps = reports[0]!.steps as Array<Record<string, unknown>>;
    assert.deepEqual(
      steps.map((s) => [s.source, s.decision]),
      [['snapshot', 'patch']],
    );
  });
});

describe('prefix-lens CLI: V8 tuning (src/cli/jit.ts)', () => {
  it('optimises the hot functions of a check without inlining', () => {
    // A request log long enough that TurboFan optimises a few dozen functions (V8's defaults inline into ~100 of them).
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pl-jit-'));
    const log = path.join(dir, 'log.jsonl');
    generateLog(log, { requests: 60, bytesPerTurn: 400, seed: 3 });
    const run = spawnSync(process.execPath, ['--trace-opt', '--trace-turbo-inlining', CLI, 'check', '--json', log], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 120_000 });
    fs.rmSync(dir, { recursive: true, force: true });
    assert.equal(run.status, 0, run.stderr);
    const optimised = run.stdout.split('\n').filter((line) => line.includes('completed optimizing')).length;
    assert.ok(optimised >= 5, `${optimised} functions optimised: the log is too short to tell`);
    assert.equal(run.stdout.split('\n').filter((line) => line.includes('for inlining')).length, 0, 'no call considered for inlining');
  });
});

describe('prefix-lens CLI: start-up', () => {
  it("loads none of Node's network, process or worker modules for a check (the live commands and fflate load them when they run)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pl-start-'));
    const preload = path.join(dir, 'loaded.cjs');
    fs.writeFileSync(preload, "process.on('exit', () => process.stderr.write('loaded: ' + process.moduleLoadList.join(',') + '\\n'));\n");
    const eval_ = '../shared/corpus/inspect-ai/inspect_log_message_deduplication.eval';
    const loaded = (file: string) => {
      const run = spawnSync(process.execPath, ['--require', preload, CLI, 'check', '--json', file], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
      assert.ok(run.status === 0 || run.status === 1, run.stderr);
      return (/^loaded: (.*)$/m.exec(run.stderr)?.[1] ?? '').split(',');
    };
    // Not net: a piped stdout is a net.Socket.
    const heavy = /^NativeModule (https?|tls|crypto|child_process|worker_threads)$/;
    assert.deepEqual(loaded('../shared/corpus/anthropic-messages/pydanticai_test_anthropic_compaction_round_trip.requests.jsonl').filter((m) => heavy.test(m)), []);
    // An Inspect .eval is inflated with fflate, which loads worker_threads then.
    assert.ok(loaded(eval_).includes('NativeModule worker_threads'));
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
