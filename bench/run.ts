/**
 * `npm run bench`: the engine's performance targets (issue 2, "Performance").
 *
 * 1. Generated request logs (~100 MB each, in bench/data/) of growing
 *    Anthropic, OpenAI Chat and OpenAI Responses requests: `prefix-lens check
 *    --json` (the CLI, tokens counted) against streaming the file with
 *    readline and JSON.parse of every line (bench/floor.cjs), both whole
 *    processes: CPU time and peak RSS; the peak live heap against the
 *    largest line.
 * 2. 10k-message windows: `guardRewrite` against the naive set-compare guard
 *    of bench/reference-guard.ts.
 *
 * 3. The live paths (bench/live.ts): proxy overhead per request against calling
 *    the upstream directly, the guard's cost on 10k-message requests, follow
 *    latency; following a growing file (bench/follow.ts): an append read on
 *    its own against the full re-check. `--live-only` runs just these.
 * 4. The inspector webview (bench/webview.ts) and the session view
 *    (bench/session-view.ts), unless `--engine-only`.
 * 5. A 20 MB request log in the real VS Code (bench/vscode.ts, code-server),
 *    unless `--engine-only`: first diagnostics, re-checks after edits,
 *    keystrokes with and without the extension.
 *
 * `--request-log-only` runs just 1, `--guard-only` just 2 (the `guard-10k.*` entries),
 * `--vscode-only` just 5, `--browser-only` 4 and 5.
 *
 * Every engine measurement runs in a fresh child process (bench/measure.ts).
 * Results are merged into bench/results.json (see bench/results.ts) and printed.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { DEFAULT_LOG, generateLog, type GenerateOptions, type GeneratedLog, type LogFormat } from './generate';
import { hostileResults } from './hostile';
import { addResult, formatTable, readResults, removeResults, result, type BenchResult } from './results';

const ROOT = path.resolve(__dirname, '..');
const DATA = path.join(ROOT, 'bench', 'data');
const LOG_FILE = path.join(DATA, 'anthropic-log.jsonl');
const CLI = path.join(ROOT, 'dist', 'cli.js');
/** Timing runs per measurement, at most; the one with the least CPU time counts (the others only lose to noise). */
const TIMING_RUNS = 3;
/** No further timing run once a measurement has used this much time (keeps the bench to a few minutes). */
const TIMING_BUDGET_MS = 20_000;
const MB = 1024 * 1024;
/** Requests of the memory probe's warm-up logs. */
const WARM_UP_REQUESTS = 20;
/** The entries this benchmark owns in bench/results.json (stale ones are dropped on each run). */
const OWN_PREFIXES = ['request-log.', 'guard-10k.', 'live.', 'follow.', 'hostile.'];

type Measured = Record<string, unknown>;

function measure(mode: string, file?: string, flags: string[] = [], more: string[] = []): Measured {
  const args = ['--import', 'tsx', '--max-old-space-size=4096', ...flags, path.join('bench', 'measure.ts'), mode, ...(file ? [file] : []), ...more];
  const out = execFileSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 16 * MB, stdio: ['ignore', 'pipe', 'inherit'] });
  return JSON.parse(out) as Measured;
}

function fastest(mode: string, file: string): Measured {
  let best: Measured | undefined;
  let spent = 0;
  for (let i = 0; i < TIMING_RUNS && spent < TIMING_BUDGET_MS; i++) {
    const run = measure(mode, file);
    spent += run.ms as number;
    if (!best || (run.cpuMs as number) < (best.cpuMs as number)) best = run;
  }
  return best ?? {};
}

/** The full log, and its first half of the requests (same seed: its lines are the full log's first lines). */
const FULL_LOG = { file: LOG_FILE, options: DEFAULT_LOG };
const HALF_LOG = { file: path.join(DATA, 'anthropic-log-half.jsonl'), options: { ...DEFAULT_LOG, requests: Math.round(DEFAULT_LOG.requests / 2) } };

