/**
 * Edits that add or remove lines, on request logs with lines that are no
 * step before and after them (issue 14: a re-check after an edit costs what
 * the edit changed). On random logs of the three providers holding blank
 * lines, skipped records, lines that are not JSON and rewritten requests
 * (findings of a step) anywhere after the head, a random sequence of edits
 * is made, a check after each, some undone at the next: Enter pressed in a
 * string or at a line's end, a line deleted, a line joined with the next, a
 * skipped record, a blank line, a line that is not JSON or a block of lines
 * pasted, a word typed. The follower's report after each equals
 * `checkTranscript` of the edited text (steps, findings with their messages'
 * line and request numbers and their steps, usage, the per-rule limit), the
 * bytes read are the text's, and the edits of each kind are kept (only the
 * lines about the edit read again, not the last three) often enough that a
 * follower reading on to the end fails the test.
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
import type { SourceLine } from '../../src/core/text';
import { counting } from './counting-reader';
import { unmoved } from '../../src/core/shift';
import { checkRequest, DocumentFollower, type TranscriptRequest } from '../../src/extension/engine';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prefix-lens-reuse-lines-'));

function generated(format: LogFormat, requests: number, seed: number): string {
  const file = path.join(dir, `${format}-${requests}-${seed}.jsonl`);
  if (!fs.existsSync(file)) generateLog(file, { format, requests, bytesPerTurn: 1000, seed });
  return fs.readFileSync(file, 'utf8');
}

/** Lines that are no step: blank, a skipped record (a call of no request), not JSON. */
const SKIPPED = '{"method":"DELETE","uri":"/v1/files/file-1"}';
const NO_STEP = ['', '   ', SKIPPED, '{"request":{"model":', 'not json at all'];

/** The first line an edit may touch: past the head and the first checkpoint (an edit before them reads the file again). */
function firstEditable(lines: readonly string[]): number {
  let [at, i] = [0, 0];
  while (i < lines.length && at < 96 * 1024) at += (lines[i++] as string).length + 1;
  return i;
}

