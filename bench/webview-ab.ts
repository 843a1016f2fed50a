/**
 * The inspector's two append steps, this build against another in the same run (issue 14): two
 * worktrees' shipped bundles (each built first as bench/webview.ts builds its own), one page each,
 * stepped in turn so both see the same load. Per round and build: the append after the compaction
 * (1 → 2) and the next append (2 → 3) traced for their main-thread CPU (bench/webview.ts `stepWork`),
 * then the same two steps untraced for the painted wall time. Prints medians and how many painted
 * steps took ≤ 16 ms; writes no results (bench/README.md keeps what it measured).
 *
 * Usage: `node --import tsx bench/webview-ab.ts <other worktree> [rounds]` (a worktree of this
 * repository at the build to compare, with node_modules), under the heavy lock.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { largeReport } from '../test/fixtures/inspector/reports';
import { fixtureOf, ROOT, startHarness } from '../test/webview/harness';
import { load, opening, stepChange, stepWork } from './webview';

interface Side {
  readonly name: string;
  readonly start: typeof startHarness;
  readonly root: string;
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

async function main(other: string, rounds: number): Promise<void> {
  const sides: Side[] = [
    { name: other, start: ((await import(join(other, 'test/webview/harness'))) as { startHarness: typeof startHarness }).startHarness, root: other },
    { name: 'this build', start: startHarness, root: ROOT },
  ];
  for (const side of sides) execFileSync(process.execPath, ['esbuild.js', '--production'], { cwd: side.root, stdio: 'inherit' });
  const fixture = opening(fixtureOf(largeReport(10_000)));
  const harnesses = await Promise.all(sides.map((s) => s.start()));
  try {
    const pages = await Promise.all(harnesses.map(async (h) => (await load(h, fixture)).page));
    const times = sides.map(() => ({ jumpCpu: [] as number[], appendCpu: [] as number[], jumpPaint: [] as number[], appendPaint: [] as number[] }));
    // Round 0 warms both pages up and is not counted.
    for (let round = 0; round <= rounds; round++) {
      for (const [i, page] of pages.entries()) {
        const t = times[i]!;
        const jumpCpu = await stepWork(harnesses[i]!, page, ']', 2);
        const appendCpu = await stepWork(harnesses[i]!, page, ']', 3);
        await stepChange(page, '[', 2);
        await stepChange(page, '[', 1);
        const jumpPaint = (await stepChange(page, ']', 2)).paint;
        const appendPaint = (await stepChange(page, ']', 3)).paint;
        await stepChange(page, '[', 2);
        await stepChange(page, '[', 1);
        if (round === 0) continue;
        t.jumpCpu.push(jumpCpu);
        t.appendCpu.push(appendCpu);
        t.jumpPaint.push(jumpPaint);
        t.appendPaint.push(appendPaint);
      }
    }
    for (const [i, side] of sides.entries()) {
      const t = times[i]!;
      for (const [step, cpu, paint] of [['append after the compaction (1 → 2)', t.jumpCpu, t.jumpPaint], ['append (2 → 3)', t.appendCpu, t.appendPaint]] as const) {
        const met = paint.filter((p) => p <= 16).length;
        console.log(`${side.name}: ${step}: CPU median ${median(cpu).toFixed(1)} ms (min ${Math.min(...cpu).toFixed(1)}), painted median ${median(paint).toFixed(1)} ms (min ${Math.min(...paint).toFixed(1)}; ≤ 16 ms in ${met} of ${paint.length})`);
      }
    }
  } finally {
    await Promise.all(harnesses.map((h) => h.close()));
  }
}

const [other, rounds = '20'] = process.argv.slice(2);
if (!other) throw new Error('usage: node --import tsx bench/webview-ab.ts <other worktree> [rounds]');
void main(other, Number(rounds));
