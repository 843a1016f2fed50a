/** The CLI as a long-running process (proxy, run, check --follow): spawned from source, its output collected. */
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

export interface Spawned {
  readonly child: ChildProcess;
  readonly out: { stdout: string; stderr: string };
}

export function spawnCli(args: readonly string[]): Spawned {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), ...args], { cwd: ROOT, env });
  const out = { stdout: '', stderr: '' };
  child.stdout?.on('data', (c: Buffer) => (out.stdout += c.toString('utf8')));
  child.stderr?.on('data', (c: Buffer) => (out.stderr += c.toString('utf8')));
  return { child, out };
}

/** Waits until `test` returns something for the output so far (generous limit: a busy machine). */
export async function waitFor<T>(spawned: Spawned, test: (out: Spawned['out']) => T | undefined, limitMs = 60_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = test(spawned.out);
    if (value !== undefined) return value;
    if (spawned.child.exitCode !== null) throw new Error(`the CLI exited (${spawned.child.exitCode}): ${spawned.out.stderr}`);
    if (Date.now() - start > limitMs) throw new Error(`timed out; output so far:\n${spawned.out.stdout}\n${spawned.out.stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
