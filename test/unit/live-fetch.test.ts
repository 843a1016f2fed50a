/**
 * guardedFetch driven by the official SDKs (@anthropic-ai/sdk, openai) against
 * a real HTTP server on 127.0.0.1 replaying recorded provider responses: the
 * corpus' JSON responses (Anthropic, Chat and Responses), and event streams in the providers' documented shapes
 * (test/fixtures/live/*.sse: the corpus holds no streamed recordings).
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { guardedFetch, GuardRefusedError, refusalOf } from '../../src/core/live/fetch';
import type { LiveVerdict } from '../../src/core/live/judge';
import { jsonReply, sseReply, startUpstream, type Upstream } from '../support/upstream';
import { LiveGuard } from '../../src/core/live/judge';
import { recordedExchanges, replay, sse, type RecordedExchange } from './live-helpers';


let upstream: Upstream;
before(async () => (upstream = await startUpstream()));
after(() => upstream.close());

function anthropicClient(verdicts: LiveVerdict[]): Anthropic {
  return new Anthropic({ apiKey: 'sk-ant-test-secret', baseURL: upstream.url, maxRetries: 0, fetch: guardedFetch({ onVerdict: (v) => verdicts.push(v) }) });
}

const body = (exchange: RecordedExchange) => exchange.request as never;
/** What a verdict decides, and on which rules. */
const outcome = (v: LiveVerdict) => [v.thread, v.step, v.decision, v.findings.map((f) => f.rule)];

describe('guardedFetch with the Anthropic SDK', () => {
  const log = recordedExchanges('anthropic-messages', 'pydanticai_test_multiple_parallel_tool_calls.requests.jsonl');
  const [first, second] = log as [RecordedExchange, RecordedExchange];

  it('judges each request of a recorded conversation and passes the responses through', async () => {
    const verdicts: LiveVerdict[] = [];
    const client = anthropicClient(verdicts);
    upstream.replies.push(jsonReply(first.response), jsonReply(second.response));
    const reply = await client.messages.create(body(first));
    assert.deepEqual(reply, first.response);
    await client.messages.create(body(second));
    assert.deepEqual(verdicts.map((v) => [v.thread, v.step, v.decision]), [[1, 1, 'patch'], [1, 2, 'patch']]);
  });

  it('throws GuardRefusedError for an orphaning compaction, and nothing is sent', async () => {
    const verdicts: LiveVerdict[] = [];
    const client = anthropicClient(verdicts);
    upstream.replies.push(jsonReply(first.response));
    await client.messages.create(body(first));
    const sent = upstream.received.length;
    const messages = second.request.messages as unknown[];
    const compacted = { ...second.request, messages: [messages[0], ...messages.slice(2)] };
    const error = await client.messages.create(compacted as never).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(error instanceof Anthropic.APIConnectionError, 'the SDK wraps what a fetch throws');
    const refusal = refusalOf(error);
    assert.ok(refusal instanceof GuardRefusedError, `the refusal reaches the caller (got ${String(error)})`);
    assert.equal(refusal.verdict.decision, 'abort');
    assert.ok(refusal.verdict.toolCallIds.includes('toolu_0167cfEnoQaPviGdVXA95zcu'));
    assert.match(refusal.message, /tool-result-orphaned/);
    assert.equal(upstream.received.length, sent, 'the refused request never reached the upstream');
    assert.equal(verdicts.length, 1, 'onVerdict hears only the requests that were sent');
  });

  it('a streamed answer is rebuilt: the next request replaying it continues the thread as a patch', async () => {
    const verdicts: LiveVerdict[] = [];
    const client = anthropicClient(verdicts);
    upstream.replies.push(sseReply(sse('anthropic-stream.sse')));
    const stream = client.messages.stream(body(first));
    const final = await stream.finalMessage();
    assert.deepEqual(final.content.map((b) => b.type), ['thinking', 'text', 'tool_use', 'tool_use']);
    const results = final.content.flatMap((b) => (b.type === 'tool_use' ? [{ type: 'tool_result', tool_use_id: b.id, content: '42' }] : []));
    const next = { ...first.request, messages: [...(first.request.messages as unknown[]), { role: 'assistant', content: final.content }, { role: 'user', content: results }] };
    upstream.replies.push(jsonReply(second.response));
    await client.messages.create(next as never);
    assert.deepEqual(verdicts.map((v) => [v.thread, v.step, v.decision]), [[1, 1, 'patch'], [1, 2, 'patch']]);
    // The same replay with the thinking signature changed is a rewrite of what the model read.
    const tampered = structuredClone(next) as { messages: { content: { type: string; signature?: string }[] }[] };
    const thinking = tampered.messages[1]?.content[0];
    if (thinking) thinking.signature = 'tampered';
    upstream.replies.push(jsonReply(second.response));
    await client.messages.create(tampered as never);
    assert.equal(verdicts[2]?.decision, 'defer');
  });
});

