/**
 * Reading an edited file again from the last checkpoint before the edit
 * (src/core/follow.ts `rewind`): on random request logs of the three
 * providers and real session files, after random edits (a changed word, a
 * deleted, doubled or cut line, text added at the end), one to three in a row,
 * the report of the follower that rewound equals `checkTranscript` of the
 * edited text; and it read only from the edit's line on.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { generateLog, type LogFormat } from '../../bench/generate';
import { checkTranscript, UnknownFormatError } from '../../src/core/check';
import { Follower, type FollowOptions } from '../../src/core/follow';
import { adapterFor } from '../../src/core/formats/registry';
import type { SourceLine } from '../../src/core/text';
import type { FormatAdapter } from '../../src/core/transcript';
import { CORPUS } from '../support/corpus';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prefix-lens-rewind-'));

function log(format: LogFormat, requests: number, seed: number): string {
  const file = path.join(dir, `${format}-${requests}-${seed}.jsonl`);
  if (!fs.existsSync(file)) generateLog(file, { format, requests, bytesPerTurn: 200, seed });
  return fs.readFileSync(file, 'utf8');
}

/** One edit of a text, by line: the new text and the first character that changed. */
type Edit = (text: string, pick: number) => { readonly text: string; readonly from: number };

function lineBounds(text: string, pick: number): { start: number; end: number } {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1 && i + 1 < text.length; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  const start = starts[Math.floor(pick * starts.length)] ?? 0;
  const nl = text.indexOf('\n', start);
  return { start, end: nl === -1 ? text.length : nl + 1 };
}

const EDITS: Record<string, Edit> = {
  'a word changed': (text, pick) => {
    const { start, end } = lineBounds(text, pick);
    const at = text.indexOf('the', start + Math.floor((end - start) * ((pick * 7919) % 1)));
    if (at === -1 || at >= end) return { text, from: text.length };
    return { text: text.slice(0, at) + 'our' + text.slice(at + 3), from: at };
  },
  'a line deleted': (text, pick) => {
    const { start, end } = lineBounds(text, pick);
    return { text: text.slice(0, start) + text.slice(end), from: start };
  },
  'a line doubled': (text, pick) => {
    const { start, end } = lineBounds(text, pick);
    return { text: text.slice(0, end) + text.slice(start, end) + text.slice(end), from: end };
  },
  'a line cut': (text, pick) => {
    const { start, end } = lineBounds(text, pick);
    const cut = start + Math.floor((end - start) / 2);
    return { text: text.slice(0, cut) + text.slice(end - 1), from: cut };
  },
  'text added at the end': (text) => ({ text: `${text}{"request":`, from: text.length }),
};

/** A report, or the error of a text whose head is no longer recognised. */
function orUnknown(report: () => unknown): unknown {
  try {
    return report();
  } catch (error) {
    if (error instanceof UnknownFormatError) return { unknown: error.message };
    throw error;
  }
}

/** Follows `text`, applies the edits one by one (rewinding when it can), and compares each report with a full check. */
function assertRewindsLikeFull(file: string, text: string, edits: readonly [string, number][], options: FollowOptions): number {
  const follower = new Follower(file, { ...options, rewindable: true });
  follower.read(text);
  let rewound = 0;
  for (const [name, pick] of edits) {
    const edited = EDITS[name]!(text, pick);
    const at = follower.position;
    if (follower.rewind(edited.from)) {
      rewound++;
      assert.ok(follower.position <= edited.from && follower.position <= at, `rewound to ${follower.position}, at or before the edit at ${edited.from}`);
    } else {
      follower.restart();
    }
    text = edited.text;
    const more = text.slice(follower.position);
    assert.deepEqual(orUnknown(() => follower.append(more)), orUnknown(() => checkTranscript({ file, text }, options)), `after ${name} at ${edited.from}`);
  }
  return rewound;
}

const editsArb = fc.array(fc.tuple(fc.constantFrom(...Object.keys(EDITS)), fc.double({ min: 0, max: 0.999, noNaN: true })), { minLength: 1, maxLength: 3 });

