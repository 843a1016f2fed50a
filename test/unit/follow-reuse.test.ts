/**
 * A followed request log edited inside one line keeps what it read after the
 * edit (src/core/follow-reuse.ts): on random logs of the three providers,
 * after random edits at random lines (a word replaced by one of the same
 * length, or of another; a quote broken; a line split or two joined; edits
 * in a row before one check; text appended after them), on logs with
 * findings, dropped messages and unread parts after the edit and a limit of
 * findings per rule that the splice meets, the follower's report after each
 * equals `checkTranscript` of the edited text (every step's windows read, so
 * those moved only when read are compared too); and an edit inside a line,
 * of its length or not, reads again only the lines from the checkpoint
 * before it to the one after the next, not the rest of the file.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { generateLog, type LogFormat } from '../../bench/generate';
import { checkTranscript } from '../../src/core/check';
import { Follower, type FollowOptions, type TextChange } from '../../src/core/follow';
import { movedBy, unmoved } from '../../src/core/shift';
import { adapterFor } from '../../src/core/formats/registry';
import type { SourceLine } from '../../src/core/text';
import { counting } from './counting-reader';
import { checkRequest, DocumentFollower, type TranscriptRequest } from '../../src/extension/engine';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prefix-lens-reuse-'));

function log(format: LogFormat, requests: number, seed: number, bytesPerTurn = 200): string {
  const file = path.join(dir, `${format}-${requests}-${seed}-${bytesPerTurn}.jsonl`);
  if (!fs.existsSync(file)) generateLog(file, { format, requests, bytesPerTurn, seed });
  return fs.readFileSync(file, 'utf8');
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1 && i + 1 < text.length; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** An edit of the text at a place picked in [0, 1): the change, or none when the line has no place for it. */
type Edit = (text: string, pick: number) => TextChange | undefined;

/** `needle` in the line picked, from a place in it picked too. */
function inLine(text: string, pick: number, needle: string): number | undefined {
  const starts = lineStarts(text);
  const start = starts[Math.floor(pick * starts.length)] ?? 0;
  const end = text.indexOf('\n', start);
  const at = text.indexOf(needle, start + Math.floor((end - start) * ((pick * 7919) % 1)));
  return at === -1 || at >= end ? undefined : at;
}

const replace = (needle: string, inserted: string): Edit => (text, pick) => {
  const at = inLine(text, pick, needle);
  return at === undefined ? undefined : { from: at, removed: needle.length, inserted };
};

const EDITS: Record<string, Edit> = {
  'a word, same length': replace('the', 'our'),
  'a word, same length, more bytes': replace('the', 'été'),
  'a word, longer': replace('the', 'these'),
  'a word, shorter': replace('the', 'a'),
  'a quote broken': replace('"', "'"),
  'a line split': replace(',', ',\n'),
  'two lines joined': (text, pick) => {
    const at = inLine(text, pick, '\n');
    return at === undefined || at + 1 >= text.length ? undefined : { from: at, removed: 1, inserted: ' ' };
  },
};

/**
 * What a log may hold after the edit, for the splice to meet: a request whose
 * history another word replaced (findings), one that dropped two messages (a
 * compaction: messages dropped), one with a tool-shaped part the reader does
 * not read (an unread part).
 */
const INCIDENTS: Record<string, (request: Record<string, unknown[]>, format: LogFormat) => void> = {
  rewritten: (request, format) => {
    const messages = request[format === 'openai-responses' ? 'input' : 'messages'] ?? [];
    messages[1] = JSON.parse(JSON.stringify(messages[1] ?? {}).replace(/the/g, 'our'));
  },
  compacted: (request, format) => void request[format === 'openai-responses' ? 'input' : 'messages']?.splice(1, 2),
  unread: (request, format) => {
    const part = { type: 'mystery_call', tool_use_id: 'toolu_mystery', tool_call_id: 'call_mystery' };
    if (format === 'openai-responses') return void request.input?.push(part);
    const last = request.messages?.at(-1) as { content?: unknown } | undefined;
    if (last) last.content = [...(Array.isArray(last.content) ? last.content : [{ type: 'text', text: String(last.content) }]), part];
  },
};

/** The log with an incident in each line picked. */
function withIncidents(format: LogFormat, text: string, incidents: readonly [string, number][]): string {
  const lines = text.split('\n');
  for (const [name, pick] of incidents) {
    const i = Math.floor(pick * (lines.length - 1));
    const record = JSON.parse(lines[i] ?? '{}') as { request: Record<string, unknown[]> };
    INCIDENTS[name]!(record.request, format);
    lines[i] = JSON.stringify(record);
  }
  return lines.join('\n');
}

