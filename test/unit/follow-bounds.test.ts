/**
 * What a rewindable follower (src/core/follow.ts) keeps and counts, bounded by
 * what it should be: edits in a row each read again from the checkpoint
 * before them however many there were (none read the whole file again); the
 * checkpoints of a log of large requests hold a bounded number of characters
 * of lines; the UTF-8 bytes of the text given are counted as it is read (a
 * byte order mark, characters outside the BMP, slices cut inside one and
 * rewinds included), not by counting the text again.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { generateLog } from '../../bench/generate';
import { checkTranscript, UnknownFormatError } from '../../src/core/check';
import { Follower } from '../../src/core/follow';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prefix-lens-bounds-'));

function log(requests: number, bytesPerTurn: number): string {
  const file = path.join(dir, `log-${requests}-${bytesPerTurn}.jsonl`);
  generateLog(file, { requests, bytesPerTurn, seed: 5 });
  return fs.readFileSync(file, 'utf8');
}

/** Reads text whose head may be too short to tell its format yet (the follower holds it and says so). */
function unrecognisedYet(read: () => void): void {
  try {
    read();
  } catch (error) {
    if (!(error instanceof UnknownFormatError)) throw error;
  }
}

/** Private: what the follower holds is the point. */
const checkpointsOf = (follower: Follower) => (follower as unknown as { checkpoints: readonly { fed: number; held: number }[] }).checkpoints;

