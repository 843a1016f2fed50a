/**
 * A request log's usage read from the nodes its reader parsed
 * (usage-parsed.ts) against `JSON.parse` of every line (the scanner on its
 * own, with no reader telling it anything): the same records and times, on
 * random logs of every provider shape, with usage keys written with escapes,
 * `cache_control` / `cachePoint` spelled both ways, the usage words only in a
 * message, a byte order mark, responses that are not objects, bad lines; the
 * timestamps and keys of a line that repeats the previous one's start found
 * from that line's.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { anthropicAdapter } from '../../src/core/formats/anthropic';
import { bedrockAdapter } from '../../src/core/formats/bedrock';
import { geminiAdapter } from '../../src/core/formats/gemini';
import { openaiChatAdapter } from '../../src/core/formats/openai-chat';
import { openaiResponsesAdapter } from '../../src/core/formats/openai-responses';
import { inputFromText } from '../../src/core/io';
import type { SourceLine } from '../../src/core/text';
import type { FormatAdapter, TranscriptInput } from '../../src/core/transcript';
import { UsageScanner, type LogFacts } from '../../src/core/usage';

/** The log's lines, each shown to `usage` as it is read. */
function* observed(text: string, usage: UsageScanner): Generator<SourceLine> {
  for (const line of inputFromText('log.jsonl', text).lines()) {
    usage.observe(line);
    yield line;
  }
}

/** The scanner fed every line, with the adapter reading them and telling it what it parsed. */
function withReader(adapter: FormatAdapter, text: string): { facts: LogFacts; told: number } {
  const usage = new UsageScanner(adapter.id);
  let told = 0;
  const parsed: TranscriptInput['parsed'] = (line, node, shared) => (told++, usage.parsed(line, node, shared));
  for (const _ of adapter.read({ ...inputFromText('log.jsonl', text), lines: () => observed(text, usage), parsed }));
  return { facts: usage.facts(), told };
}

/** The scanner alone: `JSON.parse` of each line that names usage. */
function alone(adapter: FormatAdapter, text: string): LogFacts {
  const usage = new UsageScanner(adapter.id);
  for (const _ of observed(text, usage));
  return usage.facts();
}

type Json = Record<string, unknown>;

const USAGES: Json[] = [
  { input_tokens: 10, cache_read_input_tokens: 900, cache_creation_input_tokens: 40, output_tokens: 7, cache_creation: { ephemeral_1h_input_tokens: 3 } },
  { prompt_tokens: 900, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 512 } },
  { input_tokens: 900, input_tokens_details: { cached_tokens: 256 }, output_tokens: 9 },
  { inputTokens: 20, cacheReadInputTokens: 800, cacheWriteInputTokens: 30, outputTokens: 4, totalTokens: 854 },
  { input_tokens: -1, output_tokens: 'x' },
];

const ADAPTERS = [anthropicAdapter, openaiChatAdapter, openaiResponsesAdapter, bedrockAdapter, geminiAdapter];

interface LineSpec {
  usage: number;
  meta: boolean;
  cache: 'none' | 'plain' | 'escaped' | 'point';
  words: boolean;
  escapeKey: boolean;
  timestamp: 'none' | 'start' | 'end' | 'in-message';
  shape: 'record' | 'array-response' | 'bad' | 'blank' | 'bare';
}

const lineSpec: fc.Arbitrary<LineSpec> = fc.record({
  usage: fc.nat(USAGES.length),
  meta: fc.boolean(),
  cache: fc.constantFrom('none', 'plain', 'escaped', 'point'),
  words: fc.boolean(),
  escapeKey: fc.boolean(),
  timestamp: fc.constantFrom('none', 'start', 'end', 'in-message'),
  shape: fc.constantFrom('record', 'record', 'record', 'array-response', 'bad', 'blank', 'bare'),
});

function logLine(spec: LineSpec, i: number, history: Json[]): string {
  if (spec.shape === 'blank') return '   ';
  const text = spec.words ? 'how is the token usage and the turn_context?' : `turn ${i}`;
  const said = spec.timestamp === 'in-message' && { timestamp: `2025-05-0${1 + (i % 8)}T09:00:00Z` };
  history.push({ role: 'user', content: spec.cache === 'plain' ? [{ type: 'text', text, cache_control: { type: 'ephemeral' } }] : text, ...said });
  const request: Json = { model: 'claude', modelId: 'anthropic.claude', messages: history.slice(), input: history.slice(), contents: undefined };
  if (spec.cache === 'point') request.system = [{ text: 'Be brief.' }, { cachePoint: { type: 'default' } }];
  if (spec.cache === 'escaped') request.metadata = { marker: 'CACHE' };
  const usage = USAGES[spec.usage];
  const response: Json = { id: `r${i}`, model: `m${i % 3}`, content: [{ type: 'text', text: 'ok' }], output: [], choices: [] };
  if (usage) response.usage = usage;
  if (spec.meta) response.usageMetadata = { promptTokenCount: 700, cachedContentTokenCount: 600, candidatesTokenCount: 3 };
  const time = `2025-06-0${1 + (i % 8)}T10:00:00Z`;
  const record: Json = { ...(spec.timestamp === 'start' && { timestamp: time }), request, response: spec.shape === 'array-response' ? [response] : response, ...(spec.timestamp === 'end' && { timestamp: time }) };
  let line = JSON.stringify(spec.shape === 'bare' ? request : record);
  if (spec.cache === 'escaped') line = line.replace('"metadata":{"marker":"CACHE"}', '"cache\\u005fcontrol":{"type":"ephemeral"}');
  if (spec.escapeKey) line = line.replace('"usage":', '"\\u0075sage":');
  if (spec.shape === 'bad') line = line.slice(0, line.length - 3);
  return line;
}

function logText(specs: readonly LineSpec[], bom: boolean): string {
  const history: Json[] = [];
  return (bom ? '\ufeff' : '') + specs.map((s, i) => logLine(s, i, history)).join('\n') + '\n';
}

test('property: usage read from the parsed nodes is what parsing every line gives, on every provider reader', () => {
  let told = 0;
  fc.assert(
    fc.property(fc.constantFrom(...ADAPTERS), fc.array(lineSpec, { minLength: 1, maxLength: 8 }), fc.boolean(), (adapter, specs, bom) => {
      const text = logText(specs, bom);
      const read = withReader(adapter, text);
      told += read.told;
      assert.deepStrictEqual(read.facts, alone(adapter, text));
    }),
    { numRuns: 300 },
  );
  assert.ok(told > 300, `${told} lines told`);
});

test('a log whose every response reports usage: every record read from the nodes, the same as parsing', () => {
  for (const [adapter, usage] of [
    [anthropicAdapter, 0],
    [openaiChatAdapter, 1],
  ] as const) {
    const specs: LineSpec[] = Array.from({ length: 6 }, (_, i) => ({ usage, meta: false, cache: i % 2 ? 'plain' : 'none', words: false, escapeKey: false, timestamp: 'end', shape: 'record' }));
    const text = logText(specs, false);
    const read = withReader(adapter, text);
    assert.equal(read.facts.usage.length, 6);
    assert.ok(read.facts.usage.some((u) => u.cacheControl === true) || adapter !== anthropicAdapter);
    assert.deepStrictEqual(read.facts, alone(adapter, text));
  }
});
