/**
 * The session summary and the cache figures the log reports (core/session.ts,
 * core/usage.ts): on real files of the shared corpus, read in place, and on
 * small files written here in the shapes those files have.
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

function summaryOf(file: string): SessionSummary {
  const session = checkTranscript(inputFromFile(path.join(CORPUS, file)), { tokens: false }).session;
  assert.ok(session, 'a report carries its session summary');
  return session;
}

function summaryOfText(file: string, lines: readonly unknown[]): SessionSummary {
  const session = checkTranscript(inputFromText(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n'), { tokens: false }).session;
  assert.ok(session);
  return session;
}

describe('session summary on real files', () => {
  it('a clean Claude Code session: six paired calls, no step, usage per API response counted once', () => {
    const s = summaryOf('claude-code/spotter_tool_heavy.jsonl');
    assert.equal(s.format, 'claude-code');
    assert.deepEqual(s.pairs, { paired: 6, pending: 0, orphaned: 0 });
    assert.deepEqual(s.decisions, { patch: 0, defer: 0, abort: 0 });
    assert.equal(s.compactions, 0);
    assert.deepEqual(s.models, ['claude-opus-4-6']);
    assert.equal(s.firstTime, '2026-02-10T22:57:54.764Z');
    assert.equal(s.lastTime, '2026-02-10T22:59:46.748Z');
    // 9 assistant lines, 4 distinct message ids: 4 requests.
    assert.equal(s.usage?.requests, 4);
    const first = s.cache[0]!;
    assert.equal(first.cacheRead, 17915);
    assert.equal(first.cacheWrite, 7883);
    assert.equal(first.promptTokens, 3 + 17915 + 7883);
    // The second request reads exactly what the first left cached.
    assert.equal(s.cache[1]!.expectedRead, 17915 + 7883);
    assert.equal(s.cache[1]!.cacheRead, 25798);
    assert.equal(s.cache[1]!.agreement, 'agrees');
  });

  it('a drop after a compaction is explained by the prefix break, with its rule and location', () => {
    const file = 'claude-code/spotter_4d5611e5-241a-462a-8d15-5122611a9569.excerpt-L742-L790.jsonl';
    const report = checkTranscript(inputFromFile(path.join(CORPUS, file)), { tokens: false });
    const s = report.session!;
    assert.equal(s.compactions, 1);
    const drop = s.cache.find((c) => c.agreement === 'drop');
    assert.ok(drop, 'the log reports a drop');
    assert.equal(drop.reason, 'prefix-break');
    assert.equal(drop.rule, 'prefix-mutated');
    assert.equal(drop.predicted.intact, false);
    assert.equal(drop.predicted.step, 1);
    const step = report.steps[0]!;
    assert.ok(drop.range && step.range && drop.range.start >= step.range.start, 'located at the step');
    assert.ok(drop.cacheRead < drop.expectedRead! / 2);
  });

  it('a drop after more than five minutes is a time gap', () => {
    const s = summaryOf('claude-code/codemie_incremental-subagents_turn-1.jsonl');
    const second = s.cache[1]!;
    assert.equal(second.agreement, 'drop');
    assert.equal(second.reason, 'time-gap');
    assert.match(second.detail ?? '', /6 min .* beyond the cache lifetime \(5 min\)/);
    assert.equal(s.pairs.pending, 1, 'the last call of a live session is pending');
  });

  it('a side-chain is its own thread', () => {
    const s = summaryOf('claude-code/spotter_agent-acompact-e1f845.jsonl');
    assert.equal(s.cache.length, 1);
    assert.equal(s.cache[0]!.thread, 'acompact-e1f845');
  });

  it('Codex: token counts repeated with the same running total count once; the model from turn_context', () => {
    const s = summaryOf('codex/localpush_rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl');
    assert.deepEqual(s.models, ['gpt-5.3-codex']);
    assert.equal(s.cache[0]!.cacheWrite, undefined, 'OpenAI-style logs report no writes');
    const totals = s.cache.map((c) => `${c.promptTokens}/${c.cacheRead}`);
    for (let i = 1; i < totals.length; i++) assert.notEqual(totals[i], totals[i - 1], 'no request twice in a row');
    assert.equal(s.usage?.cacheWrite, undefined);
  });

  it('request logs: Anthropic and OpenAI usage from the logged responses', () => {
    const anthropic = summaryOf('anthropic-messages/pydanticai_test_multiple_parallel_tool_calls.requests.jsonl');
    assert.equal(anthropic.cache.length, 2);
    assert.equal(anthropic.cache[0]!.promptTokens, 423);
    assert.deepEqual(anthropic.models, ['claude-haiku-4-5-20251001']);
    const responses = summaryOf('openai-responses/pydanticai_test_openai_conversation_id_tool_call_continuation.requests.jsonl');
    assert.deepEqual(responses.cache.map((c) => c.promptTokens), [57, 88]);
    const chat = summaryOf('openai-chat/pydanticai_test_multiple_agent_tool_calls.requests.jsonl');
    assert.ok(chat.cache.some((c) => c.model === 'gpt-4o-mini-2024-07-18' && c.promptTokens === 104));
  });
});

/** Claude Code lines chained by parentUuid: each line's parent is the line before it (uuid = its time). */
const parentOf = (time: string) => PARENTS.get(time) ?? null;
const PARENTS = new Map<string, string>();
const chain = (lines: { uuid: string; timestamp: string }[]) => {
  lines.forEach((l, i) => i > 0 && PARENTS.set(l.timestamp, lines[i - 1]!.uuid));
  return lines.map((l) => ({ ...l, parentUuid: parentOf(l.timestamp) }));
};
const assistant = (id: string, model: string, time: string, usage: object) => ({
  parentUuid: null as string | null,
  isSidechain: false,
  sessionId: 's',
  type: 'assistant',
  uuid: `u-${id}-${time}`,
  timestamp: time,
  message: { id, model, role: 'assistant', content: [{ type: 'text', text: `answer ${id}` }], usage },
});
const user = (text: string, time: string) => ({ parentUuid: null as string | null, isSidechain: false, sessionId: 's', type: 'user', uuid: `q-${time}`, timestamp: time, message: { role: 'user', content: text } });
const usage = (read: number, write: number) => ({ input_tokens: 5, cache_read_input_tokens: read, cache_creation_input_tokens: write, output_tokens: 7 });