describe('a rewindable follower', () => {
  it('reads again from the checkpoint before the edit after 150 edits in a row, never from the start', () => {
    let text = log(40, 200);
    const options = { keepRewrites: true, tokens: false } as const;
    const follower = new Follower('log.jsonl', { ...options, rewindable: true });
    follower.read(text);
    const lastLine = text.lastIndexOf('\n', text.length - 2) + 1;
    const at = text.indexOf('"text":"', lastLine) + '"text":"'.length;
    for (let i = 0; i < 150; i++) {
      // Typing at the last line, one character more each time.
      text = `${text.slice(0, at)}x${text.slice(at)}`;
      assert.ok(follower.rewind(at), `edit ${i + 1} rewound`);
      assert.ok(follower.position > lastLine - 4 * 64 * 1024, `edit ${i + 1}: from ${follower.position}, shortly before the last line`);
      const report = follower.append(text.slice(follower.position));
      if (i % 50 === 49) assert.deepEqual(report, checkTranscript({ file: 'log.jsonl', text }, options), `after edit ${i + 1}`);
    }
  });

  it('keeps its checkpoints spread over a long log: no gap between two is over twice the text over their count, and an edit in the middle reads again from within one such gap', () => {
    let text = log(200, 60);
    const options = { keepRewrites: true, tokens: false } as const;
    const follower = new Follower('long.jsonl', { ...options, rewindable: true });
    follower.read(text);
    const kept = checkpointsOf(follower);
    const at = kept.map((c) => c.fed);
    const gaps = at.map((fed, i) => fed - (at[i - 1] ?? 0));
    const bound = (2 * text.length) / kept.length;
    assert.ok(text.split('\n').length > 80 && kept.length >= 24, `${kept.length} checkpoints over ${text.length} characters`);
    assert.ok(Math.max(...gaps) <= bound, `gaps ${gaps.join(' ')}: the largest over ${Math.round(bound)}`);
    for (const part of [0.3, 0.5, 0.7]) {
      const line = text.lastIndexOf('\n', Math.floor(text.length * part)) + 1;
      const edit = text.indexOf('"text":"', line) + '"text":"'.length;
      text = `${text.slice(0, edit)}our${text.slice(edit + 3)}`;
      assert.ok(follower.rewind(edit), `an edit at ${part} of the text rewound`);
      assert.ok(follower.position <= edit && follower.position > edit - bound, `an edit at ${edit} (${part} of the text) read again from ${follower.position}`);
      assert.deepEqual(follower.append(text.slice(follower.position)), checkTranscript({ file: 'long.jsonl', text }, options), `after the edit at ${part}`);
    }
  });

  it('keeps checkpoints holding at most 4 Mi characters of lines on a log of large requests, and rewinds to one before the last line', () => {
    let text = log(30, 40_000);
    const follower = new Follower('big.jsonl', { tokens: false, rewindable: true });
    follower.read(text);
    const kept = checkpointsOf(follower);
    const held = kept.reduce((n, c) => n + c.held, 0);
    const largest = Math.max(...text.split('\n').map((l) => l.length));
    assert.ok(largest > 256 * 1024 && text.length > 12_000_000, `lines up to ${largest} characters, ${text.length} in all`);
    assert.ok(kept.length >= 2 && held <= 4 * 1024 * 1024, `${kept.length} checkpoints holding ${held} characters of lines`);
    const lastLine = text.lastIndexOf('\n', text.length - 2) + 1;
    const at = text.indexOf('"text":"', lastLine) + '"text":"'.length;
    text = `${text.slice(0, at)}our${text.slice(at + 3)}`;
    assert.ok(follower.rewind(at));
    assert.ok(follower.position > lastLine - 4 * largest, `from ${follower.position}, a few lines before ${lastLine}`);
    assert.deepEqual(follower.append(text.slice(follower.position)), checkTranscript({ file: 'big.jsonl', text }, { tokens: false }));
  });

  it('keeps the checkpoint before the last line when lines are of Mi characters each: an edit in the last line reads that line again, not the file; one in the middle reads from the first', () => {
    let text = log(4, 1_600_000);
    const follower = new Follower('huge.jsonl', { tokens: false, rewindable: true });
    follower.read(text);
    const lastLine = text.lastIndexOf('\n', text.length - 2) + 1;
    assert.ok(lastLine > 4 * 1024 * 1024 && text.length - lastLine > 2 * 1024 * 1024, `the last line from ${lastLine} of ${text.length}`);
    assert.ok(checkpointsOf(follower).length <= 3, `${checkpointsOf(follower).length} checkpoints`);
    const at = text.indexOf('"text":"', lastLine) + '"text":"'.length;
    text = `${text.slice(0, at)}our${text.slice(at + 3)}`;
    assert.ok(follower.rewind(at), 'rewound');
    assert.equal(follower.position, lastLine);
    assert.deepEqual(follower.append(text.slice(follower.position)), checkTranscript({ file: 'huge.jsonl', text }, { tokens: false }));
    const third = text.indexOf('\n', text.indexOf('\n') + 1) + 1;
    const middle = text.indexOf('"text":"', third) + '"text":"'.length;
    assert.ok(middle < lastLine);
    text = `${text.slice(0, middle)}our${text.slice(middle + 3)}`;
    assert.ok(follower.rewind(middle), 'rewound to the first checkpoint');
    assert.equal(follower.position, text.indexOf('\n') + 1);
    assert.deepEqual(follower.append(text.slice(follower.position)), checkTranscript({ file: 'huge.jsonl', text }, { tokens: false }));
  });

  it('counts the UTF-8 bytes of the text given as it reads, through slices, rewinds and a byte order mark', () => {
    const base = log(24, 300);
    const bytesOf = (s: string) => Buffer.byteLength(s, 'utf8');
    fc.assert(
      fc.property(fc.boolean(), fc.array(fc.integer({ min: 1, max: 40_000 }), { minLength: 1, maxLength: 6 }), fc.double({ min: 0.5, max: 0.99, noNaN: true }), (bom, cuts, pick) => {
        // Characters of 2, 3 and 4 bytes in the text (a request's text), a slice may end inside a surrogate pair.
        const text = `${bom ? '\uFEFF' : ''}${base.replaceAll('the agent', 'thé 🤖 agent ✓')}`;
        const follower = new Follower('log.jsonl', { tokens: false, rewindable: true });
        let at = 0;
        for (const cut of cuts) {
          unrecognisedYet(() => follower.read(text.slice(at, at + cut)));
          at = Math.min(text.length, at + cut);
          assert.equal(follower.bytes, bytesOf(text.slice(0, at)), `after ${at} characters`);
        }
        follower.read(text.slice(at));
        assert.equal(follower.bytes, bytesOf(text));
        if (follower.rewind(Math.floor(text.length * pick))) assert.equal(follower.bytes, bytesOf(text.slice(0, follower.position)), `rewound to ${follower.position}`);
      }),
      { numRuns: 30 },
    );
  });
});
