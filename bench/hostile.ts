/**
 * Issue 11 in `npm run bench`: memory per tool call and per finding on
 * generated traces (20k calls sharing one id; 20k calls with distinct ids and
 * results), against the input's own bytes per call; and token counting on
 * pathological texts (letters with no space, Thai, CJK, DNA, spaces, braces)
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

function measure(mode: string, file?: string): Record<string, number> {
  const args = ['--import', 'tsx', '--expose-gc', '--max-old-space-size=4096', path.join('bench', 'measure.ts'), mode, ...(file ? [file] : [])];
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

export function hostileResults(): BenchResult[] {
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
  const tokens = measure('tokens');
  for (const [name, ms] of Object.entries(tokens)) if (name !== 'prose') out.push(result(`hostile.tokens-64k.${name}`, ms, 'ms', tokens.prose ?? null));
  return out;
}
