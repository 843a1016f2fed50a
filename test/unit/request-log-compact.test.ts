/**
 * A check that keeps no windows keeps a request log's carried messages as
 * their places in the line (formats/carried-message.ts), read again when
 * asked for. Its reports must be exactly those of the reference path, which reads every line in full with
 * plain blocks (the same codec without its `carrier`), on logs of the three
 * provider formats whose later requests edit carried messages deep in their
 * history, cut a pair, drop a result, add `cache_control` (a content the
 * reader changes) or re-order an input's keys.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { generateLog, type LogFormat } from '../../bench/generate';
import { checkTranscript, checkTranscriptWith } from '../../src/core/check';
import { anthropicCodec } from '../../src/core/formats/anthropic';
import { carrySpans } from '../../src/core/formats/carry';
import { openaiChatCodec } from '../../src/core/formats/openai-chat';
import { openaiResponsesCodec } from '../../src/core/formats/openai-responses';
import { readRequestLog, type ProviderCodec } from '../../src/core/formats/request-log';
import { inputFromText } from '../../src/core/io';
import type { Finding } from '../../src/core/findings';
import type { Message } from '../../src/core/model';
import type { FormatAdapter } from '../../src/core/transcript';

type Json = Record<string, unknown>;

const CODECS: Record<LogFormat, ProviderCodec> = { anthropic: anthropicCodec, 'openai-chat': openaiChatCodec, 'openai-responses': openaiResponsesCodec };

/** The reference: every line parsed and read in full, no carrier, so no compact blocks. */
function referenceAdapter(codec: ProviderCodec): FormatAdapter {
  return { id: codec.format, label: codec.label, sniff: () => false, read: (input) => readRequestLog(input, { ...codec, carrier: undefined }) };
}