describe('a followed file rewound to the checkpoint before an edit', () => {
  for (const format of ['anthropic', 'openai-chat', 'openai-responses'] as const) {
    it(`${format} request logs: the report after each edit is a full check's`, () => {
      let rewound = 0;
      fc.assert(
        fc.property(fc.integer({ min: 25, max: 45 }), fc.integer({ min: 1, max: 5 }), editsArb, (requests, seed, edits) => {
          rewound += assertRewindsLikeFull(`${format}.jsonl`, log(format, requests, seed), edits, { keepRewrites: true, tokens: false });
        }),
        { numRuns: 20, seed: 14 },
      );
      assert.ok(rewound >= 5, `edits past the head were read from a checkpoint (${rewound})`);
    });
  }

  it('with token counts, as the editor checks', () => {
    fc.assert(
      fc.property(editsArb, (edits) => void assertRewindsLikeFull('log.jsonl', log('anthropic', 30, 3), edits, { keepRewrites: true, tokens: 'o200k_base' })),
      { numRuns: 8, seed: 14 },
    );
  });

  for (const [folder, name] of [
    ['claude-code', 'codemie_incremental-subagents_turn-2.jsonl'],
    ['claude-code', 'codemie_session-9eda1058.jsonl'],
    ['codex', 'localpush_rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl'],
  ] as const) {
    it(`a real ${folder} session (${name.slice(0, 30)}…)`, () => {
      const text = fs.readFileSync(path.join(CORPUS, folder, name), 'utf8');
      fc.assert(
        fc.property(editsArb, (edits) => void assertRewindsLikeFull(name, text, edits, { keepRewrites: true, tokens: false })),
        { numRuns: 12, seed: 14 },
      );
    });
  }

  it('keeps a bounded number of checkpoints on a long log (each holds its reading\'s last request), and still rewinds to one before an edit anywhere', () => {
    const file = path.join(dir, 'long.jsonl');
    generateLog(file, { format: 'anthropic', requests: 80, bytesPerTurn: 1000, seed: 7 });
    let text = fs.readFileSync(file, 'utf8');
    const options = { keepRewrites: true, tokens: false } as const;
    const follower = new Follower('long.jsonl', { ...options, rewindable: true });
    follower.read(text);
    // Private: what the follower holds is the point (unbounded, this log kept 44).
    const kept = () => (follower as unknown as { checkpoints: readonly { fed: number }[] }).checkpoints;
    assert.ok(text.length > 33 * 64 * 1024 && kept().length <= 32, `${kept().length} checkpoints kept for ${text.length} characters`);
    for (const pick of [0.98, 0.6, 0.3]) {
      const edited = EDITS['a word changed']!(text, pick);
      assert.ok(follower.rewind(edited.from), `rewound for an edit at ${edited.from}`);
      assert.ok(follower.position <= edited.from && follower.position >= edited.from - text.length / 8, `from ${follower.position}, a checkpoint shortly before ${edited.from}`);
      text = edited.text;
      assert.deepEqual(follower.append(text.slice(follower.position)), checkTranscript({ file: 'long.jsonl', text }, options));
      assert.ok(kept().length <= 32);
    }
  });

  it('reads only from the checkpoint before the edit on: an edit of the last line reads a few lines again, not the file', () => {
    const text = log('anthropic', 40, 1);
    const read: SourceLine[] = [];
    const options = { keepRewrites: true, tokens: false } as const;
    const counting = (adapter: FormatAdapter): FormatAdapter => ({
      ...adapter,
      lineReader: (file, first) => {
        const reader = adapter.lineReader?.(file, first);
        if (!reader) return undefined;
        const wrap = (r: typeof reader): typeof reader => ({ line: (l) => (read.push(l), r.line(l)), end: () => r.end(), fork: () => wrap(r.fork()) });
        return wrap(reader);
      },
    });
    const follower = new Follower('log.jsonl', { ...options, rewindable: true, adapter: counting(adapterFor('anthropic')!) });
    follower.read(text);
    const edited = EDITS['a word changed']!(text, 0.999);
    const lastLine = text.lastIndexOf('\n', text.length - 2) + 1;
    assert.ok(edited.from >= lastLine);
    read.length = 0;
    assert.ok(follower.rewind(edited.from));
    follower.read(edited.text.slice(follower.position));
    const lines = text.split('\n').length - 1;
    assert.ok(read.length > 0 && read.length < lines / 4, `${read.length} of ${lines} lines read again`);
    assert.ok(read[0]!.offset >= lastLine - 2 * 64 * 1024, `from ${read[0]!.offset}, a checkpoint before the last line (${lastLine})`);
    assert.deepEqual(follower.report(), checkTranscript({ file: 'log.jsonl', text: edited.text }, options));
  });
});