/** A request rewritten: a word of its history replaced (the step into it and the next one find it). */
function rewritten(line: string): string {
  return line.replace(/"the /, '"our ');
}

/** The log with lines that are no step and rewritten requests at the places picked (after the head). */
function logWith(format: LogFormat, seed: number, extras: readonly (readonly [number, number])[]): string {
  const lines = generated(format, 26, seed).split('\n');
  const first = firstEditable(lines);
  for (const [kind, pick] of extras) {
    const at = first + Math.floor(pick * (lines.length - 1 - first));
    if (kind < NO_STEP.length) lines.splice(at, 0, NO_STEP[kind] as string);
    else lines[at] = rewritten(lines[at] as string);
  }
  return lines.join('\n');
}

const KINDS = ['enter in a string', 'enter at a line end', 'a line deleted', 'a line joined with the next', 'a skipped record pasted', 'a blank line pasted', 'a line that is not JSON pasted', 'lines pasted', 'a word typed'] as const;
type Kind = (typeof KINDS)[number];

/** The change of an edit of `kind` at the line picked (undefined when that line has no place for it). */
function changeOf(text: string, kind: Kind, pick: number): TextChange | undefined {
  const lines = text.split('\n');
  const first = firstEditable(lines);
  const i = first + Math.floor(pick * (lines.length - 1 - first));
  const start = lines.slice(0, i).join('\n').length + (i > 0 ? 1 : 0);
  const line = lines[i] ?? '';
  // A word of a message's text (every format's), past the line's middle.
  const inString = line.indexOf(' the ', line.length >> 1);
  const end = start + line.length;
  switch (kind) {
    case 'enter in a string':
      return inString < 0 ? undefined : { from: start + inString + 2, removed: 0, inserted: '\n' };
    case 'enter at a line end':
      return { from: end, removed: 0, inserted: '\n' };
    case 'a line deleted':
      return end + 1 > text.length ? undefined : { from: start, removed: line.length + 1, inserted: '' };
    case 'a line joined with the next':
      return end + 1 >= text.length ? undefined : { from: end, removed: 1, inserted: '' };
    case 'a skipped record pasted':
      return { from: start, removed: 0, inserted: `${SKIPPED}\n` };
    case 'a blank line pasted':
      return { from: start, removed: 0, inserted: '\n' };
    case 'a line that is not JSON pasted':
      return { from: start, removed: 0, inserted: '{"request":\n' };
    case 'lines pasted':
      return { from: start, removed: 0, inserted: `${SKIPPED}\n\n{"a":\n` };
    case 'a word typed':
      return inString < 0 ? undefined : { from: start + inString + 1, removed: 0, inserted: 'é😀 ' };
  }
}

function applied(text: string, c: TextChange): string {
  return text.slice(0, c.from) + c.inserted + text.slice(c.from + c.removed);
}

/** The change that undoes `c` made on `text`. */
function undoOf(text: string, c: TextChange): TextChange {
  return { from: c.from, removed: c.inserted.length, inserted: text.slice(c.from, c.from + c.removed) };
}

const pickArb = fc.noBias(fc.integer({ min: 0, max: 9999 }).map((n) => n / 10_000));
const editArb = fc.tuple(fc.constantFrom(...KINDS), pickArb, fc.boolean(), fc.boolean());
const extrasArb = fc.array(fc.tuple(fc.integer({ min: 0, max: NO_STEP.length + 1 }), pickArb), { maxLength: 6 });

describe('a followed request log edited by lines, with lines that are no step before and after the edits', () => {
  for (const format of ['anthropic', 'openai-chat', 'openai-responses'] as const) {
    it(`${format}: after each edit the report is a full check's, and the edits are kept`, () => {
      const kept = new Map<string, number>();
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 3 }), extrasArb, fc.constantFrom(1, 2, 1000), fc.array(editArb, { minLength: 4, maxLength: 10 }), (seed, extras, maxFindingsPerRule, edits) => {
          const options = { keepRewrites: true, tokens: false, limits: { maxFindingsPerRule } } as const;
          let text = logWith(format, seed, extras);
          const read: SourceLine[] = [];
          const follower = new Follower(`${format}.jsonl`, { ...options, rewindable: true, adapter: counting(adapterFor(format)!, read) });
          follower.read(text);
          for (const [i, [kind, pick, undo, compare]] of edits.entries()) {
            const change = changeOf(text, kind, pick);
            if (!change) continue;
            const checks: [string, TextChange][] = [[kind, change], ...(undo ? [[`${kind}, undone`, undoOf(text, change)] as [string, TextChange]] : [])];
            for (const [name, c] of checks) {
              text = applied(text, c);
              read.length = 0;
              if (!follower.rewind(c.from, [c])) follower.restart();
              const report = follower.append(text.slice(follower.position));
              assert.equal(follower.bytes, Buffer.byteLength(text, 'utf8'), 'the bytes read');
              // Kept: the last three lines not read again (reading on reads every line after the edit).
              const tail = text.split('\n').slice(-4).join('\n').length;
              if (read.length > 0 && read.every((l) => l.offset < text.length - tail)) kept.set(name, (kept.get(name) ?? 0) + 1);
              if (compare || i === edits.length - 1) assert.deepEqual(report, checkTranscript({ file: `${format}.jsonl`, text }, options), `${name}: ${JSON.stringify(c).slice(0, 200)}`);
            }
          }
        }),
        { numRuns: 10, seed: 1415 },
      );
      for (const kind of KINDS) assert.ok((kept.get(kind) ?? 0) >= 2, `edits kept: ${JSON.stringify([...kept])}`);
      assert.ok((kept.get('enter in a string, undone') ?? 0) + (kept.get('a line deleted, undone') ?? 0) >= 1, `undone edits kept: ${JSON.stringify([...kept])}`);
    });
  }
});

