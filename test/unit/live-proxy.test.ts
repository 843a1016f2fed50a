/**
 * The recording and enforcing proxy, with real parts: the official SDKs as
 * clients, a real HTTP server on 127.0.0.1 replaying recorded responses as the
 * upstream (corpus JSON; event streams in the providers' documented shapes),
 * the proxy in process (startProxy) and as the CLI users run (killed mid-session).
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { checkTranscript } from '../../src/core/check';
import { inputFromFile } from '../../src/core/io';
import { startProxy, type RunningProxy, type VerdictEvent } from '../../src/core/live/proxy';
import { jsonReply, sseReply, startUpstream, type Upstream } from '../support/upstream';
import { recordedExchanges, sse, type RecordedExchange } from './live-helpers';
import { spawnCli, waitFor } from './live-cli-helpers';

const ANTHROPIC_KEY = 'sk-ant-api03-proxy-secret';
const anthropicLog = recordedExchanges('anthropic-messages', 'pydanticai_test_multiple_parallel_tool_calls.requests.jsonl');
const [first, second] = anthropicLog as [RecordedExchange, RecordedExchange];
const orphaning = () => {
  const messages = second.request.messages as unknown[];
  return { ...second.request, messages: [messages[0], ...messages.slice(2)] };
};

let upstream: Upstream;
let dir: string;
before(async () => {
  upstream = await startUpstream();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pl-proxy-'));
});
after(async () => {
  await upstream.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function withProxy(options: Parameters<typeof startProxy>[0], run: (proxy: RunningProxy, events: VerdictEvent[]) => Promise<void>): Promise<void> {
  const events: VerdictEvent[] = [];
  const proxy = await startProxy({ upstream: upstream.url, ...options, onVerdict: (e) => events.push(e) });
  try {
    await run(proxy, events);
  } finally {
    await proxy.close();
  }
}

const logLines = (file: string) => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

describe('proxy: forwarding and recording', () => {
  it('the Anthropic SDK through the proxy: responses unchanged, every exchange logged, keys never written', async () => {
    const log = path.join(dir, 'anthropic.jsonl');
    await withProxy({ log }, async (proxy, events) => {
      const client = new Anthropic({ apiKey: ANTHROPIC_KEY, baseURL: proxy.url, maxRetries: 0 });
      upstream.replies.push(jsonReply(first.response), jsonReply(second.response));
      assert.deepEqual(await client.messages.create(first.request as never), first.response);
      assert.deepEqual(await client.messages.create(second.request as never), second.response);
      const headers = upstream.received.at(-1)?.headers ?? {};
      assert.ok(headers['x-api-key'] === ANTHROPIC_KEY || headers.authorization === `Bearer ${ANTHROPIC_KEY}`, 'the key is forwarded');
      assert.deepEqual(events.map((e) => [e.verdict.thread, e.verdict.step, e.verdict.decision]), [[1, 1, 'patch'], [1, 2, 'patch']]);
    });
    const text = fs.readFileSync(log, 'utf8');
    assert.ok(!text.includes(ANTHROPIC_KEY) && !/x-api-key|authorization/i.test(text), 'no key, no auth header in the log');
    const lines = logLines(log);
    assert.deepEqual(lines.map((l) => l.request), [first.request, second.request]);
    assert.deepEqual(lines.map((l) => l.response), [first.response, second.response]);
    const report = checkTranscript(inputFromFile(log), { tokens: false });
    assert.equal(report.format, 'anthropic');
    assert.deepEqual(report.steps.map((s) => s.decision), ['patch']);
  });

  for (const [name, provider, pathName, request] of [
    ['anthropic-stream.sse', 'anthropic', '/v1/messages', { ...first.request, stream: true }],
    ['openai-chat-stream.sse', 'openai-chat', '/v1/chat/completions', { model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'Weather?' }] }],
    ['openai-responses-stream.sse', 'openai-responses', '/v1/responses', { model: 'gpt-4.1', stream: true, input: 'Weather?' }],
  ] as const) {
    it(`${provider}: an event stream passes through byte for byte, and its rebuilt body is logged`, async () => {
      const log = path.join(dir, `${provider}-stream.jsonl`);
      const fixture = sse(name);
      await withProxy({ log }, async (proxy) => {
        upstream.replies.push(sseReply(fixture));
        const response = await fetch(proxy.url + pathName, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer sk-secret' }, body: JSON.stringify(request) });
        assert.equal(response.status, 200);
        assert.match(response.headers.get('content-type') ?? '', /text\/event-stream/);
        assert.ok(Buffer.from(await response.arrayBuffer()).equals(Buffer.from(fixture, 'utf8')), 'the same bytes');
      });
      const [line] = logLines(log);
      const rebuilt = line?.response as Record<string, unknown>;
      assert.ok(rebuilt && typeof rebuilt === 'object');
      if (provider === 'anthropic') assert.deepEqual((rebuilt.content as { type: string }[]).map((b) => b.type), ['thinking', 'text', 'tool_use', 'tool_use']);
      if (provider === 'openai-chat') assert.equal(((rebuilt.choices as { message: { tool_calls: unknown[] } }[])[0]?.message.tool_calls ?? []).length, 2);
      if (provider === 'openai-responses') assert.equal(rebuilt.id, 'resp_StreamReplay');
      assert.ok(!fs.readFileSync(log, 'utf8').includes('sk-secret'));
    });
  }

  it('two interleaved conversations through one proxy are judged apart', async () => {
    const other = recordedExchanges('anthropic-messages', 'pydanticai_test_anthropic_mixed_strict_tool_run.requests.jsonl');
    const order = [first, other[0], second, other[1], other[2]].filter((x): x is RecordedExchange => !!x);
    await withProxy({ enforce: 'defer' }, async (proxy, events) => {
      const client = new Anthropic({ apiKey: ANTHROPIC_KEY, baseURL: proxy.url, maxRetries: 0 });
      for (const exchange of order) {
        upstream.replies.push(jsonReply(exchange.response));
        await client.messages.create(exchange.request as never);
      }
      assert.deepEqual(events.map((e) => [e.verdict.thread, e.verdict.step, e.verdict.decision]), [[1, 1, 'patch'], [2, 1, 'patch'], [1, 2, 'patch'], [2, 2, 'patch'], [2, 3, 'patch']]);
    });
  });
});

describe('proxy: enforcing', () => {
  it('--enforce: an aborting request gets a 400 in Anthropic\'s error shape and never reaches the upstream', async () => {
    const log = path.join(dir, 'refused.jsonl');
    await withProxy({ log, enforce: 'abort' }, async (proxy, events) => {
      const client = new Anthropic({ apiKey: ANTHROPIC_KEY, baseURL: proxy.url, maxRetries: 2 });
      upstream.replies.push(jsonReply(first.response));
      await client.messages.create(first.request as never);
      const sent = upstream.received.length;
      const error = await client.messages.create(orphaning() as never).then(() => undefined, (e: unknown) => e);
      assert.ok(error instanceof Anthropic.BadRequestError, String(error));
      assert.equal(error.status, 400);
      const body = error.error as { type: string; error: { type: string; message: string } };
      assert.equal(body.type, 'error');
      assert.equal(body.error.type, 'invalid_request_error');
      assert.match(body.error.message, /tool-result-orphaned \[toolu_0167cfEnoQaPviGdVXA95zcu/);
      assert.match(body.error.message, /To fix: /);
      assert.equal(upstream.received.length, sent, 'not forwarded (and not retried)');
      assert.equal(events.at(-1)?.refused, true);
    });
    const lines = logLines(log);
    const refused = lines[1]?.refused as Record<string, unknown>;
    assert.equal(refused.decision, 'abort');
    assert.ok((refused.rules as string[]).includes('tool-result-orphaned'));
    assert.deepEqual(refused.request, orphaning());
  });

  it('--enforce: a conversation whose first request is refused uses up no thread number; the verdicts name the threads the log gets when checked', async () => {
    const log = path.join(dir, 'refused-first.jsonl');
    const other = recordedExchanges('anthropic-messages', 'pydanticai_test_anthropic_mixed_strict_tool_run.requests.jsonl');
    const orphanFirst = { ...first.request, messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_gone', content: 'a result whose call never was' }] }] };
    await withProxy({ log, enforce: 'abort' }, async (proxy, events) => {
      const client = new Anthropic({ apiKey: ANTHROPIC_KEY, baseURL: proxy.url, maxRetries: 0 });
      const refused = await client.messages.create(orphanFirst as never).then(() => undefined, (e: unknown) => e);
      assert.ok(refused instanceof Anthropic.BadRequestError, String(refused));
      for (const exchange of [first, other[0], second, other[1]].filter((x): x is RecordedExchange => !!x)) {
        upstream.replies.push(jsonReply(exchange.response));
        await client.messages.create(exchange.request as never);
      }
      assert.deepEqual(events.map((e) => [e.verdict.thread, e.verdict.step, e.refused]), [[1, 1, true], [1, 1, false], [2, 1, false], [1, 2, false], [2, 2, false]]);
    });
    const report = checkTranscript(inputFromFile(log), { tokens: false });
    assert.deepEqual(report.steps.map((s) => s.thread), [1, 2], 'the log reader threads the second requests as the proxy numbered them');
    assert.deepEqual(logLines(log).flatMap((l) => (l.refused ? [] : [l.thread])), [1, 2, 1, 2]);
  });

  it('--enforce: OpenAI clients get OpenAI\'s error shape', async () => {
    const chat = recordedExchanges('openai-chat', 'pydanticai_test_multiple_agent_tool_calls.requests.jsonl');
    const [a, b] = chat as [RecordedExchange, RecordedExchange];
    await withProxy({ enforce: 'abort' }, async (proxy) => {
      const client = new OpenAI({ apiKey: 'sk-openai-secret', baseURL: `${proxy.url}/v1`, maxRetries: 0 });
      upstream.replies.push(jsonReply(a.response));
      await client.chat.completions.create(a.request as never);
      const messages = b.request.messages as { role: string }[];
      const dropCalls = { ...b.request, messages: messages.filter((m) => m.role !== 'assistant') };
      const error = await client.chat.completions.create(dropCalls as never).then(() => undefined, (e: unknown) => e);
      assert.ok(error instanceof OpenAI.BadRequestError, String(error));
      assert.equal(error.type, 'invalid_request_error');
      assert.equal(error.code, 'prefix_lens_refused');
      assert.match(error.message, /tool-result-orphaned/);
    });
  });

  it('a malformed or oversized request gets a clear error, and the proxy keeps serving', async () => {
    await withProxy({ maxBodyBytes: 64 * 1024 }, async (proxy) => {
      const post = (body: string) => fetch(`${proxy.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const bad = await post('{"model": "x", "messages": [');
      assert.equal(bad.status, 400);
      assert.match(((await bad.json()) as { error: { message: string } }).error.message, /not valid JSON/);
      const huge = await post(JSON.stringify({ model: 'x', messages: [{ role: 'user', content: 'x'.repeat(200_000) }] }));
      assert.equal(huge.status, 413);
      assert.match(((await huge.json()) as { error: { message: string } }).error.message, /larger than 65536 bytes/);
      upstream.replies.push(jsonReply(first.response));
      const ok = await post(JSON.stringify(first.request));
      assert.equal(ok.status, 200);
      assert.deepEqual(await ok.json(), first.response);
    });
  });
});

describe('proxy: the CLI', () => {
  it('the log holds every finished exchange after the proxy is killed mid-session', async () => {
    const log = path.join(dir, 'killed.jsonl');
    const proxy = spawnCli(['proxy', '--port', '0', '--upstream', upstream.url, '--log', log]);
    try {
      const url = (await waitFor(proxy, (out) => /proxy on (http:\/\/[\d.]+:\d+)/.exec(out.stderr)?.[1])) as string;
      const client = new Anthropic({ apiKey: ANTHROPIC_KEY, baseURL: url, maxRetries: 0 });
      upstream.replies.push(jsonReply(first.response), jsonReply(second.response));
      await client.messages.create(first.request as never);
      await client.messages.create(second.request as never);
      await waitFor(proxy, (out) => out.stderr.includes('thread 1 step 2 PATCH') || undefined);
    } finally {
      proxy.child.kill('SIGKILL');
    }
    assert.deepEqual(logLines(log).map((l) => l.response), [first.response, second.response]);
    assert.ok(!fs.readFileSync(log, 'utf8').includes(ANTHROPIC_KEY));
  });

  it('run: the command talks to the proxy through ANTHROPIC_BASE_URL; a summary at exit, its exit code kept', async () => {
    upstream.replies.push(jsonReply(first.response));
    const script = `fetch(process.env.ANTHROPIC_BASE_URL + '/v1/messages', { method: 'POST', headers: { 'content-type': 'application/json' }, body: process.argv[1] })
      .then((r) => r.json()).then((j) => { console.log('id', j.id, process.env.OPENAI_BASE_URL.endsWith('/v1')); process.exit(3); });`;
    const run = spawnCli(['run', '--upstream', upstream.url, '--', process.execPath, '-e', script, JSON.stringify(first.request)]);
    const code = await new Promise<number | null>((resolve) => run.child.on('exit', resolve));
    assert.equal(code, 3);
    assert.match(run.out.stdout, /id msg_011S3wxtqL5CVescWqS3zeg2 true/);
    assert.match(run.out.stderr, /1 request in 1 thread: 1 patch, 0 defer, 0 abort · 0 refused/);
  });
});
