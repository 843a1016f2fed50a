/**
 * The live guard (proxy and guardedFetch share it): requests read with the
 * engine's provider readers, threaded the way a prompt cache matches them, and
 * judged against their thread's previous exchange. Real recordings from the
 * shared corpus, replayed request by request.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { checkTranscript } from '../../src/core/check';
import { consumedWindow } from '../../src/core/formats/request-log';
import { judgeRewrite } from '../../src/core/guard';
import { inputFromFile } from '../../src/core/io';
import { providerErrorBody, providerOfPath, refusalMessage } from '../../src/core/live/endpoints';
import { LiveGuard } from '../../src/core/live/judge';
import { corpusLogs, recordedExchanges, replay, type RecordedExchange } from './live-helpers';
import { CORPUS } from '../support/corpus';

const summary = (v: { decision: string; findings: readonly { rule: string }[] }) => `${v.decision}:${[...new Set(v.findings.map((f) => f.rule))].join('+')}`;

describe('live guard: the corpus replayed request by request', () => {
  for (const [folder, file] of corpusLogs()) {
    it(`${folder}/${file}: the same step verdicts as checking the log`, () => {
      const verdicts = replay(new LiveGuard(), recordedExchanges(folder, file));
      const report = checkTranscript(inputFromFile(path.join(CORPUS, folder, file)), { tokens: false });
      assert.ok(verdicts.length > 0);
      assert.ok(verdicts.every((v) => v.thread === 1), 'one conversation, one thread');
      assert.deepEqual(verdicts.map((v) => v.step), verdicts.map((_, i) => i + 1));
      const steps = verdicts.slice(1).map(summary);
      assert.deepEqual(steps, report.steps.map((s) => `${s.decision}:${s.rules.join('+')}`));
      assert.ok(verdicts.every((v) => v.decision !== 'abort'), 'no false abort on a real log');
    });
  }
});

describe('live guard: threads', () => {
  const a = recordedExchanges('anthropic-messages', 'pydanticai_test_anthropic_mixed_strict_tool_run.requests.jsonl');
  const b = recordedExchanges('anthropic-messages', 'pydanticai_test_multiple_parallel_tool_calls.requests.jsonl');

  it('two interleaved conversations are judged apart, each as it is alone', () => {
    const alone = [replay(new LiveGuard(), a).map(summary), replay(new LiveGuard(), b).map(summary)];
    const interleaved: RecordedExchange[] = [];
    for (let i = 0; i < Math.max(a.length, b.length); i++) interleaved.push(...[a[i], b[i]].filter((x): x is RecordedExchange => !!x));
    const verdicts = replay(new LiveGuard(), interleaved);
    const threads = [...new Set(verdicts.map((v) => v.thread))];
    assert.equal(threads.length, 2);
    const byThread = threads.map((t) => verdicts.filter((v) => v.thread === t).map(summary));
    assert.deepEqual(byThread, alone);
  });

  it('a request sharing the system prompt but not the conversation starts its own thread', () => {
    const guard = new LiveGuard();
    const first = a[0] as RecordedExchange;
    replay(guard, [first]);
    const other = { ...first, request: { ...first.request, messages: [{ role: 'user', content: 'A different task' }] } };
    const [verdict] = replay(guard, [other]);
    assert.equal(verdict?.thread, 2);
    assert.equal(verdict?.step, 1);
  });

  it('a retry of the same request is not judged as a rewrite of it', () => {
    const guard = new LiveGuard();
    const [first, retry] = replay(guard, [a[1] as RecordedExchange, a[1] as RecordedExchange]);
    assert.equal(first?.decision, 'patch');
    assert.equal(retry?.decision, 'patch');
    assert.notEqual(retry?.thread, first?.thread);
  });

  it('a patched system prompt continues its conversation and defers', () => {
    const guard = new LiveGuard();
    replay(guard, [a[0] as RecordedExchange]);
    const next = a[1] as RecordedExchange;
    const [verdict] = replay(guard, [{ ...next, request: { ...next.request, system: 'A new system prompt' } }]);
    assert.equal(verdict?.thread, 1);
    assert.equal(verdict?.step, 2);
    assert.equal(verdict?.decision, 'defer');
    assert.ok(verdict?.findings.some((f) => f.rule === 'prefix-mutated'));
  });
});

describe('live guard: refusals', () => {
  const log = recordedExchanges('anthropic-messages', 'pydanticai_test_multiple_parallel_tool_calls.requests.jsonl');

  it('a compaction that drops the calls but keeps their results aborts, naming the rule and the call ids', () => {
    const guard = new LiveGuard();
    replay(guard, [log[0] as RecordedExchange]);
    const next = log[1] as RecordedExchange;
    const messages = next.request.messages as unknown[];
    const compacted = { ...next, request: { ...next.request, messages: [messages[0], ...messages.slice(2)] } };
    const [verdict] = replay(guard, [compacted]);
    assert.equal(verdict?.decision, 'abort');
    assert.equal(verdict?.thread, 1);
    assert.ok(verdict?.findings.some((f) => f.rule === 'tool-result-orphaned'));
    assert.ok((verdict?.toolCallIds.length ?? 0) >= 4);
    const text = refusalMessage('abort', verdict?.findings ?? []);
    assert.match(text, /tool-result-orphaned \[toolu_/);
    assert.match(text, /not sent/);
    assert.match(text, /To fix: /);
  });

  it('answers in each provider\'s own error shape', () => {
    assert.deepEqual(JSON.parse(providerErrorBody('anthropic', 'm')), { type: 'error', error: { type: 'invalid_request_error', message: 'm' } });
    assert.deepEqual(JSON.parse(providerErrorBody('openai-chat', 'm')), { error: { message: 'm', type: 'invalid_request_error', param: null, code: 'prefix_lens_refused' } });
  });

  it('a body that is not JSON is malformed; JSON that is no request is left alone', () => {
    const guard = new LiveGuard();
    const bad = guard.judge('anthropic', '{"messages": [');
    assert.equal(bad.kind, 'malformed');
    assert.match(bad.kind === 'malformed' ? bad.reason : '', /not valid JSON/);
    assert.equal(guard.judge('openai-chat', '{"hello": 1}').kind, 'not-a-request');
  });

  it('knows the endpoints by path', () => {
    assert.equal(providerOfPath('/v1/messages'), 'anthropic');
    assert.equal(providerOfPath('/v1/chat/completions'), 'openai-chat');
    assert.equal(providerOfPath('/openai/v1/responses/'), 'openai-responses');
    assert.equal(providerOfPath('/v1/messages/count_tokens'), undefined);
    assert.equal(providerOfPath('/v1/models'), undefined);
  });
});

describe('live guard: the stateful guard per thread', () => {
  it('gives the verdicts of judging each request against its predecessor from scratch (appends, a fork, a compaction)', () => {
    const guard = new LiveGuard();
    type Msg = { role: string; content: unknown };
    const call = (id: string): Msg => ({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'read', input: { path: id } }] });
    const result = (id: string): Msg => ({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: `contents of ${id}` }] });
    const tools = [{ name: 'read', input_schema: { type: 'object' } }];
    const history: Msg[] = [{ role: 'user', content: 'Read the files' }];
    const bodies: Msg[][] = [];
    for (let i = 0; i < 12; i++) {
      bodies.push([...history]);
      history.push(call(`toolu_${i}`), result(`toolu_${i}`));
    }
    const fork = [...(bodies[4] as Msg[]), { role: 'user', content: 'Actually, stop' }];
    const compacted = [history[0] as Msg, ...history.slice(7)];
    const orphaning = [history[0] as Msg, ...history.slice(8)];
    let compared = 0;
    const decisions: string[] = [];
    const steps: [number, number][] = [];
    for (const messages of [...bodies, compacted, orphaning, fork]) {
      const outcome = guard.judge('anthropic', JSON.stringify({ model: 'm', max_tokens: 10, tools, messages }));
      assert.equal(outcome.kind, 'judged');
      if (outcome.kind !== 'judged') continue;
      const { placement, verdict } = outcome.pending;
      if (placement.previous) {
        const fresh = judgeRewrite({ source: 'request', before: consumedWindow(placement.previous), after: placement.window, applied: true }, { tokens: false });
        assert.deepEqual(verdict.findings, fresh.findings);
        assert.equal(verdict.decision, fresh.decision);
        decisions.push(verdict.decision);
        steps.push([verdict.thread, verdict.step]);
        compared++;
      }
      const index = bodies.indexOf(messages);
      const answer = index >= 0 && index + 1 < bodies.length ? (history[2 * index + 1] as Msg).content : [{ type: 'text', text: 'ok' }];
      guard.record(outcome.pending, 200, JSON.stringify({ id: `msg_${compared}`, type: 'message', role: 'assistant', content: answer }), false);
    }
    assert.equal(compared, 14);
    assert.deepEqual(decisions, [...Array(11).fill('patch'), 'defer', 'abort', 'defer']);
    assert.deepEqual(steps.slice(11), [[1, 13], [1, 14], [1, 15]], 'one thread: each request continues its latest state');
  });
});