/** A generated log of one format; its entries are named `request-log.<name>.*`. */
interface FormatLog {
  readonly format: LogFormat;
  readonly name: string;
  readonly file: string;
  readonly options: GenerateOptions;
}

/** The logs of each format, ~100 MB each (a Responses request repeats more bytes per turn: fewer requests). */
const FORMAT_LOGS: readonly FormatLog[] = [
  { format: 'anthropic', name: 'anthropic', ...FULL_LOG },
  { format: 'openai-chat', name: 'openai-chat', file: path.join(DATA, 'openai-chat-log.jsonl'), options: { ...DEFAULT_LOG, format: 'openai-chat' } },
  { format: 'openai-responses', name: 'openai-responses', file: path.join(DATA, 'openai-responses-log.jsonl'), options: { ...DEFAULT_LOG, format: 'openai-responses', requests: 700 } },
];

/**
 * The same formats with messages of an agent's size: ~1.5 KB of JSON a message on average (the Claude
 * Code sessions of ../shared/corpus: median 0.6 KB, mean 2 KB; the logs above: ~0.15 KB), 230 requests,
 * ~80 MB each. Fewer, larger messages per byte: the per-message cost weighs less, the new text each
 * request adds (parsed, its tokens counted) more.
 */
const AGENT_LOGS: readonly FormatLog[] = FORMAT_LOGS.map((log) => ({
  format: log.format,
  name: `${log.format}-agent-sized`,
  file: path.join(DATA, `${log.format}-agent-log.jsonl`),
  options: { requests: 230, bytesPerTurn: 3000, seed: 42, format: log.format },
}));

/**
 * The memory probe's warm-up logs of a format, checked before the heap in use
 * is taken (bench/memory-probe.ts), never the file measured: the log's first
 * 20 requests (lines of 4-8 KB: short windows), and 20 requests of another
 * seed whose first already holds the history of the log's request 830 (680
 * for Responses): windows as long as the file's last ones, so that the code
 * V8 compiles for long windows is in the constant.
 */
function warmUpLogs(log: FormatLog): { file: string; options: GenerateOptions }[] {
  const long = { ...log.options, seed: log.options.seed + 1, history: log.options.requests - WARM_UP_REQUESTS, requests: WARM_UP_REQUESTS };
  return [
    { file: log.file.replace(/\.jsonl$/, '-warm-up.jsonl'), options: { ...log.options, requests: WARM_UP_REQUESTS } },
    { file: log.file.replace(/\.jsonl$/, '-warm-up-long.jsonl'), options: long },
  ];
}

/** A log, regenerated only when missing or generated with other options. */
function ensureLog(log: { file: string; options: GenerateOptions }): GeneratedLog {
  const factsFile = log.file.replace(/\.jsonl$/, '.facts.json');
  try {
    const facts = JSON.parse(fs.readFileSync(factsFile, 'utf8')) as GeneratedLog & { options: unknown };
    if (JSON.stringify(facts.options) === JSON.stringify(log.options) && fs.statSync(log.file).size === facts.bytes) return facts;
  } catch {
    // missing or stale: generate below
  }
  process.stdout.write(`generating ${path.relative(ROOT, log.file)} …\n`);
  const facts = generateLog(log.file, log.options);
  fs.writeFileSync(factsFile, JSON.stringify({ ...facts, options: log.options }));
  return facts;
}

/**
 * Linear in total bytes: the check's CPU time per MB on the full log against
 * the same on its first half of the requests (a quarter of the bytes). About 1
 * when linear; a per-step cost growing with the history shows up above 1.
 */
function linearityResult(full: GeneratedLog): BenchResult {
  const half = ensureLog(HALF_LOG);
  const fullCheck = fastest('check', LOG_FILE);
  const halfCheck = fastest('check', HALF_LOG.file);
  const perMb = (m: Measured, log: GeneratedLog) => (m.cpuMs as number) / (log.bytes / MB);
  return result('request-log.anthropic.check-time-per-mb-full-vs-half', perMb(fullCheck, full), 'ms/MB', perMb(halfCheck, half));
}

