/**
 * One measurement, run in a fresh child process by bench/run.ts so that heaps
 * and JIT state do not leak between measurements. Prints one JSON object.
 *
 *   node --import tsx bench/measure.ts parse  FILE   read the lines, JSON.parse each
 *   node --import tsx bench/measure.ts read   FILE   read the lines only
 *   node --import tsx bench/measure.ts check  FILE   checkTranscript (tokens counted, the CLI's default)
 *   node --import tsx --expose-gc bench/measure.ts memory FILE [WARM_UP...]   (tokens counted; WARM_UP: logs checked before)
 *   node --import tsx bench/measure.ts rss    FILE   checkTranscript (tokens off), peak RSS only
 *   node --import tsx bench/measure.ts guard
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createTokenCounter } from '../src/core/tokens';
import { checkTranscript } from '../src/core/check';
import { createGuard, guardRewrite } from '../src/core/guard';
import { inputFromFile } from '../src/core/io';
import { peakLiveHeap } from './memory-probe';
import { referenceGuard } from './reference-guard';
import { guardScenarios } from './windows';

type Output = Record<string, unknown>;

/** CPU time (user + system, all threads of this process) since `start`, in ms. */
function cpuMs(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

function timeRead(file: string, parse: boolean): Output {
  const cpu = process.cpuUsage();
  const start = performance.now();
  let lines = 0;
  let parsed = 0;
  for (const line of inputFromFile(file).lines()) {
    lines++;
    if (parse && line.text.length > 0) {
      JSON.parse(line.text);
      parsed++;
    }
  }
  return { ms: performance.now() - start, cpuMs: cpuMs(cpu), lines, parsed };
}

function timeCheck(file: string): Output {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const report = checkTranscript(inputFromFile(file));
  const ms = performance.now() - start;
  const cpuUsed = cpuMs(cpu);
  const decisions: Record<string, number> = {};
  for (const step of report.steps) decisions[step.decision] = (decisions[step.decision] ?? 0) + 1;
  return { ms, cpuMs: cpuUsed, format: report.format, steps: report.steps.length, decisions, findings: report.findings.length };
}

/** The bench's memory probe (`peakLiveHeap`, memory-probe.ts) on `file`, with the peak RSS's growth over the RSS before the check. */
function measureMemory(file: string, warmUp: readonly string[]): Output {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  const { peakHeap, peakExternal, constantHeap, largestLine, rssBefore, report } = peakLiveHeap(file, gc, undefined, warmUp);
  const maxRssBytes = process.resourceUsage().maxRSS * 1024;
  return { peakHeap, peakExternal, constantHeap, largestLine, peakRssGrowth: maxRssBytes - rssBefore, steps: report.steps.length };
}

/**
 * Peak RSS of a plain check (no GC forced, no sampling: what a CLI run needs),
 * in total and over the RSS just before it, with the report's counts.
 */
function measureRss(file: string): Output {
  const baseRss = process.memoryUsage().rss;
  const start = performance.now();
  const report = checkTranscript(inputFromFile(file), { tokens: false });
  const ms = performance.now() - start;
  const peakRss = process.resourceUsage().maxRSS * 1024;
  const omitted = Object.values(report.omitted ?? {}).reduce((n, k) => n + k, 0);
  return { ms, peakRss, peakRssGrowth: peakRss - baseRss, findings: report.findings.length, omitted, stopped: report.stopped?.reason ?? null };
}

/** Median CPU time of `runs` calls, after `warmup` calls. */
function medianMs(fn: () => unknown, runs: number, warmup = 2): number {
  for (let i = 0; i < warmup; i++) fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.cpuUsage();
    fn();
    times.push(cpuMs(start));
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? 0;
}

/**
 * Per scenario: a guard made on the window (`createGuard`, outside the timing)
 * checking the proposal, stateless `guardRewrite`, and the seed's guard, all
 * on the same plain objects, each the median of 21 calls after 2 warm-ups.
 */
function timeGuards(): Output {
  const out: Output = {};
  for (const scenario of guardScenarios()) {
    const guard = createGuard(scenario.before);
    out[scenario.name] = {
      expected: scenario.expected,
      guardDecision: guard.check(scenario.after).decision,
      statelessDecision: guardRewrite(scenario.before, scenario.after).decision,
      referenceDecision: referenceGuard(scenario.before, scenario.after).decision,
      guardMs: medianMs(() => guard.check(scenario.after), 21),
      statelessMs: medianMs(() => guardRewrite(scenario.before, scenario.after), 21),
      referenceMs: medianMs(() => referenceGuard(scenario.before, scenario.after), 21),
    };
  }
  return out;
}

/** CPU ms to count tokens in 64 Ki characters of prose and of pathological texts (a fresh counter each, encoder warm). */
function timeTokens(): Output {
  const prose = fs.readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8');
  const fill = (unit: string) => unit.repeat(Math.ceil(65536 / unit.length)).slice(0, 65536);
  const texts: Record<string, string> = {
    prose: fill(prose),
    letters: fill('a'),
    thai: fill('กขฃคฅฆงจฉชซฌญฎฏ'),
    cjk: fill('文字漢語中国日本'),
    acgt: fill('ACGT'),
    spaces: fill(' '),
    braces: fill('{'),
    punctuation: fill('!、'),
  };
  createTokenCounter('o200k_base').count('warm up');
  const out: Output = {};
  for (const [name, text] of Object.entries(texts)) out[name] = medianMs(() => createTokenCounter('o200k_base').count(text), 3, 1);
  return out;
}

function run(mode: string | undefined, file: string | undefined): Output {
  if (mode === 'guard') return timeGuards();
  if (mode === 'tokens') return timeTokens();
  if (!file) throw new Error(`${mode}: FILE missing`);
  if (mode === 'read') return timeRead(file, false);
  if (mode === 'parse') return timeRead(file, true);
  if (mode === 'check') return timeCheck(file);
  if (mode === 'memory') return measureMemory(file, process.argv.slice(4));
  if (mode === 'rss') return measureRss(file);
  throw new Error(`unknown mode ${mode}`);
}

process.stdout.write(`${JSON.stringify(run(process.argv[2], process.argv[3]))}\n`);