describe('the checkpoints after an edit that moved the text', () => {
  it('are kept, moved, next to the edit and at the end: an edit of the last line then reads from one after the first edit, for a line break, a deleted line and a word typed', () => {
    let text = generated('anthropic', 60, 2).replace(/\n/g, (n, at: number) => (at % 7 === 0 ? `\n${SKIPPED}\n` : n));
    const read: SourceLine[] = [];
    const follower = new Follower('log.jsonl', { keepRewrites: true, tokens: false, rewindable: true, adapter: counting(adapterFor('anthropic')!, read) });
    follower.read(text);
    const lineStart = (t: string, n: number) => t.split('\n').slice(0, n).join('\n').length + 1;
    for (const [first, second] of [['enter in a string', 'a word typed'], ['a line deleted', 'enter in a string'], ['a word typed', 'a line deleted']] as const) {
      for (const [kind, pick] of [[first, 0.4], [second, 0.9999]] as const) {
        const change = changeOf(text, kind, pick)!;
        text = applied(text, change);
        read.length = 0;
        assert.ok(follower.rewind(change.from, [change]));
        const from = follower.position;
        assert.deepEqual(follower.append(text.slice(from)), checkTranscript({ file: 'log.jsonl', text }, { keepRewrites: true, tokens: false }), `${kind}`);
        const line = text.slice(0, change.from).split('\n').length - 1;
        // From a checkpoint at most ~64 KiB before the edit (never from before the first edit for the second), to the line after the next.
        assert.ok(change.from - from <= 160 * 1024 && read.every((l) => l.offset < lineStart(text, line + 5)), `${kind}: read again from ${from} (the edit at ${change.from}), ${read.length} lines`);
      }
    }
  });
});

describe('the checkpoints a splice keeps', () => {
  it('are made when a later edit reads from one, or the follower settles, not by the re-check that kept them', () => {
    let text = generated('anthropic', 60, 2);
    const splices = { count: 0 };
    const follower = new Follower('log.jsonl', { keepRewrites: true, tokens: false, rewindable: true, adapter: counting(adapterFor('anthropic')!, [], splices) });
    follower.read(text);
    const full = () => checkTranscript({ file: 'log.jsonl', text }, { keepRewrites: true, tokens: false });
    const change = changeOf(text, 'enter in a string', 0.3)!;
    text = applied(text, change);
    assert.ok(follower.rewind(change.from, [change]));
    assert.deepEqual(follower.append(text.slice(follower.position)), full());
    assert.equal(splices.count, 1, 'the re-check spliced its reading, not the checkpoints after the edit');
    follower.settle();
    const settled = splices.count;
    assert.ok(settled > 1, 'settled: the checkpoints after the edit spliced');
    follower.settle();
    assert.equal(splices.count, settled, 'each once');
    // An edit of the last line reads from one of them (made), and gives a full check's report.
    const last = changeOf(text, 'a word typed', 0.9999)!;
    text = applied(text, last);
    assert.ok(follower.rewind(last.from, [last]));
    assert.ok(last.from - follower.position <= 160 * 1024, `read again from ${follower.position}, the edit at ${last.from}`);
    assert.deepEqual(follower.append(text.slice(follower.position)), full());
  });
});

describe('in the editor', () => {
  it('Enter pressed in a line and removed, a line deleted and pasted back: each re-check is a full check\'s, the later steps kept (moved, not read again)', () => {
    let text = generated('openai-chat', 40, 3);
    const request = (t: string): TranscriptRequest => ({ kind: 'transcript', file: 'log.jsonl', text: t, tokens: false, limits: {} });
    const follower = new DocumentFollower();
    follower.check(request(text), 1, -1);
    const enter = changeOf(text, 'enter in a string', 0.3)!;
    const line = changeOf(text, 'a line deleted', 0.5)!;
    const back = (c: TextChange, t: string) => undoOf(t, c);
    let version = 1;
    for (const change of [enter, back(enter, applied(text, enter)), line, back(line, applied(text, line))]) {
      text = applied(text, change);
      follower.edited(++version, change.from, change);
      const report = follower.check(request(text), version, version);
      assert.deepEqual(report, checkRequest(request(text)), `version ${version}`);
      assert.ok(report.steps.slice(-10).every((s) => unmoved(s) !== s), `version ${version}: the later steps kept`);
    }
  });
});
