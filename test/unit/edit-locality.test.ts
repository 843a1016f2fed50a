/**
 * What an edit inside one request of a request log changes in the check's
 * verdicts (issue 14, "a re-check after an edit costs what the edit changed"):
 * on random logs of the three providers, a word of request k's messages
 * replaced by one of another length, the full check of the edited text has,
 * after request k + 1 (which now rewrites request k), exactly the steps and
 * findings of the check before the edit, each range moved by the length
 * change (with token counts, as the editor checks, or without). This is the premise a re-check that keeps the later steps would
 * rest on: each later step is judged from its two requests alone. (Today the
 * follower reads every request after the edit again: src/core/follow.ts
 * `rewind`; bench/README.md says what else a reuse would need.)
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { generateLog, type LogFormat } from '../../bench/generate';
import { checkTranscript } from '../../src/core/check';
import type { Report } from '../../src/core/results';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prefix-lens-locality-'));

function log(format: LogFormat, requests: number, seed: number): string {
  const file = path.join(dir, `${format}-${requests}-${seed}.jsonl`);
  if (!fs.existsSync(file)) generateLog(file, { format, requests, bytesPerTurn: 200, seed });
  return fs.readFileSync(file, 'utf8');
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1 && i + 1 < text.length; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** Every file range in `value` (objects with a numeric start and end) moved as an edit at `at` that changed the length by `delta` moves it. */
function moved<T>(value: T, at: number, delta: number): T {
  if (Array.isArray(value)) return value.map((v: unknown) => moved(v, at, delta)) as T;
  if (!value || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) copy[key] = key === 'boundary' || key === 'cacheImpact' ? v : moved(v, at, delta);
  if (typeof copy.start === 'number' && typeof copy.end === 'number') {
    if (copy.start >= at) copy.start += delta;
    if (copy.end > at) copy.end += delta;
  }
  return copy as T;
}

/** The steps and findings of `report` that start at or after `from`. */
function after(report: Report, from: number): unknown {
  return {
    steps: report.steps.filter((s) => (s.range?.start ?? 0) >= from),
    findings: report.findings.filter((f) => f.range.start >= from),
  };
}

const WORDS = ['these', 'a', 'ours', 'theirs', ''];

describe('an edit inside one request of a request log', () => {
  for (const format of ['anthropic', 'openai-chat', 'openai-responses'] as const) {
    it(`${format}: the steps and findings after the next request are those before the edit, moved by its length change`, () => {
      let compared = 0;
      fc.assert(
        fc.property(
          fc.integer({ min: 12, max: 30 }),
          fc.integer({ min: 1, max: 6 }),
          fc.double({ min: 0.05, max: 0.85, noNaN: true }),
          fc.double({ min: 0, max: 0.999, noNaN: true }),
          fc.constantFrom(...WORDS),
          fc.boolean(),
          (requests, seed, line, where, word, counted) => {
            const file = `${format}.jsonl`;
            const text = log(format, requests, seed);
            const starts = lineStarts(text);
            const k = Math.floor(line * (starts.length - 2));
            const [start, end] = [starts[k] ?? 0, starts[k + 1] ?? text.length];
            const at = text.indexOf('the ', start + Math.floor((end - start) * where));
            if (at === -1 || at >= end) return;
            const edited = text.slice(0, at) + word + text.slice(at + 3);
            const delta = word.length - 3;
            const options = { format, tokens: counted ? 'o200k_base' : false } as const;
            const [before, now] = [checkTranscript({ file, text }, options), checkTranscript({ file, text: edited }, options)];
            const next = starts[k + 2] ?? text.length;
            assert.ok(now.findings.some((f) => f.range.start >= start && f.range.start < next + delta), 'the edit is found where it is');
            assert.deepEqual(after(now, next + delta), moved(after(before, next), at, delta), `after an edit of request ${k + 1} at ${at}`);
            compared++;
          },
        ),
        { numRuns: 25, seed: 14 },
      );
      assert.ok(compared >= 15, `edits compared: ${compared}`);
    });
  }
});
