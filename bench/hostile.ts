/**
 * Issue 11 in `npm run bench`: memory per tool call and per finding on
 * generated traces (20k calls sharing one id; 20k calls with distinct ids and
 * results), against the input's own bytes per call; the target shape
 * (a native trace of tool calls sharing one id, ~36 bytes a call: 4×10^5
 * calls, and the full 4×10^6 calls / ~140 MB unless `--quick`); and token counting on
 * pathological texts (letters with no space, Thai, CJK, DNA, spaces, braces,
 * alternating ASCII and non-ASCII punctuation)
 * against counting prose of the same length. Each measured in a child process.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { result, type BenchResult } from './results';

const ROOT = path.resolve(__dirname, '..');
const DATA = path.join(ROOT, 'bench', 'data');
const CALLS = 20_000;
const PER_LINE = 100;

/** The target: a 140 MB log of 4×10^6 calls checks within 1 GB. */
const TARGET_CALLS = 4_000_000;
const TARGET_RSS = 1024 * 1048576;
const SCALED_CALLS = 400_000;
const CALLS_PER_TARGET_LINE = 1000;

/** The V8 old-space cap of the capped full-size run (`node --max-old-space-size=800`). */
const CAPPED_OLD_SPACE_MB = 800;

function measure(mode: string, file?: string, oldSpaceMb = 4096): Record<string, number> {
  const args = ['--import', 'tsx', '--expose-gc', `--max-old-space-size=${oldSpaceMb}`, path.join('bench', 'measure.ts'), mode, ...(file ? [file] : [])];
  return JSON.parse(execFileSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })) as Record<string, number>;
}

/** A native trace of CALLS tool calls, PER_LINE per append line; `sameId` gives them all one id. */
function generateCalls(file: string, sameId: boolean): number {
  const out = fs.openSync(file, 'w');
  fs.writeSync(out, '{"type":"prefix-lens/trace","version":1}\n{"type":"window","tools":[{"name":"t"}],"messages":[{"role":"user","content":"go"}],"boundary":1}\n');
  for (let line = 0; line < CALLS / PER_LINE; line++) {
    const messages = [];
    for (let i = 0; i < PER_LINE; i++) {
      const id = sameId ? 'same' : `c${line * PER_LINE + i}`;
      messages.push({ role: 'assistant', tool_calls: [{ id, name: 't', input: {} }] }, { role: 'tool', tool_call_id: id, content: 'ok' });
    }
    fs.writeSync(out, `${JSON.stringify({ type: 'append', messages })}\n`);
  }
  fs.closeSync(out);
  return fs.statSync(file).size;
}

/**
 * The target's shape: a native trace whose append lines each hold one
 * assistant message of 1,000 calls `{"id":"same","name":"t","input":{}}`
 * (about 36 bytes a call, as the 140 MB of 4×10^6 calls), no results.
 */
function generateTarget(file: string, calls: number): number {
  const out = fs.openSync(file, 'w');
  fs.writeSync(out, '{"type":"prefix-lens/trace","version":1}\n{"type":"window","tools":[{"name":"t"}],"messages":[{"role":"user","content":"go"}],"boundary":1}\n');
  const call = '{"id":"same","name":"t","input":{}}';
  const line = `{"type":"append","messages":[{"role":"assistant","tool_calls":[${Array.from({ length: CALLS_PER_TARGET_LINE }, () => call).join(',')}]}]}\n`;
  for (let n = 0; n < calls; n += CALLS_PER_TARGET_LINE) fs.writeSync(out, line);
  fs.closeSync(out);
  return fs.statSync(file).size;
}

/**
 * The target shape scaled to 4×10^5 calls (live heap sampled per line, and
 * peak RSS, per call against the input's bytes per call), then at full size
 * (peak RSS of a plain check against 1 GiB) unless `quick`.
 */
function targetResults(quick: boolean): BenchResult[] {
  const out: BenchResult[] = [];
  const scaled = path.join(DATA, 'target-scaled.trace.jsonl');
  const scaledBytes = generateTarget(scaled, SCALED_CALLS);
  const memory = measure('memory', scaled);
  const rss = measure('rss', scaled);
  fs.rmSync(scaled);
  process.stdout.write(`target shape scaled: ${SCALED_CALLS} calls, ${(scaledBytes / 1048576).toFixed(1)} MB, peak RSS ${((rss.peakRss ?? 0) / 1048576).toFixed(0)} MB, ${rss.findings} findings listed + ${rss.omitted} counted\n`);
  out.push(result('hostile.target-scaled.heap-per-call', (memory.peakHeap ?? 0) / SCALED_CALLS, 'bytes', scaledBytes / SCALED_CALLS));
  out.push(result('hostile.target-scaled.rss-growth-per-call', (rss.peakRssGrowth ?? 0) / SCALED_CALLS, 'bytes', scaledBytes / SCALED_CALLS));
  if (quick) return out;
  const full = path.join(DATA, 'target-full.trace.jsonl');
  const fullBytes = generateTarget(full, TARGET_CALLS);
  const fullRss = measure('rss', full);
  const capped = measure('rss', full, CAPPED_OLD_SPACE_MB);
  fs.rmSync(full);
  const mb = (bytes: number | undefined) => ((bytes ?? 0) / 1048576).toFixed(0);
  process.stdout.write(
    `target shape full: ${TARGET_CALLS} calls, ${(fullBytes / 1048576).toFixed(1)} MB, peak RSS ${mb(fullRss.peakRss)} MB in ${((fullRss.ms ?? 0) / 1000).toFixed(1)} s ` +
      `(old space capped at ${CAPPED_OLD_SPACE_MB} MB: ${mb(capped.peakRss)} MB in ${((capped.ms ?? 0) / 1000).toFixed(1)} s), ${fullRss.findings} findings listed + ${fullRss.omitted} counted\n`,
  );
  out.push(result('hostile.target-full.peak-rss', (fullRss.peakRss ?? 0) / 1048576, 'MB', TARGET_RSS / 1048576));
  out.push(result('hostile.target-full.rss-per-call', (fullRss.peakRss ?? 0) / TARGET_CALLS, 'bytes', fullBytes / TARGET_CALLS));
  out.push(result('hostile.target-full.peak-rss-capped', (capped.peakRss ?? 0) / 1048576, 'MB', TARGET_RSS / 1048576));
  return out;
}

export function hostileResults(quick = false): BenchResult[] {
  fs.mkdirSync(DATA, { recursive: true });
  const out: BenchResult[] = [];
  for (const [name, sameId] of [['same-id', true], ['distinct-ids', false]] as const) {
    const file = path.join(DATA, `calls-${name}.trace.jsonl`);
    const bytes = generateCalls(file, sameId);
    const memory = measure('memory', file);
    const check = measure('check', file);
    process.stdout.write(`calls ${name}: ${CALLS} calls, ${(bytes / 1048576).toFixed(1)} MB, ${check.findings} findings listed\n`);
    out.push(result(`hostile.heap-per-call.${name}`, (memory.peakHeap ?? 0) / CALLS, 'bytes', bytes / CALLS));
    out.push(result(`hostile.rss-growth-per-call.${name}`, (memory.peakRssGrowth ?? 0) / CALLS, 'bytes', bytes / CALLS));
  }
  out.push(...targetResults(quick));
  const tokens = measure('tokens');
  for (const [name, ms] of Object.entries(tokens)) if (name !== 'prose') out.push(result(`hostile.tokens-64k.${name}`, ms, 'ms', tokens.prose ?? null));
  return out;
}
