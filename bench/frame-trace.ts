/**
 * Where the inspector's two append steps spend the main thread (issue 14), a diagnostic run by hand,
 * not part of `npm run bench`: the shipped bundle, the bench's 10k-message window, each round the
 * append after the compaction (1 → 2) and the next append (2 → 3) traced as `bench/webview.ts`
 * `stepWork` counts them, split by phase: the message's task, the tasks between it and the frame
 * (the bench's key release, which first restyles and lays out what the message task changed), and
 * the frame's animation-frame script (Monaco's render), style, layout, pre-paint, paint, layerize and
 * commit. Prints each phase's median over the rounds, and how many steps were the one laid out ahead
 * (webview/diff-stack.ts: shown by a swap); with `--detail`, the step's style and
 * layout passes (elements restyled, layout objects dirty of all) and the selectors that cost the
 * most in its style recalcs, from the warm-up round (not counted) (Chromium's selector statistics, which slow style ~10x: timings off).
 *
 * Usage: `node --import tsx bench/frame-trace.ts [rounds] [--detail]`, under the heavy lock.
 */
import { execFileSync } from 'node:child_process';
import type { Page } from 'playwright-core';
import { largeReport } from '../test/fixtures/inspector/reports';
import { fixtureOf, type Harness, ROOT, startHarness } from '../test/webview/harness';
import { TRACE_CATEGORIES, type TraceEvent, traceEvents } from './trace';
import { load, opening, stepChange, stepTasks } from './webview';

/** Chromium's selector statistics in style recalcs (DevTools' "Enable CSS selector stats"). */
const SELECTOR_STATS = 'disabled-by-default-blink.debug';

/** Each phase's trace event names in the frame's task. */
const FRAME_PHASES: Record<string, readonly string[]> = {
  'frame: animation-frame script': ['FireAnimationFrame'],
  'frame: style': ['UpdateLayoutTree'],
  'frame: layout': ['Layout'],
  'frame: pre-paint': ['PrePaint'],
  'frame: paint': ['Paint'],
  'frame: layerize + commit': ['Layerize', 'Commit'],
};

const time = (e: TraceEvent) => (e.tdur ?? e.dur ?? 0) / 1000;
const inside = (outer: TraceEvent, e: TraceEvent) => e !== outer && e.ts >= outer.ts && e.ts + (e.dur ?? 0) <= outer.ts + (outer.dur ?? 0);

/** A traced `]` to step `want`: its trace, and whether the step was the one laid out ahead (shown by the swap). */
async function traced(harness: Harness, page: Page, want: number, detail: boolean): Promise<{ events: TraceEvent[]; swapped: boolean }> {
  await harness.browser.startTracing(page, { categories: detail ? [...TRACE_CATEGORIES, SELECTOR_STATS] : TRACE_CATEGORIES });
  const { swapped } = await stepChange(page, ']', want);
  return { events: traceEvents(await harness.browser.stopTracing()), swapped };
}

/** The step's CPU time (ms) by phase; a phase's nested events of the same name (Paint in Paint) count once. */
function phases(events: readonly TraceEvent[]): Map<string, number> {
  const { counted, frame, onMain } = stepTasks(events);
  const result = new Map<string, number>([['total', counted.reduce((sum, t) => sum + time(t), 0)]]);
  const add = (phase: string, ms: number) => result.set(phase, (result.get(phase) ?? 0) + ms);
  for (const task of counted) add(task === counted[0] ? 'message task' : task === frame ? 'frame' : 'tasks between', time(task));
  const inFrame = events.filter((e) => e.ph === 'X' && onMain(e) && inside(frame, e));
  for (const [phase, names] of Object.entries(FRAME_PHASES)) {
    const own = inFrame.filter((e) => names.includes(e.name));
    for (const e of own) if (!own.some((o) => inside(o, e))) add(phase, time(e));
  }
  return result;
}