function applied(text: string, change: TextChange): string {
  return text.slice(0, change.from) + change.inserted + text.slice(change.from + change.removed);
}


/** Follows `text`, makes each check's edits (rewinding with their changes), appends a line now and then, and compares each report with a full check. */
function assertLikeFull(format: LogFormat, text: string, checks: readonly (readonly [string, number][])[], options: FollowOptions, append: boolean): number {
  const read: SourceLine[] = [];
  const follower = new Follower(`${format}.jsonl`, { ...options, rewindable: true, adapter: counting(adapterFor(format)!, read) });
  follower.read(text);
  let kept = 0;
  for (const edits of checks) {
    const changes = edits.flatMap(([name, pick]) => {
      const change = EDITS[name]!(text, pick);
      if (change) text = applied(text, change);
      return change ? [change] : [];
    });
    if (changes.length === 0) continue;
    read.length = 0;
    if (!follower.rewind(Math.min(...changes.map((c) => c.from)), changes)) follower.restart();
    if (append) text += text.slice(text.lastIndexOf('\n', text.length - 2) + 1);
    const report = follower.append(text.slice(follower.position));
    assert.deepEqual(report, checkTranscript({ file: `${format}.jsonl`, text }, options), `after ${JSON.stringify(edits)}`);
    assert.equal(follower.bytes, Buffer.byteLength(text, 'utf8'), 'the bytes read');
    if (read.length < lineStarts(text).length / 3) kept++;
  }
  return kept;
}

/** Edits that keep the line structure: the reading after them is kept. */
const INSIDE_A_LINE = ['a word, same length', 'a word, same length, more bytes', 'a word, longer', 'a word, shorter'];
const pickArb = fc.double({ min: 0.05, max: 0.999, noNaN: true });
/** A check after one edit of any kind, after one or two inside a line (two in one line too), or after edits at two places. */
const checkArb = fc.oneof(
  { arbitrary: fc.tuple(fc.constantFrom(...Object.keys(EDITS)), pickArb).map((edit) => [edit]), weight: 1 },
  {
    arbitrary: fc.tuple(fc.constantFrom(...INSIDE_A_LINE), pickArb, fc.boolean()).map(([name, pick, twice]): [string, number][] => (twice ? [[name, pick], ['a word, longer', (pick * 1.0001) % 1]] : [[name, pick]])),
    weight: 3,
  },
  { arbitrary: fc.array(fc.tuple(fc.constantFrom(...Object.keys(EDITS)), pickArb), { minLength: 2, maxLength: 2 }), weight: 1 },
);
const checksArb = fc.array(checkArb, { minLength: 1, maxLength: 4 });
const incidentsArb = fc.array(fc.tuple(fc.constantFrom(...Object.keys(INCIDENTS)), fc.double({ min: 0.3, max: 0.999, noNaN: true })), { maxLength: 4 });

const options = { keepRewrites: true, tokens: false } as const;

/** An Anthropic log followed with its windows kept, the lines its reader is given noted. */
function followed(text: string): { follower: Follower; read: SourceLine[] } {
  const read: SourceLine[] = [];
  const follower = new Follower('log.jsonl', { ...options, rewindable: true, adapter: counting(adapterFor('anthropic')!, read) });
  follower.read(text);
  return { follower, read };
}

