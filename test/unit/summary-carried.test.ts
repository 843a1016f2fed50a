/**
 * The session summary of a request log counts the last window's turns and
 * pairs without reading its carried messages again (issue 12): a carried
 * message that let go of its blocks (formats/carried-message.ts, out of the
 * RECENT ring) says whether it has a text block from its row (`KnowsText`),
 * and the pairs are counted from the index the check already has (the window
 * tracker's, `PairPlaces`), not by walking every message's blocks. The
 * numbers must be those of the old computation (`role === 'user'` with a text
 * block; `pairStates` of `toolPairs`) on random logs, compactions that cut
 * pairs and orphaned calls and results among them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { LogFormat } from '../../bench/generate';
import { generatedLogLines } from '../support/generated-log';
import { checkTranscript } from '../../src/core/check';
import { ThreadTally, type ThreadSummary } from '../../src/core/file-threads';
import { CarriedMessage } from '../../src/core/formats/carried-message';
import { inputFromText } from '../../src/core/io';
import { toolPairs, type ContextWindow, type Message } from '../../src/core/model';
import { pairStates } from '../../src/core/pairing';
import type { PairCounts } from '../../src/core/session';

type Json = Record<string, unknown>;

const FORMATS: readonly LogFormat[] = ['anthropic', 'openai-chat', 'openai-responses'];

/**
 * `count` messages from `k` on dropped from the request at line `at` and,
 * `kept`, every request after it (a compaction: the pairs it cuts stay cut;
 * one message: an orphaned call or result).
 */
function dropped(lines: string[], at: number, k: number, count: number, kept: boolean): string[] {
  return lines.map((line, i) => {
    if (i < at || (!kept && i > at)) return line;
    const record = JSON.parse(line) as Json;
    const request = (record.request ?? record) as Json;
    const messages = (request.messages ?? request.input) as Json[];
    if (messages.length > k + 1) messages.splice(k, count);
    return JSON.stringify(record);
  });
}

/** The old computation of a window's counts: every message's blocks read. */
function oldCounts(window: ContextWindow): { turns: number; pairs: PairCounts } {
  const turns = window.messages.filter((m) => m.role === 'user' && m.blocks.some((b) => b.kind === 'text')).length;
  const pairs = { paired: 0, pending: 0, orphaned: 0 };
  for (const state of pairStates(window, toolPairs(window)).values()) {
    if (state === 'paired') pairs.paired++;
    else if (state === 'pending') pairs.pending++;
    else pairs.orphaned++;
  }
  return { turns, pairs };
}

interface Probe {
  /** Carried messages out of the ring whose blocks were asked for during a summary. */
  reread: number;
  /** Carried messages out of the ring in the summarised windows. */
  letGo: number;
  /** Each summary's counts beside the old computation's, per held window. */
  compared: { now: ThreadSummary; old: { turns: number; pairs: PairCounts } }[];
}

/** `run` with `ThreadTally.summaries` and `CarriedMessage.blocks` watched (the prototypes restored after). */
function probed(run: () => void): Probe {
  const probe: Probe = { reread: 0, letGo: 0, compared: [] };
  const blocks = Object.getOwnPropertyDescriptor(CarriedMessage.prototype, 'blocks') as PropertyDescriptor;
  const summaries = Object.getOwnPropertyDescriptor(ThreadTally.prototype, 'summaries') as PropertyDescriptor;
  const getBlocks = blocks.get as (this: CarriedMessage) => readonly Message[];
  const summarise = summaries.value as ThreadTally['summaries'];
  let inSummary = false;
  Object.defineProperty(CarriedMessage.prototype, 'blocks', {
    ...blocks,
    get(this: CarriedMessage) {
      if (inSummary && !this.holdsBlocks()) probe.reread++;
      return getBlocks.call(this);
    },
  });
  Object.defineProperty(ThreadTally.prototype, 'summaries', {
    ...summaries,
    value(this: ThreadTally, ...args: Parameters<ThreadTally['summaries']>) {
      const windows = this.windows();
      probe.letGo += windows.reduce((n, w) => n + w.window.messages.filter((m) => m instanceof CarriedMessage && !m.holdsBlocks()).length, 0);
      inSummary = true;
      let out: ThreadSummary[];
      try {
        out = summarise.apply(this, args);
      } finally {
        inSummary = false;
      }
      // After the summary: the old computation reads the blocks again (and puts messages back in the ring).
      for (const { thread, window } of windows) probe.compared.push({ now: out.find((t) => t.id === thread.id) as ThreadSummary, old: oldCounts(window) });
      return out;
    },
  });
  try {
    run();
  } finally {
    Object.defineProperty(CarriedMessage.prototype, 'blocks', blocks);
    Object.defineProperty(ThreadTally.prototype, 'summaries', summaries);
  }
  return probe;
}

function check(format: LogFormat, lines: readonly string[]) {
  return checkTranscript(inputFromText('log.jsonl', `${lines.join('\n')}\n`), { format, tokens: false });
}

test('the summary of a long request log reads none of its carried messages again, and counts as the old computation', () => {
  for (const format of FORMATS) {
    // Two compactions kept from there on: a pair cut by each (an orphaned call or result in the last window).
    const lines = dropped(dropped(generatedLogLines(format, 120, 7), 60, 20, 3, true), 90, 41, 1, true);
    const probe = probed(() => check(format, lines));
    assert.ok(probe.letGo > 100, `${format}: the last window has carried messages out of the ring (${probe.letGo})`);
    assert.equal(probe.reread, 0, `${format}: carried messages read again during the summary`);
    assert.equal(probe.compared.length, 1);
    const { now, old } = probe.compared[0] as Probe['compared'][number];
    assert.deepEqual({ turns: now.turns, pairs: now.pairs }, old);
    assert.ok(old.pairs.orphaned > 0 && old.pairs.paired > 100 && old.turns > 0, JSON.stringify(old));
  }
});

test("a summary's turns and pair counts are the old computation's on random logs (compactions that cut pairs, orphaned calls and results)", () => {
  const seen = { orphaned: 0, paired: 0, turns: 0 };
  fc.assert(
    fc.property(
      fc.constantFrom(...FORMATS),
      fc.integer({ min: 1, max: 1000 }),
      fc.array(fc.record({ at: fc.integer({ min: 1, max: 45 }), k: fc.integer({ min: 1, max: 60 }), count: fc.integer({ min: 1, max: 5 }), kept: fc.boolean() }), { maxLength: 3 }),
      (format, seed, edits) => {
        let lines = generatedLogLines(format, 48, seed);
        for (const { at, k, count, kept } of edits) lines = dropped(lines, Math.min(at, lines.length - 1), k, count, kept);
        // (A file's other threads, and a last window with fresh findings (checked again as its exact window), are counted by walking their blocks.)
        const probe = probed(() => check(format, lines));
        for (const { now, old } of probe.compared) {
          assert.deepEqual({ turns: now.turns, pairs: now.pairs }, old);
          seen.orphaned += old.pairs.orphaned;
          seen.paired += old.pairs.paired;
          seen.turns += old.turns;
        }
      },
    ),
    { numRuns: 40 },
  );
  // The logs had what the counts count.
  assert.ok(seen.orphaned > 0 && seen.paired > 0 && seen.turns > 0, JSON.stringify(seen));
});
