/**
 * `prefix-lens check --follow FILE` on a real file that the test appends to:
 * each step printed as its line arrives (a half-written line waits for its
 * end), a replaced file checked again from the start (in process, each read
 * waited for, never a fixed sleep), and spawned as users run it: the summary
 * and exit status on SIGINT.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { parseArgs } from '../../src/cli/args';
import { followFile } from '../../src/cli/follow';
import { spawnCli, waitFor } from './live-cli-helpers';

const ROOT = path.resolve(__dirname, '..', '..');
const example = (name: string) => fs.readFileSync(path.join(ROOT, 'examples', name), 'utf8').split(/(?<=\n)/);

/**
 * `followFile` in this process: what it printed, `nextRead()` resolving after
 * its next read of the file (one that starts after the call, so it sees every
 * write made before), `stop()` in place of Ctrl+C, and the exit status.
 */
function inProcess(file: string) {
  let out = '';
  let read: (() => void) | undefined;
  let stop!: () => void;
  const code = followFile(
    file,
    undefined,
    (text) => {
      out += text;
      read?.();
    },
    new Promise<void>((resolve) => (stop = resolve)),
  );
  return { out: () => out, nextRead: () => new Promise<void>((resolve) => (read = resolve)), stop: () => stop(), code };
}

describe('check --follow', () => {
  it('prints nothing before the rewrite arrives, waits for a half-written line to end, re-checks a replaced file (each read waited for)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pl-follow-'));
    const file = path.join(dir, 'session.trace.jsonl');
    const seed = example('seed-incident.trace.jsonl');
    fs.writeFileSync(file, seed.slice(0, 2).join(''));
    const follow = inProcess(file);
    try {
      assert.doesNotMatch(follow.out(), /step 1/, 'no step before the rewrite arrives');
      const [line3, line4, line5] = seed.slice(2) as [string, string, string];
      fs.appendFileSync(file, line3 + line4 + line5.slice(0, 40));
      await follow.nextRead();
      assert.doesNotMatch(follow.out(), /step 1|invalid-json/, 'a half-written line waits for its end');
      fs.appendFileSync(file, line5.slice(40));
      await follow.nextRead();
      assert.match(follow.out(), /step 1 ABORT compaction/);
      assert.match(follow.out(), /session\.trace\.jsonl:5:445 error tool-result-orphaned .*\[toolu_01\]/);

      fs.writeFileSync(file, example('whole-pair-compaction.trace.jsonl').join(''));
      await follow.nextRead();
      assert.match(follow.out(), /truncated or replaced; checking it again from the start\n(.*\n)*step 1 DEFER/);
    } finally {
      follow.stop();
    }
    assert.equal(await follow.code, 0, 'the summary is of the file as it is now: no error');
    assert.match(follow.out(), /Format native · 1 step: 0 patch, 1 defer, 0 abort/);
    assert.equal((follow.out().match(/step 1 ABORT/g) ?? []).length, 1, 'each step printed once');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('as users run it: each step as its line arrives, the summary and exit status on SIGINT', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pl-follow-'));
    const file = path.join(dir, 'session.trace.jsonl');
    const seed = example('seed-incident.trace.jsonl');
    fs.writeFileSync(file, seed.slice(0, 2).join(''));
    const follow = spawnCli(['check', '--follow', file]);
    try {
      fs.appendFileSync(file, seed.slice(2).join(''));
      await waitFor(follow, (out) => (/step 1 ABORT compaction/.test(out.stdout) ? true : undefined));
      follow.child.kill('SIGINT');
      const code = await new Promise<number | null>((resolve) => follow.child.on('exit', resolve));
      assert.match(follow.out.stdout, /Format native · 1 step: 0 patch, 0 defer, 1 abort/);
      assert.equal(code, 1, 'an error-level finding was seen');
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
    const follow = inProcess(file);
    const steps = () => follow.out().split('\n').filter((l) => /^step /.test(l));
    const printed: number[] = [];
    try {
      for (const line of lines.slice(1)) {
        fs.appendFileSync(file, line);
        await follow.nextRead();
        printed.push(steps().length);
      }
    } finally {
      follow.stop();
    }
    await follow.code;
    // A request is at most one step (a thread's first request is none): printed at the read of its line.
    assert.ok(printed.every((n, i) => n - (printed[i - 1] ?? 0) <= 1), `steps after each line: ${printed.join(', ')}`);
    assert.deepEqual(steps(), ['step 1 thread 1 PATCH request', 'step 2 thread 2 PATCH request', 'step 3 thread 1 PATCH request', 'step 4 thread 1 PATCH request'], follow.out());
    assert.equal(printed.at(-1), 4);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a second FILE or --json', () => {
    assert.equal(parseArgs(['check', '--follow', 'a', 'b'], ['native']).kind, 'usage-error');
    assert.equal(parseArgs(['check', '--follow', '--json', 'a'], ['native']).kind, 'usage-error');
    const command = parseArgs(['check', '--follow', 'a'], ['native']);
    assert.ok(command.kind === 'check' && command.follow === true);
    assert.deepEqual(command.paths, ['a']);
  });
});