interface ProcessUsage {
  readonly cpuMs: number;
  readonly peakRss: number;
  readonly wallMs: number;
}

/** A whole node process (`args` after `node`), stdout discarded: its CPU time and peak RSS (bench/exit-usage.cjs), wall time. */
function processUsage(args: readonly string[]): ProcessUsage {
  const file = path.join(DATA, `usage-${process.pid}.json`);
  const started = performance.now();
  execFileSync(process.execPath, ['--require', path.join(ROOT, 'bench', 'exit-usage.cjs'), ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, PL_BENCH_USAGE: file } });
  const wallMs = performance.now() - started;
  const usage = JSON.parse(fs.readFileSync(file, 'utf8')) as { cpuMs: number; peakRss: number };
  fs.rmSync(file, { force: true });
  return { ...usage, wallMs };
}

/** The least CPU time of up to TIMING_RUNS runs, and the least peak RSS (the others only lose to noise). */
function bestOf(args: readonly string[]): ProcessUsage {
  const runs: ProcessUsage[] = [];
  let spent = 0;
  for (let i = 0; i < TIMING_RUNS && spent < TIMING_BUDGET_MS; i++) {
    const run = processUsage(args);
    runs.push(run);
    spent += run.wallMs;
  }
  const least = (key: keyof ProcessUsage) => Math.min(...runs.map((r) => r[key]));
  return { cpuMs: least('cpuMs'), peakRss: least('peakRss'), wallMs: least('wallMs') };
}

/** One format's log: the CLI against the readline + JSON.parse floor (both whole processes), and the live heap against the largest line. */
function formatResults(log: FormatLog): BenchResult[] {
  const facts = ensureLog(log);
  const floor = bestOf([path.join(ROOT, 'bench', 'floor.cjs'), log.file]);
  const cli = bestOf([CLI, 'check', '--json', log.file]);
  const check = measure('check', log.file);
  const memory = measure('memory', log.file, ['--expose-gc'], warmUpLogs(log).map((warmUp) => ensureLog(warmUp).file));
  process.stdout.write(
    `${log.name} log: ${facts.lines} requests, ${(facts.bytes / MB).toFixed(1)} MB, largest line ${(facts.largestLineBytes / 1024).toFixed(0)} KiB, ` +
      `${facts.toolPairs} tool pairs; engine: format ${String(check.format)}, ${String(check.steps)} steps ${JSON.stringify(check.decisions)}, ${String(check.findings)} findings\n`,
  );
  const name = `request-log.${log.name}`;
  const largestMb = (memory.largestLine as number) / MB;
  return [
    result(`${name}.size`, facts.bytes / MB, 'MB'),
    result(`${name}.cli-cpu`, cli.cpuMs, 'ms', floor.cpuMs),
    result(`${name}.cli-wall`, cli.wallMs, 'ms', floor.wallMs),
    result(`${name}.cli-peak-rss`, cli.peakRss / MB, 'MB', floor.peakRss / MB),
    result(`${name}.peak-live-heap`, (memory.peakHeap as number) / MB, 'MB', largestMb),
    result(`${name}.live-heap-constant`, (memory.constantHeap as number) / MB, 'MB'),
    result(`${name}.peak-external`, (memory.peakExternal as number) / MB, 'MB', largestMb),
    result(`${name}.peak-live-heap-with-constant`, ((memory.peakHeap as number) + (memory.constantHeap as number)) / MB, 'MB', largestMb),
  ];
}

function requestLogResults(): BenchResult[] {
  return [...FORMAT_LOGS.flatMap(formatResults), linearityResult(ensureLog(FULL_LOG)), ...AGENT_LOGS.flatMap(formatResults)];
}

interface GuardTiming {
  expected: string;
  guardDecision: string;
  statelessDecision: string;
  referenceDecision: string;
  guardMs: number;
  statelessMs: number;
  referenceMs: number;
}

