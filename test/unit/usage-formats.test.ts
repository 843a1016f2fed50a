/**
 * Usage read from the formats whose adapters parse a whole file (Inspect AI,
 * OpenTelemetry / Langfuse, Gemini CLI) and from Bedrock Converse request
 * logs: per request, in the summary, the cache rows and the CLI reports. Real
 * corpus files read in place, and small files written here in the shapes
 * those formats document (the corpus holds no Inspect or Bedrock usage).
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { checkTranscript } from '../../src/core/check';
import { inputFromFile, inputFromText } from '../../src/core/io';
import { toJsonReport } from '../../src/core/report/json';
import { toMarkdown } from '../../src/core/report/markdown';
import type { SessionSummary } from '../../src/core/session';
import { CORPUS } from '../support/corpus';

const summaryOf = (file: string): SessionSummary => checkTranscript(inputFromFile(path.join(CORPUS, file)), { tokens: false }).session!;
const summaryOfText = (file: string, text: string): SessionSummary => checkTranscript(inputFromText(file, text), { tokens: false }).session!;

describe('Gemini CLI: tokens per gemini message', () => {
  it('a real session: input with cached inside it, output, the model and the time span', () => {
    const s = summaryOf('gemini-cli/codemie_session-2026-01-16T11-01-file-ops-37b7abef.json');
    assert.equal(s.usage?.requests, 9);
    assert.deepEqual(s.models, ['gemini-3-pro']);
    assert.equal(s.cache[1]!.promptTokens, 5054);
    assert.equal(s.cache[1]!.cacheRead, 2745);
    assert.equal(s.cache[1]!.cacheWrite, undefined, 'Gemini reports no writes');
    assert.equal(s.usage?.cacheWrite, undefined);
    assert.equal(s.firstTime, '2026-01-16T11:01:30.378Z');
    // 89 minutes between the third and fourth request: the drop is the cache lifetime.
    const drop = s.cache[3]!;
    assert.equal(drop.agreement, 'drop');
    assert.equal(drop.reason, 'time-gap');
    assert.match(drop.detail ?? '', /89 min since the previous request/);
    assert.deepEqual(s.cache.filter((c) => c.agreement !== 'agrees').map((c) => c.index), [4]);
  });

  it("prompts under Gemini Pro's 4,096-token implicit-cache minimum leave nothing to expect; a miss after it is best effort", () => {
    const s = summaryOf('gemini-cli/codemie_session-2025-12-01T21-45-5b959dae.json');
    assert.equal(s.usage?.requests, 11);
    assert.equal(s.cache[1]!.expectedRead, 0, '2,752 tokens: under the minimum');
    assert.equal(s.cache[1]!.agreement, 'agrees');
    const misses = s.cache.filter((c) => c.agreement === 'drop');
    assert.ok(misses.length > 0 && misses.every((c) => c.reason === 'unexplained' && /best effort/.test(c.detail ?? '')));
  });
});

describe('Langfuse / OpenTelemetry: usageDetails and gen_ai.usage.* per generation', () => {
  it('real exports: every generation with usage, in request (startTime) order, each agent its own thread', () => {
    const s = summaryOf('langfuse/langfuse_pydantic-ai-tools-2025-12-04.json');
    assert.equal(s.usage?.requests, 4);
    assert.deepEqual(s.cache.map((c) => c.promptTokens), [265, 417, 502, 131], 'startTime order, not file order');
    assert.deepEqual(s.cache.map((c) => c.thread), ['main', 'main', 'main', 'thread 2'], 'a second agent (another system prompt) is another thread');
    assert.deepEqual(s.models, ['gpt-4o-mini-2024-07-18']);
    assert.equal(s.firstTime, '2025-12-04T14:51:22.053Z');
    const agents = summaryOf('langfuse/langfuse_openai-agents-2025-09-30.json');
    assert.deepEqual(agents.cache.map((c) => [c.promptTokens, c.cacheRead, c.outputTokens]), [[55, 0, 15], [85, 0, 29]]);
  });

  const trace = (observations: object[]) => JSON.stringify({ trace: { id: 't' }, observations });
  const asked = [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'question' }];
  // Each generation after the first continues the one before it: its input, the answer, one more question.
  const inputs = [asked, [...asked, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'more' }]];
  let n = 0;
  const generation = (start: string, extra: object) => ({
    id: start,
    traceId: 't',
    type: 'GENERATION',
    startTime: start,
    input: inputs[n++ % 2],
    output: { role: 'assistant', content: 'ok' },
    ...extra,
  });

  it('usageDetails with cache reads and writes counted apart from input (the total says so)', () => {
    const s = summaryOfText('t.json', trace([
      generation('2026-01-01T10:00:00Z', { model: 'claude-sonnet-4-5', usageDetails: { input: 10, output: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 4000, total: 4015 } }),
      generation('2026-01-01T10:00:20Z', { model: 'claude-sonnet-4-5', usageDetails: { input: 12, output: 5, cache_read_input_tokens: 4000, cache_creation_input_tokens: 30, total: 4047 } }),
    ]));
    assert.deepEqual(s.cache.map((c) => [c.promptTokens, c.cacheRead, c.cacheWrite]), [[4010, 0, 4000], [4042, 4000, 30]]);
    assert.equal(s.cache[1]!.expectedRead, 4000);
    assert.equal(s.cache[1]!.agreement, 'agrees');
    assert.deepEqual(s.usage && [s.usage.cacheRead, s.usage.cacheWrite], [4000, 4030]);
  });

  it('gen_ai.usage.* attributes (strings), cached tokens inside input_tokens: a drop is explained by the time gap', () => {
    const attrs = (input: number, read: number) => ({ metadata: { attributes: { 'gen_ai.request.model': 'gpt-4.1', 'gen_ai.usage.input_tokens': String(input), 'gen_ai.usage.output_tokens': '3', 'gen_ai.usage.cache_read.input_tokens': String(read) } } });
    const s = summaryOfText('t.json', trace([generation('2026-01-01T10:00:00Z', attrs(3000, 0)), generation('2026-01-01T10:20:00Z', attrs(3100, 0))]));
    assert.deepEqual(s.cache.map((c) => [c.promptTokens, c.cacheRead, c.model]), [[3000, 0, 'gpt-4.1'], [3100, 0, 'gpt-4.1']]);
    assert.equal(s.cache[1]!.agreement, 'drop');
    assert.equal(s.cache[1]!.reason, 'time-gap');
    const hit = summaryOfText('t.json', trace([generation('2026-01-01T10:00:00Z', attrs(3000, 0)), generation('2026-01-01T10:00:10Z', attrs(3100, 2944))]));
    assert.equal(hit.cache[1]!.promptTokens, 3100, 'the read is inside input_tokens, not added to it');
    assert.equal(hit.cache[1]!.agreement, 'agrees');
  });
});

describe('Inspect AI: output.usage of every model event', () => {
  const event = (time: string, usage: object | null, messages: object[]) => ({
    event: 'model',
    timestamp: time,
    model: 'anthropic/claude-sonnet-4-5',
    input: messages,
    tools: [],
    output: { model: 'claude-sonnet-4-5', choices: [{ message: { role: 'assistant', content: 'ok' } }], usage },
  });
  const log = (samples: object[]) => JSON.stringify({ version: 2, status: 'success', eval: { task: 't', run_id: 'r' }, samples });
  const first = [{ role: 'user', content: 'hello' }];
  const second = [...first, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'again' }];
  const sample = (id: string, usages: (object | null)[]) => ({ id, epoch: 1, messages: second, events: usages.map((u, i) => event(`2026-01-01T10:00:0${i}+00:00`, u, i === 0 ? first : second)) });

  it('Anthropic through Inspect: reads and writes counted apart; each sample its own thread', () => {
    const u = (input: number, read: number, write: number) => ({ input_tokens: input, output_tokens: 2, total_tokens: input + 2 + read + write, input_tokens_cache_read: read, input_tokens_cache_write: write });
    const s = summaryOfText('log.json', log([sample('a', [u(4, 0, 5000), u(6, 5000, 40)]), sample('b', [u(4, 0, 5000)])]));
    assert.equal(s.format, 'inspect');
    assert.deepEqual(s.cache.map((c) => [c.thread, c.promptTokens, c.cacheRead, c.cacheWrite]), [
      ['main', 5004, 0, 5000],
      ['main', 5046, 5000, 40],
      ['thread 2', 5004, 0, 5000],
    ]);
    assert.equal(s.cache[1]!.agreement, 'agrees');
    assert.equal(s.cache[2]!.expectedRead, undefined, "a sample's first request expects nothing");
    assert.deepEqual(s.models, ['anthropic/claude-sonnet-4-5']);
    assert.equal(s.firstTime, '2026-01-01T10:00:00+00:00');
  });

  it('OpenAI through Inspect: reads inside input_tokens (the total says so); no usage: nothing read', () => {
    const s = summaryOfText('log.json', log([sample('a', [{ input_tokens: 2000, output_tokens: 1, total_tokens: 2001 }, { input_tokens: 2100, output_tokens: 1, total_tokens: 2101, input_tokens_cache_read: 1920 }])]));
    assert.deepEqual(s.cache.map((c) => [c.promptTokens, c.cacheRead, c.cacheWrite]), [[2000, 0, undefined], [2100, 1920, undefined]]);
    assert.equal(summaryOfText('log.json', log([sample('a', [null, null])])).usage, undefined);
    assert.equal(summaryOf('inspect-ai/inspect_log_message_deduplication.eval').usage, undefined, 'the real .eval records no usage (a hard-coded model)');
  });
});

describe('Bedrock Converse request logs: usage.cacheReadInputTokens / cacheWriteInputTokens', () => {
  const request = (messages: object[], cache: boolean) => ({ modelId: 'anthropic.claude-sonnet-4-5', system: [{ text: 'Be brief.' }, ...(cache ? [{ cachePoint: { type: 'default' } }] : [])], messages, inferenceConfig: { maxTokens: 100 } });
  const response = (input: number, read: number, write: number) => ({
    output: { message: { role: 'assistant', content: [{ text: 'ok' }] } },
    stopReason: 'end_turn',
    usage: { inputTokens: input, outputTokens: 2, totalTokens: input + 2 + read + write, cacheReadInputTokens: read, cacheWriteInputTokens: write },
  });
  const one = [{ role: 'user', content: [{ text: 'hello' }] }];
  const two = [...one, { role: 'assistant', content: [{ text: 'ok' }] }, { role: 'user', content: [{ text: 'more' }] }];

  it('reads and writes per request; a drop on a request without cachePoint says so; the CLI reports carry them', () => {
    const text = [{ request: request(one, true), response: response(5, 0, 3000) }, { request: request(two, false), response: response(3010, 0, 0) }].map((l) => JSON.stringify(l)).join('\n') + '\n';
    const report = checkTranscript(inputFromText('converse.jsonl', text), { tokens: false });
    const s = report.session!;
    assert.equal(s.format, 'bedrock');
    assert.deepEqual(s.cache.map((c) => [c.promptTokens, c.cacheRead, c.cacheWrite, c.model]), [[3005, 0, 3000, 'anthropic.claude-sonnet-4-5'], [3010, 0, 0, 'anthropic.claude-sonnet-4-5']]);
    assert.equal(s.cache[1]!.agreement, 'drop');
    assert.equal(s.cache[1]!.reason, 'no-cache-control');
    const json = toJsonReport(report);
    assert.equal(json.session?.cache[1]?.line, 2);
    assert.equal(json.session?.usage?.cacheWrite, 3000);
    assert.match(toMarkdown(report), /no-cache-control/);
  });

  it('a cachePoint moved to the newest message is no change of the prefix (the model never reads it): patch', () => {
    const point = { cachePoint: { type: 'default' } };
    const first = [{ role: 'user', content: [{ text: 'hello' }, point] }];
    const next = [{ role: 'user', content: [{ text: 'hello' }] }, { role: 'assistant', content: [{ text: 'ok' }] }, { role: 'user', content: [{ text: 'more' }, point] }];
    const text = [{ request: request(first, false), response: response(5, 0, 3000) }, { request: request(next, false), response: response(10, 3000, 20) }].map((l) => JSON.stringify(l)).join('\n') + '\n';
    const report = checkTranscript(inputFromText('converse.jsonl', text), { tokens: false });
    assert.deepEqual(report.steps.map((s) => s.decision), ['patch']);
    assert.deepEqual(report.findings, []);
    assert.equal(report.session!.cache[1]!.agreement, 'agrees');
  });
});
