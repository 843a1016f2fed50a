/**
 * A check that keeps no windows keeps a request log's carried messages as
 * places in the line (formats/carried-message.ts): no message objects with
 * their blocks for the history, the blocks of at most RECENT messages held,
 * the others read again from the newest line that carries them. Its reports
 * must be exactly the reference path's (every line read in full, plain
 * messages) on logs long enough that carried messages are let go and read
 * again: edits deep in the history (once, or kept in every later request, so
 * that the messages after the edit move to a line of their own), cut pairs,
 * re-ordered keys, repeated and truncated lines; from a text and from a file
 * (where the lines share their history's bytes). A carried message read again
 * is the message its reader made, and what the window holds per carried
 * message is bounded, as is what an unread-parts walk holds for it (its marks
 * are kept in the message).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import type { LogFormat } from '../../bench/generate';
import { generatedLogLines } from '../support/generated-log';
import { checkTranscript, checkTranscriptWith } from '../../src/core/check';
import { anthropicCodec } from '../../src/core/formats/anthropic';
import { exactWindow } from '../../src/core/formats/carry';
import { CarriedMessage, Home, RECENT } from '../../src/core/formats/carried-message';
import { openaiChatCodec } from '../../src/core/formats/openai-chat';
import { openaiResponsesCodec } from '../../src/core/formats/openai-responses';
import { readRequestLog, type ProviderCodec } from '../../src/core/formats/request-log';
import { inputFromFile, inputFromText } from '../../src/core/io';
import type { ContextWindow, Message } from '../../src/core/model';
import type { FormatAdapter, TranscriptInput } from '../../src/core/transcript';
import { collectUnreadParts, unreadParts } from '../../src/core/unread-parts';
import { settledHeap, settledMemory } from './settled-heap';

type Json = Record<string, unknown>;

const CODECS: Record<LogFormat, ProviderCodec> = { anthropic: anthropicCodec, 'openai-chat': openaiChatCodec, 'openai-responses': openaiResponsesCodec };
const FORMATS = Object.keys(CODECS) as LogFormat[];

function referenceAdapter(codec: ProviderCodec): FormatAdapter {
  return { id: codec.format, label: codec.label, sniff: () => false, read: (input) => readRequestLog(input, { ...codec, carrier: undefined }) };
}

function tmpDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'pl-carried-'));
}

function messagesOf(record: Json): Json[] | undefined {
  const request = (record.request ?? record) as Json;
  return (request.messages ?? request.input) as Json[] | undefined;
}

type Edit = 'edit' | 'edit-kept' | 'drop' | 'cut-history' | 'reorder' | 'reorder-kept' | 'repeat' | 'truncate';

/** A message changed: a text, a call's input or a result's content edited, or its keys in reverse order. */
function change(message: Json, how: 'edit' | 'reorder'): Json {
  if (how === 'reorder') return Object.fromEntries(Object.entries(message).reverse());
  const json = JSON.stringify(message);
  const edited = json.replace(/"(text|content|arguments|output)":"/, '"$1":"edited ');
  return JSON.parse(edited === json ? json.replace(/^\{/, '{"extra":"x",') : edited) as Json;
}

/** `edit` of message `k` of the request at line `at` (and, for a kept one, of every request after it). */
function applied(lines: string[], edit: Edit, at: number, k: number): string[] {
  const out = lines.slice();
  if (edit === 'repeat') return [...out.slice(0, at + 1), out[at] as string, ...out.slice(at + 1)];
  if (edit === 'truncate') return out.map((line, i) => (i === at ? line.slice(0, Math.floor(line.length * 0.7)) : line));
  const kept = edit.endsWith('-kept');
  for (let i = at; i < (kept ? out.length : at + 1); i++) {
    let record: Json;
    try {
      record = JSON.parse(out[i] as string) as Json;
    } catch {
      continue;
    }
    const messages = messagesOf(record);
    if (!messages || messages.length < 3) continue;
    const m = Math.min(k, messages.length - 1);
    if (edit === 'drop') messages.splice(m, 1);
    else if (edit === 'cut-history') messages.splice(1, Math.max(1, m - 1));
    else messages[m] = change(messages[m] as Json, edit.startsWith('reorder') ? 'reorder' : 'edit');
    out[i] = JSON.stringify(record);
  }
  return out;
}

const editArb = fc.record({
  edit: fc.constantFrom<Edit>('edit', 'edit-kept', 'drop', 'cut-history', 'reorder', 'reorder-kept', 'repeat', 'truncate'),
  at: fc.integer({ min: 2, max: 40 }),
  k: fc.integer({ min: 1, max: 60 }),
});

function json(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

test('the report of a log whose carried messages are let go and read again is the reference report (random edits, from a text and a file)', () => {
  const dir = tmpDir();
  try {
    fc.assert(
      fc.property(fc.constantFrom(...FORMATS), fc.integer({ min: 1, max: 1000 }), fc.array(editArb, { minLength: 0, maxLength: 3 }), (format, seed, edits) => {
        let lines = generatedLogLines(format, 42, seed);
        for (const { edit, at, k } of edits) lines = applied(lines, edit, Math.min(at, lines.length - 1), k);
        const text = `${lines.join('\n')}\n`;
        const file = path.join(dir, `log-${format}.jsonl`);
        fs.writeFileSync(file, text);
        const reference = json(checkTranscriptWith(referenceAdapter(CODECS[format]), inputFromText('log.jsonl', text), { tokens: 'o200k_base' }));
        assert.deepEqual(json(checkTranscript(inputFromText('log.jsonl', text), { format, tokens: 'o200k_base' })), reference);
        const fromFile = json(checkTranscript(inputFromFile(file), { format, tokens: 'o200k_base' })) as Json;
        assert.deepEqual({ ...fromFile, file: 'log.jsonl' }, reference);
      }),
      { numRuns: 24 },
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** The last window a reader gives a check that keeps none (its carried messages left as first read), for a log's text; the windows before it are let go. */
function lastWindowOf(format: LogFormat, text: string): ContextWindow {
  const input: TranscriptInput = { ...inputFromText('log.jsonl', text), firstReadings: true };
  let last: ContextWindow | undefined;
  for (const event of readRequestLog(input, CODECS[format])) if (event.kind === 'window') last = event.window;
  assert.ok(last);
  return last;
}

/** A message's fields as read (getters included), as plain data. */
function plain(message: Message): unknown {
  return json({ role: message.role, source: message.source, container: message.container, elision: message.elision ?? false, blocks: message.blocks });
}

test('a carried window holds message places, not message objects: at most RECENT hold their blocks, and each reads as the full reading of its line', () => {
  for (const format of FORMATS) {
    const lines = generatedLogLines(format, 120, 3);
    const last = lastWindowOf(format, `${lines.join('\n')}\n`);
    const carried = last.messages.filter((m) => m instanceof CarriedMessage) as CarriedMessage[];
    assert.ok(carried.length > 4 * RECENT, `${format}: ${carried.length} carried messages`);
    // Every element of the messages array (not the Anthropic system or the Responses instructions) is a place.
    assert.ok(last.messages.length - carried.length <= 1, `${format}: every message of the history is a place`);
    assert.ok(carried.filter((m) => m.holdsBlocks()).length <= RECENT, `${format}: at most RECENT hold their blocks`);
    // Read again, and moved to the last line: the full reading of that line alone, its offsets from the line's start.
    const offset = lines.slice(0, -1).reduce((n, line) => n + line.length + 1, 0);
    const alone = [...readRequestLog(inputFromText('one.json', lines[lines.length - 1] as string), { ...CODECS[format], carrier: undefined })].find((e) => e.kind === 'window');
    assert.ok(alone?.kind === 'window');
    const moved = (m: Message) => JSON.stringify(plain(m)).replace(/"(start|end|keyStart|keyEnd)":(\d+)/g, (_, key: string, n: string) => `"${key}":${Number(n) - offset}`);
    assert.deepEqual(exactWindow(last).messages.map(moved), alone.window.messages.map((m) => JSON.stringify(plain(m))), format);
  }
});

/** The heap the last window of a log of `requests` holds, and its messages. */
function lastWindowHeap(requests: number): { heap: number; messages: number } {
  const lines = generatedLogLines('anthropic', requests, 11);
  const text = `${lines.join('\n')}\n`;
  lines.length = 0;
  const before = settledHeap();
  let window: ContextWindow | undefined = lastWindowOf('anthropic', text);
  const heap = settledHeap() - before;
  const messages = window.messages.length;
  window = undefined;
  return { heap, messages };
}

test('what a carried window holds per message is bounded (a message object with its blocks per carried message is not)', () => {
  // Many small messages: what is held per message, not their texts (the lines are the file's), is what counts. Each size read once before, so that its code is compiled.
  lastWindowHeap(200);
  lastWindowHeap(400);
  // The least of two rounds: compiled code and a loaded machine's GC timing add to one round, never to what the window holds.
  const rounds = [0, 1].map(() => {
    const [small, large] = [lastWindowHeap(200), lastWindowHeap(400)];
    return { perMessage: (large.heap - small.heap) / (large.messages - small.messages), more: large.messages - small.messages };
  });
  const { perMessage, more } = rounds.reduce((a, b) => (a.perMessage <= b.perMessage ? a : b));
  // ~220-290 bytes a message kept as its place (the object, its numbers, its places in the arrays that hold it); ~550 as a message object with its compact blocks (the code before carried-message.ts).
  assert.ok(perMessage < 430, `${perMessage.toFixed(0)} bytes a carried message (${more} messages more)`);
});

/** The heap an unread-parts walk of `count` carried messages holds (the messages held before and after). */
function walkHeap(count: number): number {
  const home = new Home({ text: '{}', offset: 0, index: 0 }, 0, () => ({ role: 'user', blocks: [] }));
  const messages = Array.from({ length: count }, () => new CarriedMessage({ role: 'user', blocks: [] }, { start: 0, end: 2 }, home));
  const window = { format: 'anthropic', messages, tools: [], boundary: 0 } as unknown as ContextWindow;
  const before = settledHeap();
  const unread = unreadParts();
  collectUnreadParts(window, unread);
  const heap = settledHeap() - before;
  assert.ok(messages.every((m) => unread.walked.has(m)));
  return heap;
}

test("the unread-parts walk keeps its marks in a request log's carried messages, not a WeakMap entry per message", () => {
  walkHeap(20_000);
  // The least of three rounds: a loaded machine's GC timing adds to one round, never to what the walk holds.
  const perMessage = Math.min(...[0, 1, 2].map(() => walkHeap(20_000) / 20_000));
  // A WeakMap entry per message took ~30-50 bytes (its table is kept at most half full); the marks are two numbers of the message.
  assert.ok(perMessage < 8, `${perMessage.toFixed(1)} bytes a walked message`);
});

test('a carried message is its place and a few numbers: its role and elision one small integer, so the walk marks cost one field more', () => {
  const home = new Home({ text: '{}', offset: 0, index: 0 }, 0, () => ({ role: 'user', blocks: [] }));
  const container = { start: 0, end: 2 };
  const made = (n: number) => Array.from({ length: n }, (_, k) => new CarriedMessage({ role: k % 2 ? 'assistant' : 'user', blocks: [], container, elision: k % 3 === 0 || undefined }, { start: 0, end: 2 }, home));
  const sample = made(8);
  assert.deepEqual(sample.map((m) => [m.role, m.elision]), sample.map((_, k) => [k % 2 ? 'assistant' : 'user', k % 3 === 0 || undefined]));
  const bytes = Math.min(
    ...[0, 1, 2].map(() => {
      const before = settledHeap();
      const messages = made(20_000);
      const heap = settledHeap() - before;
      assert.equal(messages.length, 20_000);
      return heap / 20_000;
    }),
  );
  // 11 fields of 8 bytes, the object's header (Node has no pointer compression) and its element: 120; 128 with role and elision apart.
  assert.ok(bytes < 124, `${bytes.toFixed(1)} bytes a carried message`);
});

test("a carried message is its home and its row of its reader's rows: 48 bytes of object, its numbers 36 bytes of typed arrays", () => {
  const home = new Home({ text: '{}', offset: 0, index: 0 }, 0, () => ({ role: 'user', blocks: [] }));
  const container = { start: 0, end: 2 };
  const made = (n: number) => Array.from({ length: n }, (_, k) => new CarriedMessage({ role: 'assistant', blocks: [], container, elision: k % 3 === 0 || undefined }, { start: 40_000 + k, end: 40_002 + k }, home));
  made(64);
  const rounds = [0, 1, 2].map(() => {
    const before = settledMemory();
    const messages = made(20_000);
    const after = settledMemory();
    assert.deepEqual(messages[19_999]?.source, { start: 59_999, end: 60_001 });
    return { heap: (after.heap - before.heap) / 20_000, external: (after.external - before.external) / 20_000 };
  });
  const heap = Math.min(...rounds.map((r) => r.heap));
  const external = Math.min(...rounds.map((r) => r.external));
  // The object (3 fields and its header) and its element: 56 bytes; 120 with its numbers and blocks as fields (the code before the rows).
  assert.ok(heap < 72, `${heap.toFixed(1)} bytes of heap a carried message`);
  // Its row, 36 bytes, with the rows' room to grow (a quarter); the heap and the rows together under what the object alone held.
  assert.ok(external < 52 && heap + external < 112, `${external.toFixed(1)} bytes of rows a carried message (${heap.toFixed(1)} of heap)`);
});

test("a carried message's messages array range is two numbers of its row, made when read: no range object held per line that first read messages", () => {
  const home = new Home({ text: '{}', offset: 0, index: 0 }, 0, () => ({ role: 'user', blocks: [] }));
  // A range of its own per message, as a log whose every line first reads one message.
  const made = (n: number) => Array.from({ length: n }, (_, k) => new CarriedMessage({ role: 'user', blocks: [], container: { start: 1_000 * k, end: 1_000 * k + 900 } }, { start: 1_000 * k + 1, end: 1_000 * k + 40 }, home));
  made(64);
  const heap = Math.min(
    ...[0, 1, 2].map(() => {
      const before = settledHeap();
      const messages = made(20_000);
      const held = (settledHeap() - before) / 20_000;
      assert.deepEqual(messages[7]?.container, { start: 7_000, end: 7_900 });
      return held;
    }),
  );
  const none = new CarriedMessage({ role: 'user', blocks: [] }, { start: 5, end: 9 }, home);
  assert.equal(none.container, undefined);
  // The object (2 fields) and its element: 48 bytes; 96 with a container field and a range object each (the code before).
  assert.ok(heap < 64, `${heap.toFixed(1)} bytes of heap a carried message with its range`);
});
