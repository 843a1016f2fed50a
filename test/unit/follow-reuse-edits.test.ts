/**
 * Edits without end in a row (issue 14: a re-check after an edit costs what
 * the edit changed, however long one types). On random request logs of the
 * three providers with multi-byte text (2-, 3- and 4-byte UTF-8, surrogate
 * pairs), a random sequence of 8 to 20 edits (some undone at the next check), each after one edit or a burst
 * of keys at a random place: inside a string, inside a multi-byte character
 * (between the halves of a surrogate pair), at a line's end or start, a line
 * break typed or removed, quotes and backslashes typed: the follower's report
 * equals `checkTranscript` of the edited text, whether or not the kept steps'
 * windows were read between the checks, and the bytes read are the text's.
 * And the maps a kept step is moved by (shift.ts) are the edits' moves
 * applied one after the other.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { generateLog, type LogFormat } from '../../bench/generate';
import { checkTranscript } from '../../src/core/check';
import { Follower, type TextChange } from '../../src/core/follow';
import { adapterFor } from '../../src/core/formats/registry';
import { movedBy, Shift, type OffsetMap } from '../../src/core/shift';
import type { SourceLine } from '../../src/core/text';
import { counting } from './counting-reader';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prefix-lens-reuse-edits-'));

/** A generated log whose words are partly multi-byte (the same everywhere, so each request still repeats the one before byte for byte). */
function log(format: LogFormat, requests: number, seed: number): string {
  const file = path.join(dir, `${format}-${requests}-${seed}.jsonl`);
  if (!fs.existsSync(file)) generateLog(file, { format, requests, bytesPerTurn: 1500, seed });
  return fs.readFileSync(file, 'utf8').replace(/table/g, 'tablé').replace(/rows/g, 'rows 漢字').replace(/file/g, 'file 😀');
}

/** Lines a log may hold that are no step: a blank one, a record of no request (skipped), a line that is not JSON. */
const NO_STEP: Record<string, string> = { blank: '', 'blank, spaces': '  ', skipped: '{"method":"DELETE","uri":"/v1/files/file-1"}', 'not JSON': '{"request":{"model":' };

/** The log with each line of `extras` put before the line picked (after the head: an edit there reads the file again). */
function withExtras(text: string, extras: readonly (readonly [string, number])[]): string {
  const lines = text.split('\n');
  for (const [name, pick] of extras) lines.splice(12 + Math.floor(pick * (lines.length - 13)), 0, NO_STEP[name]!);
  return lines.join('\n');
}


/** Where an edit goes, picked in [0, 1) over the text after its head and the first checkpoint (an edit before them reads the file again). */
type Place = 'in a string' | 'in a surrogate pair' | 'at a line end' | 'at a line start' | 'anywhere';

function placeOf(text: string, place: Place, pick: number): number {
  const from = 96 * 1024 + Math.floor(pick * (text.length - 96 * 1024));
  const found = (needle: string, after: number) => {
    const at = text.indexOf(needle, from);
    return at === -1 ? from : at + after;
  };
  if (place === 'in a string') return found('"text":"', '"text":"'.length + 3);
  if (place === 'in a surrogate pair') return found('😀', 1);
  if (place === 'at a line end') return found('\n', 0);
  if (place === 'at a line start') return found('\n', 1);
  return from;
}

/** One check's edit: `keys` typed at the place one after the other (each its own change, as the editor reports them), or `removed` characters deleted. */
interface Edit {
  readonly place: Place;
  readonly pick: number;
  readonly keys: readonly string[];
  readonly removed: number;
}