/** The step's style and layout passes, and its style recalcs' costliest selectors (with `--detail`). */
function detailOf(events: readonly TraceEvent[]): string[] {
  const { counted, onMain } = stepTasks(events);
  const inStep = events.filter((e) => e.ph === 'X' && onMain(e) && counted.some((t) => t === e || inside(t, e)));
  const lines: string[] = [];
  for (const e of inStep) {
    const data = (e.args?.beginData ?? {}) as Record<string, unknown>;
    if (e.name === 'UpdateLayoutTree') lines.push(`style recalc: ${String(e.args?.elementCount)} elements`);
    if (e.name === 'Layout') lines.push(`layout: ${String(data.dirtyObjects)} of ${String(data.totalObjects)} objects dirty, partial ${String(data.partialLayout)}`);
  }
  const timings = new Map<string, { us: number; attempts: number; matches: number }>();
  for (const e of events.filter((x) => x.name === 'SelectorStats')) {
    const stats = (e.args?.selector_stats as { selector_timings?: Record<string, number | string>[] } | undefined)?.selector_timings ?? [];
    for (const s of stats) {
      const t = timings.get(String(s.selector)) ?? { us: 0, attempts: 0, matches: 0 };
      timings.set(String(s.selector), { us: t.us + Number(s['elapsed (us)']), attempts: t.attempts + Number(s.match_attempts), matches: t.matches + Number(s.match_count) });
    }
  }
  const all = [...timings.values()];
  if (all.length) lines.push(`selectors: ${timings.size} tried, ${all.reduce((s, t) => s + t.attempts, 0)} match attempts, ${all.reduce((s, t) => s + t.us, 0)} µs (instrumented)`);
  for (const [selector, t] of [...timings].sort((a, b) => b[1].us - a[1].us).slice(0, 12)) lines.push(`  ${t.us} µs, ${t.attempts} attempts, ${t.matches} matches: ${selector.slice(0, 100)}`);
  return lines;
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

async function main(rounds: number, detail: boolean): Promise<void> {
  execFileSync(process.execPath, ['esbuild.js', '--production'], { cwd: ROOT, stdio: 'inherit' });
  const harness = await startHarness();
  try {
    const { page } = await load(harness, opening(fixtureOf(largeReport(10_000))));
    const steps = { 'append after the compaction (1 → 2)': 2, 'append (2 → 3)': 3 } as const;
    const byStep = new Map<string, Map<string, number[]>>();
    const swaps = new Map<string, number>();
    // Round 0 warms the page up and is not counted.
    for (let round = 0; round <= rounds; round++) {
      for (const [step, want] of Object.entries(steps)) {
        // The warm-up round gives the detail (selector statistics slow its style recalcs).
        const { events, swapped } = await traced(harness, page, want, detail && round === 0);
        if (detail && round === 0) console.log(`${step}, the warm-up round:\n${detailOf(events).join('\n')}\n`);
        if (round === 0) continue;
        const medians = byStep.get(step) ?? byStep.set(step, new Map()).get(step)!;
        for (const [phase, ms] of phases(events)) (medians.get(phase) ?? medians.set(phase, []).get(phase)!).push(ms);
        swaps.set(step, (swaps.get(step) ?? 0) + Number(swapped));
      }
      await stepChange(page, '[', 2);
      await stepChange(page, '[', 1);
    }
    for (const [step, medians] of byStep) {
      console.log(`${step}: medians of ${rounds} traced steps (main-thread CPU, ms); ${swaps.get(step) ?? 0} shown by the swap (laid out ahead)`);
      for (const [phase, values] of medians) console.log(`  ${phase.padEnd(30)} ${median(values).toFixed(2)}`);
    }
  } finally {
    await harness.close();
  }
}

const args = process.argv.slice(2);
void main(Number(args.find((a) => /^\d+$/.test(a)) ?? 15), args.includes('--detail'));