describe('cache drops with a byte-identical prefix are labelled with what else changed', () => {
  it('a model change', () => {
    const s = summaryOfText('model.jsonl', chain([
      user('one', '2026-01-01T10:00:00Z'),
      assistant('m1', 'claude-opus-4-6', '2026-01-01T10:00:01Z', usage(0, 5000)),
      user('two', '2026-01-01T10:00:30Z'),
      assistant('m2', 'claude-sonnet-4-5', '2026-01-01T10:00:31Z', usage(0, 5100)),
    ]));
    assert.deepEqual(s.decisions, { patch: 0, defer: 0, abort: 0 });
    assert.equal(s.cache[1]!.reason, 'model-change');
    assert.match(s.cache[1]!.detail ?? '', /claude-opus-4-6 to claude-sonnet-4-5/);
    assert.deepEqual(s.models, ['claude-opus-4-6', 'claude-sonnet-4-5']);
  });

  it('the 1-hour cache is not a time gap after six minutes; nothing else changed: unexplained', () => {
    const long = { ...usage(0, 5000), cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 5000 } };
    const s = summaryOfText('long.jsonl', chain([
      user('one', '2026-01-01T10:00:00Z'),
      assistant('m1', 'claude-opus-4-6', '2026-01-01T10:00:01Z', long),
      user('two', '2026-01-01T10:06:30Z'),
      assistant('m2', 'claude-opus-4-6', '2026-01-01T10:06:31Z', usage(0, 5100)),
    ]));
    assert.equal(s.cache[1]!.reason, 'unexplained');
    assert.equal(s.turns, 2);
  });

  it('an Anthropic request sent without cache_control', () => {
    const request = (messages: object[]) => ({ model: 'claude-haiku-4-5', max_tokens: 100, messages });
    const response = (read: number, write: number) => ({ id: 'r', type: 'message', role: 'assistant', model: 'claude-haiku-4-5', content: [{ type: 'text', text: 'ok' }], usage: usage(read, write) });
    const first = [{ role: 'user', content: [{ type: 'text', text: 'hello', cache_control: { type: 'ephemeral' } }] }];
    const second = [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }, { role: 'assistant', content: [{ type: 'text', text: 'ok' }] }, { role: 'user', content: 'more' }];
    const s = summaryOfText('log.jsonl', [
      { request: request(first), response: response(0, 4000) },
      { request: request(second), response: response(0, 0) },
    ]);
    assert.equal(s.format, 'anthropic');
    assert.equal(s.cache[1]!.agreement, 'drop');
    assert.equal(s.cache[1]!.reason, 'no-cache-control');
  });

  it('an OpenAI prompt under 1024 tokens leaves nothing cached: no drop to explain', () => {
    const request = (n: number) => ({ model: 'gpt-4o', messages: Array.from({ length: n }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: i % 2 ? 'x' : `m${i}` })) });
    const response = (prompt: number, cached: number) => ({ id: 'c', object: 'chat.completion', model: 'gpt-4o', choices: [{ index: 0, message: { role: 'assistant', content: 'x' } }], usage: { prompt_tokens: prompt, completion_tokens: 1, prompt_tokens_details: { cached_tokens: cached } } });
    const s = summaryOfText('chat.jsonl', [
      { request: request(1), response: response(900, 0) },
      { request: request(3), response: response(2000, 0) },
      { request: request(5), response: response(3000, 1920) },
    ]);
    assert.equal(s.format, 'openai-chat');
    assert.deepEqual(s.cache.map((c) => c.agreement), ['agrees', 'agrees', 'agrees']);
    assert.equal(s.cache[2]!.expectedRead, 2000);
    assert.equal(s.usage?.cacheRead, 1920);
  });

  it('usage that is not numbers is skipped, never an error', () => {
    const s = summaryOfText('bad.jsonl', chain([user('one', '2026-01-01T10:00:00Z'), assistant('m1', 'x', 'not a time', { input_tokens: 'many', cache_read_input_tokens: -1 })]));
    assert.equal(s.cache.length, 0);
    assert.equal(s.usage, undefined);
  });
});

describe('the CLI reports carry the same figures', () => {
  it('JSON: the session with cache rows located by line; Markdown: the session line and the drop with its reason', () => {
    const file = path.join(CORPUS, 'claude-code/spotter_4d5611e5-241a-462a-8d15-5122611a9569.excerpt-L742-L790.jsonl');
    const report = checkTranscript(inputFromFile(file), { tokens: false });
    const json = toJsonReport(report);
    const drop = json.session?.cache.find((c) => c.agreement === 'drop');
    assert.ok(drop);
    assert.equal(drop.line, 19);
    assert.equal(drop.reasonLine, 13);
    assert.ok(!('offset' in drop));
    const markdown = toMarkdown(report);
    assert.match(markdown, /## Session\n\n`claude-code` · `claude-opus-4-6` · .* · 3 pairs · 1 compaction/);
    assert.match(markdown, /\| 2 \| 19 \| 21,478 \| 164,830 \| break at step 1: .* \| prefix-break: the prefix broke: step 1 \(defer, prefix-mutated\) \(line 13\) \|/);
  });
});