describe('a followed request log edited inside one line', () => {
  for (const format of ['anthropic', 'openai-chat', 'openai-responses'] as const) {
    it(`${format}: the report after each edit is a full check's, edits kept or read on`, () => {
      let kept = 0;
      fc.assert(
        fc.property(fc.integer({ min: 16, max: 36 }), fc.integer({ min: 1, max: 5 }), incidentsArb, fc.constantFrom(1, 2, 1000), checksArb, fc.boolean(), (requests, seed, incidents, maxFindingsPerRule, checks, append) => {
          const text = withIncidents(format, log(format, requests, seed, 2000), incidents);
          kept += assertLikeFull(format, text, checks, { keepRewrites: true, tokens: false, limits: { maxFindingsPerRule } }, append);
        }),
        { numRuns: 50, seed: 14 },
      );
      assert.ok(kept >= 10, `edits that kept the later reading: ${kept}`);
    });
  }

  it('with token counts, as the editor checks', () => {
    fc.assert(
      fc.property(checksArb, fc.boolean(), (checks, append) => void assertLikeFull('anthropic', log('anthropic', 24, 3, 2000), checks, { keepRewrites: true, tokens: 'o200k_base' }, append)),
      { numRuns: 8, seed: 14 },
    );
  });

  it('reads again only from the checkpoint before the edit to the line after the next, and a later edit from a checkpoint after the first', () => {
    const text = log('anthropic', 60, 2, 2000);
    const starts = lineStarts(text);
    const { follower, read } = followed(text);
    const change = replace('the', 'our')(text, 0.5)!;
    const k = starts.filter((s) => s <= change.from).length - 1;
    read.length = 0;
    assert.ok(follower.rewind(change.from, [change]));
    const from = follower.position;
    const edited = applied(text, change);
    assert.deepEqual(follower.append(edited.slice(from)), checkTranscript({ file: 'log.jsonl', text: edited }, options));
    assert.ok(read.length > 0 && read.every((line) => line.offset >= from && line.offset < (starts[k + 2] ?? 0)), `${read.length} lines read again, up to ${read.at(-1)?.offset} (line ${k + 1} edited)`);
    // An edit further down reads from a checkpoint of the reading kept (its own, after the first edit), not from before the first edit.
    const second = replace('the', 'our')(edited, 0.8)!;
    const k2 = starts.filter((s) => s <= second.from).length - 1;
    read.length = 0;
    assert.ok(follower.rewind(second.from, [second]));
    const twice = applied(edited, second);
    assert.deepEqual(follower.append(twice.slice(follower.position)), checkTranscript({ file: 'log.jsonl', text: twice }, options));
    const between = starts.filter((s) => s > (starts[k + 1] ?? 0) && s <= second.from).length;
    assert.ok(read.length > 0 && read.length <= 4 && read.every((line) => line.offset < (starts[k2 + 2] ?? 0)), `${read.length} lines read again, from ${read[0]?.offset} (line ${k2 + 1} edited, ${between} lines after the first edit's)`);
    // Appends after them are read as ever.
    const more = text.slice(starts.at(-1));
    assert.deepEqual(follower.append(more), checkTranscript({ file: 'log.jsonl', text: twice + more }, options));
  });

  it('a space typed and deleted in turn in the middle line: read again up to the line after the next (then from the line\'s start), the later windows moved only when read', () => {
    let text = log('anthropic', 50, 3, 2000);
    const starts = lineStarts(text);
    const { follower, read } = followed(text);
    // A line no checkpoint starts at (private: where the follower keeps them is the point).
    const kept = (follower as unknown as { checkpoints: readonly { fed: number }[] }).checkpoints.map((c) => c.fed);
    const k = [25, 26, 27, 28].find((n) => !kept.includes(starts[n]!))!;
    const at = text.indexOf('"text":"', starts[k]) + '"text":"'.length;
    const first = { from: at, removed: 0, inserted: ' ' };
    for (const change of [first, { from: at, removed: 1, inserted: '' }, { from: at, removed: 0, inserted: 'typed' }]) {
      read.length = 0;
      assert.ok(follower.rewind(change.from, [change]));
      const from = follower.position;
      text = applied(text, change);
      const report = follower.append(text.slice(from));
      const last = Object.getOwnPropertyDescriptor(report.steps.at(-1), 'rewrite');
      assert.ok(last?.get, 'the last step\'s windows not moved yet');
      assert.deepEqual(report, checkTranscript({ file: 'log.jsonl', text }, options));
      assert.ok(read.length > 0 && read.every((line) => line.offset >= from && line.offset < lineStarts(text)[k + 2]!), `${read.length} lines read again: ${read.map((l) => l.offset)} from ${from}`);
      // Typing on in the line edited last reads it again from its start.
      assert.ok(change === first ? from < starts[k]! : from === starts[k], `from ${from}, line ${k + 1} at ${starts[k]}`);
    }
  });

  it('typing on in one line, key after key: every check after the first reads again only the line and the next, each kept step moved from its step as read by one translation', () => {
    let text = log('anthropic', 30, 5, 2000);
    const starts = lineStarts(text);
    const { follower, read } = followed(text);
    const at = text.indexOf('"text":"', starts[15]) + '"text":"'.length;
    // Typed, deleted, typed in more bytes: 24 checks, each changing the line's length (the 5th used to read on to the end of the file).
    const keys = [...'typing on, é and 😀 too'].map((inserted, i): TextChange => (i % 7 === 6 ? { from: at, removed: 1, inserted: '' } : { from: at, removed: 0, inserted }));
    for (const [i, change] of keys.entries()) {
      read.length = 0;
      assert.ok(follower.rewind(change.from, [change]));
      text = applied(text, change);
      const report = follower.append(text.slice(follower.position));
      if (i > 0) assert.ok(read.length <= 2 && read.every((l) => l.offset >= starts[15]! && l.offset <= lineStarts(text)[16]!), `check ${i + 1}: ${read.length} lines read again, from line ${starts.indexOf(read[0]?.offset ?? -1) + 1}`);
      const kept = report.steps.slice(17);
      assert.ok(kept.every((step) => unmoved(step) !== step && movedBy(step)?.pieces === 1), `check ${i + 1}: the later steps moved by one translation each`);
      if (i % 5 === 4 || i === keys.length - 1) assert.deepEqual(report, checkTranscript({ file: 'log.jsonl', text }, options), `check ${i + 1}`);
    }
  });

  it('typing on in one line: a kept step moved again holds nothing of its earlier moves (they are collected)', async () => {
    // Each move used to hold the one before it (and its copies of the windows, once read): typing without end grew without bound.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    let text = log('anthropic', 30, 5, 2000);
    const { follower } = followed(text);
    const at = text.indexOf('"text":"', lineStarts(text)[15]) + '"text":"'.length;
    const moved: WeakRef<object>[] = [];
    for (let i = 0; i < 6; i++) {
      const change = { from: at, removed: 0, inserted: 'x' };
      assert.ok(follower.rewind(change.from, [change]));
      text = applied(text, change);
      const steps = follower.append(text.slice(follower.position)).steps;
      // Read, as the session view reads them: each holds its windows' copies.
      for (const step of steps) void step.rewrite;
      const last = steps.at(-1)!;
      assert.ok(unmoved(last) !== last, `check ${i + 1}: the last step kept`);
      moved.push(new WeakRef(last), new WeakRef(last.rewrite!));
    }
    // The checkpoints the last splice kept are made from the check before it until they are made (as the editor does after each report).
    follower.settle();
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    assert.deepEqual(moved.map((ref) => ref.deref() !== undefined), [...Array(10).fill(false), true, true], 'only the last check\'s moved step and its windows held');
  });

  it('the times of the log: an edit of the last line with a time, the first, or one between, kept as a full check gives them', () => {
    // Times on lines 21 and 25 to 33 only (after the head): the later lines have none (the last time is before the lines kept), nor the two after the first.
    const lines = log('anthropic', 40, 6, 2000).split('\n');
    const text = lines.map((l, i) => (i === 20 || (i >= 24 && i <= 32) ? `{"timestamp":"2026-01-01T00:00:${String(10 + i)}Z",${l.slice(1)}` : l)).join('\n');
    // The time's seconds replaced, or (the first line with a time) its key broken: the file's first time is then on the next line.
    for (const [line, inserted] of [[32, '59'], [32, '5'], [20, '01'], [26, '00.5'], [20, 'q']] as const) {
      const { follower, read } = followed(text);
      const key = text.indexOf('"timestamp":"', lineStarts(text)[line]);
      const change = inserted === 'q' ? { from: key + '"timestam'.length, removed: 1, inserted } : { from: key + '"timestamp":"2026-01-01T00:00:'.length, removed: 2, inserted };
      const edited = applied(text, change);
      read.length = 0;
      assert.ok(follower.rewind(change.from, [change]));
      const report = follower.append(edited.slice(follower.position));
      if (inserted !== 'q') assert.ok(read.length <= 4, `${read.length} lines read again`);
      assert.deepEqual(report.session, checkTranscript({ file: 'log.jsonl', text: edited }, options).session, `line ${line + 1}: ${inserted}`);
    }
  });

  it('in the editor: a document edited inside one line is reported as checked whole', () => {
    let text = log('openai-chat', 40, 4, 2000);
    const request = (t: string): TranscriptRequest => ({ kind: 'transcript', file: 'log.jsonl', text: t, tokens: false, limits: {} });
    const follower = new DocumentFollower();
    follower.check(request(text), 1, -1);
    for (const [version, pick] of [[2, 0.4], [3, 0.7], [4, 0.41]] as const) {
      const change = replace('the', 'our')(text, pick)!;
      text = applied(text, change);
      follower.edited(version, change.from, change);
      assert.deepEqual(follower.check(request(text), version, version), checkRequest(request(text)));
    }
  });
});
