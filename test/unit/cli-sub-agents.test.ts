/**
 * The CLI on a Claude Code 2.x session with its `subagents` folder: each
 * sub-agent file's own report after the session's (each file once, also when
 * a directory names it too), the session's --json saying which call started
 * each, the exit code counting their findings; a sub-agent file that cannot
 * be read is a trouble (exit 2), said in one line.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';

const ROOT = path.resolve(__dirname, '..', '..');
const DIR = 'test/fixtures/claude-code/subagents';
const SESSION = `${DIR}/5e551013-0000-4000-8000-000000000002.jsonl`;
const AGENTS = `${DIR}/5e551013-0000-4000-8000-000000000002/subagents`;

function cli(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 120_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pl-cli-subagents-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('CLI: sub-agent files', () => {
  it('--json: the session links each sub-agent to its call; each sub-agent file is a report of its own; exit 1 for their errors', () => {
    const run = cli('check', '--json', '--no-tokens', SESSION);
    assert.equal(run.code, 1, run.stderr);
    const reports = JSON.parse(run.stdout) as { file: string; findings: { rule: string; line: number }[]; subAgents?: unknown }[];
    assert.deepEqual(
      reports.map((r) => r.file),
      [SESSION, `${AGENTS}/agent-a1b2c3d4e5f60718.jsonl`, `${AGENTS}/agent-a9e8d7c6b5a40312.jsonl`],
    );
    assert.deepEqual(reports[0]!.subAgents, [
      { agentId: 'a1b2c3d4e5f60718', file: `${AGENTS}/agent-a1b2c3d4e5f60718.jsonl`, thread: 2, label: 'sub-agent Explore (a1b2c3d4e5f60718)', parentCall: 'toolu_01Explore', problems: 0 },
      { agentId: 'a9e8d7c6b5a40312', file: `${AGENTS}/agent-a9e8d7c6b5a40312.jsonl`, thread: 3, label: 'sub-agent general-purpose (a9e8d7c6b5a40312)', parentCall: 'toolu_01General', problems: 2 },
    ]);
    assert.deepEqual(reports[0]!.findings, []);
    assert.deepEqual(reports[2]!.findings.map((f) => [f.rule, f.line]), [['tool-use-orphaned', 4], ['tool-result-orphaned', 5]]);
  });

  it('plain: one line per sub-agent under the session; a directory holding both checks each file once', () => {
    const run = cli('check', '--no-tokens', SESSION);
    assert.match(run.stdout, /^ {2}sub-agent Explore \(a1b2c3d4e5f60718\), started by toolu_01Explore: .*agent-a1b2c3d4e5f60718\.jsonl$/m);
    const dir = cli('check', '--json', '--no-tokens', DIR);
    const files = (JSON.parse(dir.stdout) as { file: string }[]).map((r) => r.file);
    assert.equal(files.length, 3);
    assert.equal(new Set(files).size, 3);
  });

  it('a sub-agent file named too, spelled another way (./), is reported once', () => {
    const run = cli('check', '--json', '--no-tokens', `./${SESSION}`, `./${AGENTS}/agent-a9e8d7c6b5a40312.jsonl`);
    assert.equal(run.code, 1, run.stderr);
    const files = (JSON.parse(run.stdout) as { file: string }[]).map((r) => path.resolve(ROOT, r.file));
    assert.deepEqual(files.sort(), [SESSION, `${AGENTS}/agent-a1b2c3d4e5f60718.jsonl`, `${AGENTS}/agent-a9e8d7c6b5a40312.jsonl`].map((f) => path.resolve(ROOT, f)).sort());
  });

  it('a sub-agent file that cannot be read is a trouble: exit 2, one line saying why', () => {
    const session = path.join(tmp, 'sess.jsonl');
    fs.copyFileSync(path.join(ROOT, SESSION), session);
    fs.mkdirSync(path.join(tmp, 'sess', 'subagents'), { recursive: true });
    fs.symlinkSync(path.join(tmp, 'nowhere'), path.join(tmp, 'sess', 'subagents', 'agent-gone.jsonl'));
    const run = cli('check', '--no-tokens', session);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /agent-gone\.jsonl: not read: ENOENT/);
    assert.doesNotMatch(run.stderr, /\n\s+at /);
  });
});