describe('guardedFetch with the OpenAI SDK', () => {
  function openaiClient(verdicts: LiveVerdict[]): OpenAI {
    return new OpenAI({ apiKey: 'sk-test-secret', baseURL: `${upstream.url}/v1`, maxRetries: 0, fetch: guardedFetch({ onVerdict: (v) => verdicts.push(v) }) });
  }

  it('Chat Completions: a recorded conversation, then a streamed answer replayed', async () => {
    const log = recordedExchanges('openai-chat', 'pydanticai_test_multiple_agent_tool_calls.requests.jsonl');
    const verdicts: LiveVerdict[] = [];
    const client = openaiClient(verdicts);
    for (const exchange of log) {
      upstream.replies.push(jsonReply(exchange.response));
      assert.deepEqual(await client.chat.completions.create(body(exchange)), exchange.response);
    }
    const start = { model: 'gpt-4o', messages: [{ role: 'user' as const, content: 'Weather in Paris and Oslo?' }], stream: true as const };
    upstream.replies.push(sseReply(sse('openai-chat-stream.sse')));
    const stream = client.chat.completions.stream({ ...start, tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }] });
    const message = await stream.finalMessage();
    const calls = message.tool_calls ?? [];
    assert.equal(calls.length, 2);
    const next = {
      model: 'gpt-4o',
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
      messages: [...start.messages, { role: 'assistant', content: message.content, tool_calls: calls }, ...calls.map((c) => ({ role: 'tool', tool_call_id: c.id, content: 'sunny' }))],
    };
    upstream.replies.push(jsonReply(log[0]?.response));
    await client.chat.completions.create(next as never);
    const last = verdicts.at(-1);
    assert.equal(last?.step, 2);
    assert.equal(last?.decision, 'patch', JSON.stringify(last?.findings));
    assert.notEqual(last?.thread, verdicts[0]?.thread, 'another conversation, another thread');
  });

  it('Responses: the recorded conversations of the corpus, replayed over HTTP, get the verdicts of the same exchanges judged in place', async () => {
    for (const file of ['pydanticai_test_openai_conversation_id_tool_call_continuation.requests.jsonl', 'pydanticai_test_openai_responses_history_with_combined_tool_call_id.requests.jsonl']) {
      const log = recordedExchanges('openai-responses', file).filter((e) => e.provider === 'openai-responses');
      assert.ok(log.length > 0, `${file} holds Responses exchanges`);
      const verdicts: LiveVerdict[] = [];
      const client = openaiClient(verdicts);
      for (const exchange of log) {
        upstream.replies.push(jsonReply(exchange.response));
        const { output_text: _added, ...received } = (await client.responses.create(body(exchange))) as OpenAI.Responses.Response;
        assert.deepEqual(received, exchange.response, 'the recorded response passes through unchanged (the SDK adds output_text)');
      }
      const inPlace = replay(new LiveGuard(), log);
      assert.ok(inPlace.length > 0, `${file}: requests the guard judges`);
      assert.deepEqual(verdicts.map(outcome), inPlace.map(outcome), file);
    }
  });

  it('Responses: a streamed function call replayed with its output continues as a patch', async () => {
    const verdicts: LiveVerdict[] = [];
    const client = openaiClient(verdicts);
    const input = [{ role: 'user', content: 'Weather in Paris?' }];
    upstream.replies.push(sseReply(sse('openai-responses-stream.sse')));
    const stream = await client.responses.create({ model: 'gpt-4.1', input: input as never, stream: true });
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) if (event.type === 'response.completed') completed = event.response;
    assert.ok(completed);
    const call = completed.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
    upstream.replies.push(sseReply(sse('openai-responses-stream.sse')));
    const again = await client.responses.create({ model: 'gpt-4.1', input: [...input, call, { type: 'function_call_output', call_id: call.call_id, output: '18C' }] as never, stream: true });
    for await (const _event of again) void _event;
    assert.deepEqual(verdicts.map((v) => [v.step, v.decision]), [[1, 'patch'], [2, 'patch']]);
  });
});