function guardResults(): BenchResult[] {
  const timings = measure('guard') as Record<string, GuardTiming>;
  return Object.entries(timings).flatMap(([name, t]) => {
    process.stdout.write(`guard ${name}: expected ${t.expected}, guard ${t.guardDecision}, guardRewrite ${t.statelessDecision}, seed ${t.referenceDecision}\n`);
    return [result(`guard-10k.${name}`, t.guardMs, 'ms', t.referenceMs), result(`guard-10k.stateless.${name}`, t.statelessMs, 'ms', t.referenceMs)];
  });
}

/** The live paths' numbers (bench/live.ts, then bench/follow.ts, each in a child process of its own). */
function liveResults(): BenchResult[] {
  return ['live.ts', 'follow.ts'].flatMap((script) => {
    const args = ['--expose-gc', '--import', 'tsx', '--max-old-space-size=4096', path.join('bench', script)];
    const out = execFileSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 16 * MB, stdio: ['ignore', 'pipe', 'inherit'] });
    return JSON.parse(out) as BenchResult[];
  });
}

/**
 * A benchmark in headless Chromium (and code-server): its entries replace those under `prefix`;
 * where it cannot run here (no browser, no code-server, a scenario that failed), a note says why.
 */
async function browserBench(what: string, prefix: string, run: () => Promise<BenchResult[]>): Promise<void> {
  try {
    const entries = await run();
    removeResults([prefix]);
    addResult(entries);
  } catch (error) {
    process.stdout.write(`${what} bench not run: ${(error as Error).message.split('\n')[0]}\n`);
  }
}

/** The inspector's and the session view's numbers (bench/webview.ts, bench/session-view.ts). */
async function webviewResults(): Promise<void> {
  await browserBench('inspector', 'inspector.', async () => (await import('./webview')).benchWebview());
  await browserBench('session view', 'session-view.', async () => (await import('./session-view')).benchSessionView());
}

/** The 20 MB log in the real VS Code (bench/vscode.ts). */
const vscodeResults = () => browserBench('VS Code', 'vscode.', async () => (await import('./vscode')).benchVscode());

/** Replaces the entries under `prefixes` with `entries` and prints them. */
function refreshOnly(prefixes: readonly string[], entries: BenchResult[]): void {
  removeResults(prefixes);
  addResult(entries);
  process.stdout.write(`\n${formatTable(readResults().filter((e) => prefixes.some((p) => e.name.startsWith(p))))}\n`);
}

async function main(): Promise<void> {
  const started = Date.now();
  const only: [string, readonly string[], () => BenchResult[]][] = [
    ['--live-only', ['live.', 'follow.'], liveResults],
    ['--request-log-only', ['request-log.'], requestLogResults],
    ['--guard-only', ['guard-10k.'], guardResults],
  ];
  const chosen = only.find(([flag]) => process.argv.includes(flag));
  if (chosen) return refreshOnly(chosen[1], chosen[2]());
  const browserOnly: [string, readonly string[], () => Promise<void>][] = [
    ['--vscode-only', ['vscode.'], vscodeResults],
    [
      '--browser-only',
      ['inspector.', 'session-view.', 'vscode.'],
      async () => {
        await webviewResults();
        await vscodeResults();
      },
    ],
  ];
  const browser = browserOnly.find(([flag]) => process.argv.includes(flag));
  if (browser) {
    await browser[2]();
    return void process.stdout.write(`\n${formatTable(readResults().filter((e) => browser[1].some((p) => e.name.startsWith(p))))}\n`);
  }
  const entries = [...requestLogResults(), ...guardResults(), ...liveResults(), ...hostileResults(process.argv.includes('--quick'))];
  removeResults(OWN_PREFIXES);
  addResult(entries);
  if (!process.argv.includes('--engine-only')) {
    await webviewResults();
    await vscodeResults();
  }
  process.stdout.write(`\n${formatTable(readResults())}\n\nwrote bench/results.json in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
}

void main();