/** The first `requests` lines of the bench's log of `format`, as records. */
function benchRecords(format: LogFormat, requests: number): Json[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pl-compact-'));
  try {
    const file = path.join(dir, 'log.jsonl');
    generateLog(file, { format, requests, bytesPerTurn: 40, seed: 7 });
    return fs.readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Json);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function messagesOf(record: Json): Json[] {
  const request = record.request as Json;
  return (request.messages ?? request.input) as Json[];
}

const isCall = (m: Json) => Array.isArray(m.tool_calls) || m.type === 'function_call' || (Array.isArray(m.content) && m.content.some((b: Json) => b.type === 'tool_use'));
const isResult = (m: Json) => m.role === 'tool' || m.type === 'function_call_output' || (Array.isArray(m.content) && m.content.some((b: Json) => b.type === 'tool_result'));

/** Index of the first message at or after `from` that `is` holds. */
function firstAt(messages: Json[], from: number, is: (m: Json) => boolean): number {
  const at = messages.findIndex((m, k) => k >= from && is(m));
  assert.ok(at >= 0, 'the log has such a message');
  return at;
}

/** A call's input made other: an Anthropic `input`, an OpenAI `arguments` string. */
function editCall(message: Json): void {
  const use = Array.isArray(message.content) ? (message.content as Json[]).find((b) => b.type === 'tool_use') : undefined;
  if (use) use.input = { ...(use.input as Json), sql: 'drop table orders' };
  const chat = Array.isArray(message.tool_calls) ? ((message.tool_calls as Json[])[0]?.function as Json) : undefined;
  if (chat) chat.arguments = JSON.stringify({ sql: 'drop table orders' });
  if (message.type === 'function_call') message.arguments = JSON.stringify({ sql: 'drop table orders' });
}

/** The keys of a call's input in reverse order (Anthropic; OpenAI arguments re-written with their keys reversed). */
function reorderCall(message: Json): void {
  const reverse = (o: Json) => Object.fromEntries(Object.entries(o).reverse());
  const use = Array.isArray(message.content) ? (message.content as Json[]).find((b) => b.type === 'tool_use') : undefined;
  if (use) use.input = reverse(use.input as Json);
  const chat = Array.isArray(message.tool_calls) ? ((message.tool_calls as Json[])[0]?.function as Json) : undefined;
  if (chat) chat.arguments = JSON.stringify(reverse(JSON.parse(chat.arguments as string) as Json));
  if (message.type === 'function_call') message.arguments = JSON.stringify(reverse(JSON.parse(message.arguments as string) as Json));
}

/** A result's content with a `cache_control` the reader drops (Anthropic), or a longer text. */
function markResult(message: Json): void {
  const result = Array.isArray(message.content) ? (message.content as Json[]).find((b) => b.type === 'tool_result') : undefined;
  if (result) result.content = [{ type: 'text', text: String(result.content), cache_control: { type: 'ephemeral' } }];
  else if (message.role === 'tool') message.content = `${String(message.content)} (cached)`;
  else message.output = `${String(message.output)} (cached)`;
}

/** Changes of the history at request `at` (and, `kept`, in every request after it), deep in the carried messages. */
function mutated(records: Json[]): string {
  const from = (at: number, kept: boolean, change: (messages: Json[]) => void) => {
    for (let r = at; r < (kept ? records.length : at + 1); r++) change(messagesOf(records[r] as Json));
  };
  from(8, true, (m) => editCall(m[firstAt(m, 3, isCall)] as Json)); // a carried call edited, kept so
  from(12, false, (m) => void m.splice(firstAt(m, 9, isResult), 1)); // a result dropped in one request
  from(15, true, (m) => {
    const call = firstAt(m, 14, isCall);
    m.splice(call, firstAt(m, call, isResult) - call + 1); // a pair cut, for good
  });
  from(18, true, (m) => markResult(m[firstAt(m, 5, isResult)] as Json));
  from(21, false, (m) => reorderCall(m[firstAt(m, 20, isCall)] as Json));
  return `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;
}

function ranges(findings: readonly Finding[]): string[] {
  return findings.map((f) => `${f.rule} ${f.range.start}-${f.range.end} ${f.message}`);
}

for (const format of ['anthropic', 'openai-chat', 'openai-responses'] as const) {
  describe(`compact blocks of a ${format} request log`, () => {
    const codec = CODECS[format];
    const text = mutated(benchRecords(format, 26));
    const input = () => inputFromText('log.jsonl', text);
    const compact = checkTranscript(input(), { format, tokens: 'o200k_base' });
    const reference = checkTranscriptWith(referenceAdapter(codec), input(), { tokens: 'o200k_base' });

    it('gives the reference report: every finding with its rule, range and message, every step', () => {
      assert.deepEqual(ranges(compact.findings), ranges(reference.findings));
      assert.deepEqual(JSON.parse(JSON.stringify(compact)), JSON.parse(JSON.stringify(reference)));
    });

    it('reports the edits of carried messages where they are, in the line of the request that made them', () => {
      const rules = new Set(compact.findings.map((f) => f.rule));
      assert.ok(rules.has('prefix-mutated'), `prefix-mutated found (${[...rules].join(', ')})`);
      assert.ok(compact.steps.some((s) => s.decision === 'abort'));
      const edited = compact.findings.filter((f) => f.rule === 'prefix-mutated' && text.slice(f.range.start, f.range.end).includes('drop table orders'));
      assert.ok(edited.length > 0, 'the edited call is where the finding points');
    });
  });
}

it("the lines' spans share one buffer, and a second line carrying from the same line (a fork) does not write over the first's", () => {
  const message = (start: number, end: number): Message => ({ role: 'user', blocks: [], source: { start, end } });
  const closing = () => 125;
  const first = carrySpans(undefined, 0, [message(10, 20), message(21, 30)], 0, closing);
  const source = { text: () => '', base: 0, items: [message(10, 20), message(21, 30)], spans: first };
  const next = carrySpans(source, 2, [...source.items, message(31, 40)], 0, closing);
  assert.equal(next.buffer, first.buffer, 'extended in place');
  const fork = carrySpans(source, 2, [...source.items, message(41, 45)], 0, closing);
  assert.notEqual(fork.buffer, first.buffer, 'copied');
  assert.deepEqual([...first], [10, 20, 21, 30]);
  assert.deepEqual([...next], [10, 20, 21, 30, 31, 40]);
  assert.deepEqual([...fork], [10, 20, 21, 30, 41, 45]);
  const fewer = carrySpans({ ...source, items: [...source.items, message(31, 40)], spans: next }, 1, [message(10, 20), message(50, 60)], 0, closing);
  assert.deepEqual([...fewer], [10, 20, 50, 60]);
  assert.deepEqual([...next], [10, 20, 21, 30, 31, 40], 'a line carrying fewer elements leaves the longer line its spans');
});