const KEYS = ['x', ' ', 'é', '漢', '😀', '\n', '"', '\\', ','];
const placeArb = fc.oneof(
  { arbitrary: fc.constant<Place>('in a string'), weight: 6 },
  { arbitrary: fc.constant<Place>('in a surrogate pair'), weight: 2 },
  { arbitrary: fc.constantFrom<Place>('at a line end', 'at a line start', 'anywhere'), weight: 1 },
);
const editArb: fc.Arbitrary<Edit> = fc.record({
  place: placeArb,
  pick: fc.noBias(fc.integer({ min: 0, max: 9999 }).map((n) => n / 10_000)),
  // Mostly letters (the edit keeps the request valid, so its later reading can be kept), sometimes what breaks a line.
  keys: fc.array(fc.oneof({ arbitrary: fc.constantFrom('x', ' ', 'é', '漢', '😀'), weight: 8 }, { arbitrary: fc.constantFrom(...KEYS), weight: 1 }), { maxLength: 4 }),
  removed: fc.integer({ min: 0, max: 2 }),
});

/** The changes of an edit, in order, applied to `text`; the text after them, and the changes that undo them (as the editor's undo). */
function changesOf(text: string, edit: Edit): { changes: TextChange[]; text: string; undo: TextChange[] } {
  let at = placeOf(text, edit.place, edit.pick);
  const changes: TextChange[] = [];
  if (edit.removed > 0 && at + edit.removed < text.length) changes.push({ from: at, removed: edit.removed, inserted: '' });
  else if (edit.keys.length === 0) changes.push({ from: at, removed: 0, inserted: 'x' });
  for (const key of edit.keys) changes.push({ from: at, removed: 0, inserted: key }), (at += key.length);
  const undo: TextChange[] = [];
  for (const c of changes) {
    undo.unshift({ from: c.from, removed: c.inserted.length, inserted: text.slice(c.from, c.from + c.removed) });
    text = applied(text, c);
  }
  return { changes, text, undo };
}

function applied(text: string, c: TextChange): string {
  return text.slice(0, c.from) + c.inserted + text.slice(c.from + c.removed);
}

const options = { keepRewrites: true, tokens: false } as const;
const extrasArb = fc.array(fc.tuple(fc.constantFrom(...Object.keys(NO_STEP)), fc.noBias(fc.integer({ min: 0, max: 999 }).map((n) => n / 1000))), { maxLength: 3 });

describe('a followed request log edited again and again', () => {
  for (const format of ['anthropic', 'openai-chat', 'openai-responses'] as const) {
    it(`${format}: after each check of 8 to 20 random edits the report is a full check's`, () => {
      let [kept, moved, streak] = [0, 0, 0];
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 4 }), fc.array(fc.tuple(editArb, fc.boolean(), fc.boolean()), { minLength: 8, maxLength: 20 }), extrasArb, (seed, edits, extras) => {
          const start = withExtras(log(format, 28, seed), extras);
          let text = start;
          const read: SourceLine[] = [];
          const follower = new Follower(`${format}.jsonl`, { ...options, rewindable: true, adapter: counting(adapterFor(format)!, read) });
          follower.read(text);
          // Each edit's changes told as the editor tells them, one check after them; some undone at the next check.
          const checks = edits.flatMap(([edit, compare, undo]) => {
            const made = changesOf(text, edit);
            text = made.text;
            return [{ changes: made.changes, compare }, ...(undo ? [{ changes: made.undo, compare: !compare }] : [])];
          });
          text = start;
          let inRow = 0;
          for (const [i, { changes, compare }] of checks.entries()) {
            for (const c of changes) text = applied(text, c);
            read.length = 0;
            if (!follower.rewind(Math.min(...changes.map((c) => c.from)), changes)) follower.restart();
            const report = follower.append(text.slice(follower.position));
            const last = text.lastIndexOf('\n', text.length - 2) + 1;
            inRow = read.every((l) => l.offset < last) ? inRow + 1 : 0;
            [kept, streak] = [kept + (inRow > 0 ? 1 : 0), Math.max(streak, inRow)];
            moved = Math.max(moved, ...report.steps.map((s) => movedBy(s)?.pieces ?? 0));
            assert.equal(follower.bytes, Buffer.byteLength(text, 'utf8'), 'the bytes read');
            // Compared (every step's windows read) at some checks and the last; in between the kept steps go unread.
            if (compare || i === checks.length - 1) assert.deepEqual(report, checkTranscript({ file: `${format}.jsonl`, text }, options), `check ${i + 1}: ${JSON.stringify(changes)}`);
          }
        }),
        { numRuns: 8, seed: 1414 },
      );
      assert.ok(kept >= 40 && streak >= 8, `checks that kept the later reading: ${kept}, ${streak} in a row at most`);
      assert.ok(moved >= 1, 'steps moved');
    });
  }
});

