/**
 * What a request log's check keeps alive between lines (issue 12, "bounded
 * memory"), measured by the bench's own probe (bench/memory-probe.ts): the V8 heap in
 * use after a full GC, before each line is handed to the engine, over the heap
 * in use before the check. The logs here are made of long texts, so what is
 * kept per message beyond its own strings is small beside them, and the bounds
 * (in multiples of the largest line, with a margin of a third of a line or
 * more) fail when a copy of the history is kept: renders or token-count keys
 * of every carried message, or a line's text chain of twice its line.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { peakLiveHeap } from '../../bench/memory-probe';
import { chainPeakOf, prose } from './chain-peak';
import type { Message } from '../../src/core/model';
import { RenderCache, renderMessage } from '../../src/core/render';
import { createTokenCounter } from '../../src/core/tokens';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

function heapUsed(): number {
  gc();
  return process.memoryUsage().heapUsed;
}

/** An Anthropic request log: each request repeats the history, adds the last response and a user turn of `chars` characters (texts of their own for each `seed`). */
function anthropicLog(requests: number, chars: number, seed = 0): string {
  const messages: unknown[] = [];
  const lines: string[] = [];
  for (let n = 0; n < requests; n++) {
    messages.push({ role: 'user', content: [{ type: 'text', text: prose(2 * n + seed, chars) }] });
    const response = { role: 'assistant', content: [{ type: 'text', text: prose(2 * n + 1 + seed, chars) }] };
    lines.push(JSON.stringify({ request: { model: 'claude-x', max_tokens: 64, messages }, response: { ...response, type: 'message', usage: { input_tokens: 10, output_tokens: 5 } } }));
    messages.push(response);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The probe on `anthropicLog(requests, chars)`, warmed up as the bench warms up (the constant: compiled code, the
 * modules' state) on a log of 10 short requests and, unless `long` is false, on one of long windows: 12 requests of
 * 100 K characters a turn, texts of their own (never the file measured).
 */
function probeLog(dir: string, requests: number, chars: number, long = true): { ratio: number; largestLine: number; bytes: number; peak: number; constant: number; findings: number } {
  const file = path.join(dir, `log-${requests}.jsonl`);
  const warmUps = [path.join(dir, 'warm-up.jsonl'), ...(long ? [path.join(dir, 'warm-up-long.jsonl')] : [])];
  fs.writeFileSync(file, anthropicLog(requests, chars));
  fs.writeFileSync(warmUps[0] as string, anthropicLog(10, 2_000, 1_000));
  if (long) fs.writeFileSync(warmUps[1] as string, anthropicLog(12, 100_000, 2_000));
  const { peakHeap: peak, constantHeap: constant, largestLine, report } = peakLiveHeap(file, gc, { format: 'anthropic' }, warmUps);
  return { ratio: peak / largestLine, largestLine, bytes: fs.statSync(file).size, peak, constant, findings: report.findings.length };
}

test("a request log of long texts: the live heap between lines stays under 3 times its largest line (no render, token-count key or line text of the history kept), and twice the lines with the same largest line keep the same ratio", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pl-heap-'));
  try {
    // 12 requests, 200 KB a turn: the last line ~2.4 MB, the file ~15 MB.
    const log = probeLog(dir, 12, 100_000);
    assert.equal(log.findings, 0);
    assert.ok(log.largestLine > 2_000_000, `largest line ${log.largestLine}`);
    // The history's texts once (~1 line), the lines' text chain (at most a line and 64 K characters), the last two steps' renders.
    // 2.54 times here, the code compiled while checking in the constant (2.6 when it was counted); 3.8 times when every window kept the text of the line before it and the renders of the whole history were kept.
    assert.ok(log.ratio < 2.75, `peak live heap ${log.peak} bytes, ${log.ratio.toFixed(2)} times the largest line (${log.largestLine})`);
    // The same largest line reached in 24 requests of half the text: twice the file, twice the steps. The constant taken
    // before the check hides nothing that grows with the lines read: the ratio does not grow (2.26 against 2.54: what is
    // held for the step in hand, its new texts' renders and the line's rest, is half as long). A copy of each line, or
    // of each step's window, would add a line or more.
    const longer = probeLog(dir, 24, 50_000);
    assert.equal(longer.findings, 0);
    assert.ok(Math.abs(longer.largestLine / log.largestLine - 1) < 0.01, `largest lines ${longer.largestLine} and ${log.largestLine}`);
    assert.ok(longer.bytes > 1.9 * log.bytes, `files of ${longer.bytes} and ${log.bytes} bytes`);
    assert.ok(longer.ratio < log.ratio + 0.1, `ratios ${longer.ratio.toFixed(2)} (24 requests) and ${log.ratio.toFixed(2)} (12)`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a warm-up of long windows leaves compiled code in the constant, not data: its constant is not a line more than a short warm-up\'s', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pl-heap-'));
  try {
    const short = probeLog(dir, 12, 100_000, false);
    const long = probeLog(dir, 12, 100_000);
    // The long warm-up's lines are as long as the file's (~2.4 MB): a module keeping its last window, line, render or
    // report would put a line or more in the constant, hidden from the peak. Code for long windows is a few hundred KB.
    assert.ok(long.constant - short.constant < 0.25 * long.largestLine, `constants ${long.constant} (long warm-up) and ${short.constant} (short), largest line ${long.largestLine}`);
    assert.ok(long.ratio < short.ratio + 0.1, `ratios ${long.ratio.toFixed(2)} (long warm-up) and ${short.ratio.toFixed(2)} (short)`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("lines that repeat the line before and a long end of their own: the texts' chain holds at most a line and 64 K characters", () => {
  // Line k: k × 40 KB shared with line k - 1, then 200 KB of its own (a request log's response), so each line's rest repeats 200 KB of the line before.
  const { peak, largest, lastRead } = chainPeakOf('long-ends');
  assert.ok(lastRead, 'the last line read has its text');
  // The chunks are outside the V8 heap (Buffers); the chain is what is in it: 1.3 times the line here, 2.75 times when chains of twice a line were kept.
  assert.ok(peak < 1.5 * largest + 64 * 1024, `peak ${peak} bytes for lines of ${largest} characters`);
});

test("lines that each re-write the end of the line before (a request log's last response): the texts' chain holds a line and at most 16 K characters more", () => {
  // Line k: line k - 1 without its last 1,000 characters, then 3,000 of its own: each rest repeats a little of the line
  // before, so the chain grows faster than its line and is made into a text every few lines.
  const { peak, largest, lastRead } = chainPeakOf('re-written-ends');
  assert.ok(lastRead, 'the last line read has its text');
  // The line before's text is made, one string of its own, once the chain holds 16 K characters more than its line:
  // ~1.1 times the line here (201 K characters). Texts made as ropes (a slice of the text before and the rests since,
  // all kept alive behind it) and chains of up to 64 K characters more held ~1.55 times.
  assert.ok(peak < largest + 48 * 1024, `peak ${peak} bytes for lines of ${largest} characters`);
});

test('a render let go after two turns is measured as it was: its length and tokens kept per message', () => {
  const cache = new RenderCache();
  const counter = createTokenCounter('o200k_base');
  const message: Message = { role: 'user', blocks: [{ kind: 'text', text: prose(1, 1_000_000) }] };
  const text = renderMessage(message);
  const expected = { chars: text.length, tokens: counter.count(text) };
  const base = heapUsed();
  const first = cache.measure(message, (t) => counter.countUncached?.(t) ?? -1);
  assert.deepEqual({ ...first }, expected);
  const held = heapUsed() - base;
  cache.turn();
  assert.equal(cache.messageText(message), text, 'asked for in the turn after: kept');
  cache.turn();
  cache.turn();
  // V8 keeps the last subject a regular expression matched: a slice of the last text counted, which holds all of it.
  counter.countUncached?.('another text');
  const after = heapUsed() - base;
  assert.deepEqual({ ...cache.measure(message) }, expected);
  assert.ok(held > 900_000, `the render held while asked for (${held} bytes)`);
  assert.ok(after < 100_000, `the render let go after two turns (${after} bytes kept)`);
  assert.equal(cache.messageText(message), text, 'rendered again when asked');
});
