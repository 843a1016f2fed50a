/**
 * `prefix-lens check --follow FILE`, spawned as users run it, on a real file
 * that the test appends to: each step printed as its line arrives (a
 * half-written line waits for its end), a replaced file checked again from the
 * start, the summary and exit status on SIGINT.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { parseArgs } from '../../src/cli/args';
import { spawnCli, waitFor } from './live-cli-helpers';

const ROOT = path.resolve(__dirname, '..', '..');
const example = (name: string) => fs.readFileSync(path.join(ROOT, 'examples', name), 'utf8').split(/(?<=\n)/);

describe('check --follow', () => {
  it('prints steps as lines arrive, re-checks a replaced file, and the summary on SIGINT', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pl-follow-'));
    const file = path.join(dir, 'session.trace.jsonl');
    const seed = example('seed-incident.trace.jsonl');
    fs.writeFileSync(file, seed.slice(0, 2).join(''));
    const follow = spawnCli(['check', '--follow', file]);
    try {
      await new Promise((r) => setTimeout(r, 1000));
      assert.doesNotMatch(follow.out.stdout, /step 1/, 'no step before the rewrite arrives');
      const [line3, line4, line5] = seed.slice(2) as [string, string, string];
      fs.appendFileSync(file, line3 + line4 + line5.slice(0, 40));
      await new Promise((r) => setTimeout(r, 800));
      assert.doesNotMatch(follow.out.stdout, /step 1|invalid-json/, 'a half-written line waits for its end');
      fs.appendFileSync(file, line5.slice(40));
      await waitFor(follow, (out) => (/step 1 ABORT compaction/.test(out.stdout) ? true : undefined));
      assert.match(follow.out.stdout, /session\.trace\.jsonl:5:445 error tool-result-orphaned .*\[toolu_01\]/);

      fs.writeFileSync(file, example('whole-pair-compaction.trace.jsonl').join(''));
      await waitFor(follow, (out) => (/step 1 DEFER/.test(out.stdout) ? true : undefined));
      assert.match(follow.out.stdout, /truncated or replaced; checking it again from the start/);

      follow.child.kill('SIGINT');
      const code = await new Promise<number | null>((resolve) => follow.child.on('exit', resolve));
      assert.match(follow.out.stdout, /Format native · 1 step: 0 patch, 1 defer, 0 abort/);
      assert.equal(code, 0, 'the summary is of the file as it is now: no error');
      assert.equal((follow.out.stdout.match(/step 1 ABORT/g) ?? []).length, 1, 'each step printed once');
    } finally {
      follow.child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a log of several conversations: each step printed with its thread as its line arrives', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pl-follow-'));
    const file = path.join(dir, 'log.jsonl');
    const lines = fs.readFileSync(path.join(ROOT, 'test/fixtures/providers/anthropic-log-interleaved.jsonl'), 'utf8').split(/(?<=\n)/);
    fs.writeFileSync(file, lines[0]!);
    const follow = spawnCli(['check', '--follow', file]);
    try {
      for (const line of lines.slice(1)) {
        await new Promise((r) => setTimeout(r, 300));
        fs.appendFileSync(file, line);
      }
      await waitFor(follow, (out) => (out.stdout.includes('step 4 ') ? true : undefined));
      const steps = follow.out.stdout.split('\n').filter((l) => /^step /.test(l));
      assert.deepEqual(steps, ['step 1 thread 1 PATCH request', 'step 2 thread 2 PATCH request', 'step 3 thread 1 PATCH request', 'step 4 thread 1 PATCH request'], follow.out.stdout);
    } finally {
      follow.child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a second FILE or --json', () => {
    assert.equal(parseArgs(['check', '--follow', 'a', 'b'], ['native']).kind, 'usage-error');
    assert.equal(parseArgs(['check', '--follow', '--json', 'a'], ['native']).kind, 'usage-error');
    const command = parseArgs(['check', '--follow', 'a'], ['native']);
    assert.ok(command.kind === 'check' && command.follow === true);
    assert.deepEqual(command.paths, ['a']);
  });
});