describe('lines that are no step after the edit', () => {
  for (const format of ['anthropic', 'openai-chat', 'openai-responses'] as const) {
    it(`${format}: a blank line, a skipped record and a line that is not JSON after the edited one: still read again only to the line after the next`, () => {
      const lines = log(format, 30, 2).split('\n');
      lines.splice(24, 0, NO_STEP.blank!, NO_STEP.skipped!);
      lines.splice(20, 0, NO_STEP['not JSON']!, NO_STEP['blank, spaces']!, NO_STEP.skipped!);
      let text = lines.join('\n');
      const read: SourceLine[] = [];
      const follower = new Follower(`${format}.jsonl`, { ...options, rewindable: true, adapter: counting(adapterFor(format)!, read) });
      follower.read(text);
      // Line 16 edited: a word, the same word back, a longer one, a shorter one (the skipped records' ranges moved).
      const start = text.split('\n').slice(0, 15).join('\n').length + 1;
      const at = text.indexOf(' the ', start) + 1;
      for (const [i, change] of [{ from: at, removed: 0, inserted: 'é😀' }, { from: at, removed: 3, inserted: '' }, { from: at, removed: 2, inserted: 'longer' }, { from: at, removed: 1, inserted: '' }].entries()) {
        read.length = 0;
        assert.ok(follower.rewind(change.from, [change]));
        text = applied(text, change);
        const report = follower.append(text.slice(follower.position));
        assert.deepEqual(report, checkTranscript({ file: `${format}.jsonl`, text }, options), `check ${i + 1}`);
        const next = text.split('\n').slice(0, 18).join('\n').length + 1;
        assert.ok(read.length > 0 && read.every((l) => l.offset < next), `check ${i + 1}: ${read.length} lines read again, up to ${read.at(-1)?.offset} (line 18 at ${next})`);
        assert.ok(report.findings.some((f) => f.rule === 'record-skipped') && report.findings.some((f) => f.rule === 'invalid-json'));
      }
    });
  }
});

describe('the moves of edits composed (shift.ts Shift.after)', () => {
  it('move every offset as the edits applied one after the other', () => {
    const shiftArb = fc.tuple(fc.integer({ min: 0, max: 200 }), fc.integer({ min: -20, max: 20 }));
    fc.assert(
      fc.property(fc.array(shiftArb, { minLength: 1, maxLength: 30 }), fc.array(fc.integer({ min: -1, max: 400 }), { minLength: 1, maxLength: 40 }), (moves, offsets) => {
        const shifts = moves.map(([at, delta]) => new Shift(at, delta));
        let map: OffsetMap | undefined;
        for (const s of shifts) map = s.after(map);
        for (const n of offsets) assert.equal(map!.offset(n), shifts.reduce((x, s) => s.offset(x), n), `offset ${n}`);
      }),
      { numRuns: 300, seed: 14 },
    );
  });

  it('typing on in one line keeps one translation, and the steps moved by the same edits share one map', () => {
    // The line after the edited one starts at 1000 as first read; each key moves it (and the text after it) by its length.
    let [map, moved] = [undefined as OffsetMap | undefined, 0];
    for (let i = 0; i < 50; i++) {
      const delta = i % 3 === 2 ? -1 : 2;
      map = new Shift(1000 + moved, delta).after(map);
      moved += delta;
    }
    assert.deepEqual([map?.pieces, map?.offset(999), map?.offset(1000), map?.offset(5000)], [1, 999, 1000 + moved, 5000 + moved]);
    const next = new Shift(10, 1);
    assert.equal(next.after(map), next.after(map), 'one map for one history');
  });
});
