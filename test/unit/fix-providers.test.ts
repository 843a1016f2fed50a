import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkAgainst } from '../../src/core/check';
import { applyEdits } from '../../src/core/fix/edits';
import { planFix } from '../../src/core/fix/plan';
import { anthropicAdapter } from '../../src/core/formats/anthropic';
import { openaiChatAdapter } from '../../src/core/formats/openai-chat';
import { openaiResponsesAdapter } from '../../src/core/formats/openai-responses';
import { judgeRewrite } from '../../src/core/guard';
import { assertOnlyLineChanged, assertOutsideUnchanged, rewriteOnLine, valuesOf } from './fix-helpers';

// ── Anthropic request log ──

const aTool = { name: 'query_db', description: 'Run SQL', input_schema: { type: 'object' } };
const aUse = { role: 'assistant', content: [{ type: 'text', text: 'Checking.' }, { type: 'tool_use', id: 'toolu_01A', name: 'query_db', input: { sql: 'select 1' } }] };
const aResult = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01A', content: '1' }] };

test('Anthropic request log (python-style spacing): the orphaned tool_result of a consumed pair is dropped', () => {
  const first = { model: 'claude', max_tokens: 100, tools: [aTool], messages: [{ role: 'user', content: 'count' }, aUse, aResult] };
  const response = { id: 'msg_1', type: 'message', role: 'assistant', content: [{ type: 'text', text: 'It is 1.' }], stop_reason: 'end_turn' };
  const second = { model: 'claude', max_tokens: 100, tools: [aTool], messages: [{ role: 'user', content: 'count' }, aResult, { role: 'assistant', content: [{ type: 'text', text: 'It is 1.' }] }, { role: 'user', content: 'thanks' }] };
  const py = (v: unknown) => JSON.stringify(v).replace(/","/g, '", "').replace(/":/g, '": ').replace(/},\{/g, '}, {');
  const text = py({ request: first, response }) + '\n' + py({ request: second, response }) + '\n';
  const rewrite = rewriteOnLine(anthropicAdapter, text, 1, 'log.jsonl');
  assert.equal(judgeRewrite(rewrite).decision, 'abort');
  const plan = planFix(rewrite, text);
  assert.ok(plan && plan.edits.length > 0);
  assert.notEqual(plan.verdict.decision, 'abort');
  const edited = applyEdits(text, plan.edits);
  assertOnlyLineChanged(text, edited, 1);
  assertOutsideUnchanged(text, edited, plan.edits);
  const fixed = valuesOf(edited, 1) as { request: { messages: { role: string; content: unknown }[] } };
  assert.deepEqual(fixed.request.messages.map((m) => m.role), ['user', 'assistant', 'user', 'user']);
  assert.deepEqual(fixed.request.messages[3]?.content, [{ type: 'text', text: (plan.window.messages.at(-1)?.blocks[0] as { text: string }).text }]);
  assert.ok(edited.split('\n')[1]?.includes('{"role": "user", "content": [{"type": "text", "text": "[elided] '), 'marker in the file style');
  assert.notEqual(judgeRewrite(rewriteOnLine(anthropicAdapter, edited, 1, 'log.jsonl')).decision, 'abort');
});

test('Anthropic request log: a call answered only in the next request is pending, so it is restored from the response', () => {
  const first = { model: 'claude', max_tokens: 100, tools: [aTool], messages: [{ role: 'user', content: 'count' }] };
  const response = { id: 'msg_1', type: 'message', role: 'assistant', content: aUse.content, stop_reason: 'tool_use', usage: { input_tokens: 5 } };
  const second = { model: 'claude', max_tokens: 100, tools: [aTool], messages: [{ role: 'user', content: 'count' }, aResult] };
  const text = JSON.stringify({ request: first, response }) + '\n' + JSON.stringify({ request: second }) + '\n';
  const rewrite = rewriteOnLine(anthropicAdapter, text, 1, 'log.jsonl');
  assert.equal(judgeRewrite(rewrite).decision, 'abort');
  const plan = planFix(rewrite, text);
  assert.ok(plan && plan.edits.length > 0);
  const edited = applyEdits(text, plan.edits);
  const fixed = valuesOf(edited, 1) as { request: { messages: { role: string; content: unknown }[] } };
  assert.deepEqual(fixed.request.messages[1], { role: 'assistant', content: aUse.content }, 'restored without id/usage');
  assert.deepEqual(fixed.request.messages[2], aResult);
  assert.notEqual(judgeRewrite(rewriteOnLine(anthropicAdapter, edited, 1, 'log.jsonl')).decision, 'abort');
});

// ── OpenAI Chat request log ──

test('OpenAI Chat request log: a parallel group with one tool message dropped goes whole', () => {
  const fn = (id: string) => ({ id, type: 'function', function: { name: 'weather', arguments: `{"city":"${id}"}` } });
  const calls = { role: 'assistant', content: null, tool_calls: [fn('call_1'), fn('call_2')] };
  const res = (id: string) => ({ role: 'tool', tool_call_id: id, content: `sunny in ${id}` });
  const tools = [{ type: 'function', function: { name: 'weather', parameters: { type: 'object' } } }];
  const head = [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Weather?' }];
  const first = { model: 'gpt', tools, messages: [...head, calls, res('call_1'), res('call_2')] };
  const response = { choices: [{ message: { role: 'assistant', content: 'Sunny both.', refusal: null, annotations: [] } }] };
  const second = { model: 'gpt', tools, messages: [...head, calls, res('call_1'), { role: 'assistant', content: 'Sunny both.' }, { role: 'user', content: 'Thanks' }] };
  const text = JSON.stringify({ request: first, response }) + '\n' + JSON.stringify({ request: second, response }) + '\n';
  const rewrite = rewriteOnLine(openaiChatAdapter, text, 1, 'log.jsonl');
  assert.equal(judgeRewrite(rewrite).decision, 'abort');
  const plan = planFix(rewrite, text);
  assert.ok(plan && plan.edits.length > 0);
  assert.notEqual(plan.verdict.decision, 'abort');
  const edited = applyEdits(text, plan.edits);
  assertOnlyLineChanged(text, edited, 1);
  assertOutsideUnchanged(text, edited, plan.edits);
  const fixed = valuesOf(edited, 1) as { request: { messages: { role: string; content: string }[] } };
  assert.deepEqual(fixed.request.messages.map((m) => m.role), ['system', 'user', 'assistant', 'user', 'user']);
  assert.match(fixed.request.messages[4]?.content ?? '', /^\[elided\] .*call_1 \(weather\), call_2 \(weather\)/);
  assert.notEqual(judgeRewrite(rewriteOnLine(openaiChatAdapter, edited, 1, 'log.jsonl')).decision, 'abort');
});

// ── OpenAI Responses request log ──

test('OpenAI Responses request log: a function_call_output whose call was compacted away goes too', () => {
  const user = (text: string) => ({ role: 'user', content: text });
  const fc = { type: 'function_call', call_id: 'call_9', name: 'get_time', arguments: '{}' };
  const out = { type: 'function_call_output', call_id: 'call_9', output: '12:00' };
  const tools = [{ type: 'function', name: 'get_time', parameters: { type: 'object', properties: {} } }];
  const first = { model: 'gpt', tools, input: [user('time?'), fc, out] };
  const response = { output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Noon.' }] }] };
  const second = { model: 'gpt', tools, input: [user('time?'), out, { role: 'assistant', content: 'Noon.' }, user('thanks')] };
  const text = JSON.stringify({ request: first, response }) + '\r\n' + JSON.stringify({ request: second, response }) + '\r\n';
  const rewrite = rewriteOnLine(openaiResponsesAdapter, text, 1, 'log.jsonl');
  assert.equal(judgeRewrite(rewrite).decision, 'abort');
  const plan = planFix(rewrite, text);
  assert.ok(plan && plan.edits.length > 0);
  const edited = applyEdits(text, plan.edits);
  assertOnlyLineChanged(text, edited, 1);
  assertOutsideUnchanged(text, edited, plan.edits);
  const fixed = valuesOf(edited, 1) as { request: { input: { type?: string; role?: string }[] } };
  assert.deepEqual(fixed.request.input.map((i) => i.type ?? i.role), ['user', 'assistant', 'user', 'message']);
  assert.notEqual(judgeRewrite(rewriteOnLine(openaiResponsesAdapter, edited, 1, 'log.jsonl')).decision, 'abort');
});

// ── Compare two snapshots: pretty-printed JSON, CRLF, the before window in another file ──

test('a pretty-printed CRLF request compared with an older snapshot keeps its layout', () => {
  const pretty = (v: unknown) => JSON.stringify(v, null, 2).replace(/\n/g, '\r\n') + '\r\n';
  const older = { model: 'claude', max_tokens: 50, tools: [aTool], messages: [{ role: 'user', content: 'count' }, aUse, aResult, { role: 'assistant', content: 'One.' }] };
  const newer = { model: 'claude', max_tokens: 50, tools: [aTool], messages: [{ role: 'user', content: 'count' }, aResult, { role: 'assistant', content: 'One.' }, { role: 'user', content: 'ok' }] };
  const oldText = pretty(older);
  const newText = pretty(newer);
  const stepOf = (text: string) => {
    const report = checkAgainst({ file: 'old.json', text: oldText }, { file: 'new.json', text }, { keepRewrites: true, tokens: false });
    const step = report.steps[report.steps.length - 1];
    assert.ok(step?.rewrite);
    return step.rewrite;
  };
  const rewrite = stepOf(newText);
  assert.equal(judgeRewrite(rewrite).decision, 'abort');
  const plan = planFix(rewrite, newText, { beforeText: oldText });
  assert.ok(plan && plan.edits.length > 0);
  const edited = applyEdits(newText, plan.edits);
  assertOutsideUnchanged(newText, edited, plan.edits);
  assert.ok(!/[^\r]\n/.test(edited), 'a bare LF appeared');
  const value = JSON.parse(edited) as { messages: { role: string }[] };
  assert.deepEqual(value.messages.map((m) => m.role), ['user', 'assistant', 'user', 'user']);
  assert.match(edited, /\r\n {4}\{"role": "user", "content": \[\{"type": "text", "text": "\[elided\] /);
  assert.notEqual(judgeRewrite(stepOf(edited)).decision, 'abort');
});
