import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { applyEdits, arrayEdits, parseArrayAt } from '../../src/core/fix/edits';
import { planFix } from '../../src/core/fix/plan';
import { detectStyle, markerElement } from '../../src/core/fix/marker';
import { judgeRewrite } from '../../src/core/guard';
import { checkAgainst } from '../../src/core/check';
import { inputFromText } from '../../src/core/io';
import { parseJson, toValue } from '../../src/core/json/parse';
import type { Rewrite } from '../../src/core/model';
import type { TextEdit } from '../../src/core/api';
import type { FormatAdapter } from '../../src/core/transcript';
import { nativeAdapter } from '../../src/core/formats/native';
import { anthropicAdapter } from '../../src/core/formats/anthropic';
import { openaiChatAdapter } from '../../src/core/formats/openai-chat';
import { openaiResponsesAdapter } from '../../src/core/formats/openai-responses';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'fix');
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), 'utf8');

function rewritesOf(adapter: FormatAdapter, text: string, file = 'trace.jsonl'): Rewrite[] {
  const out: Rewrite[] = [];
  for (const event of adapter.read(inputFromText(file, text))) if (event.kind === 'step') out.push(event.rewrite);
  return out;
}

/** The rewrite whose event starts on the given 0-based line. */
function rewriteOnLine(adapter: FormatAdapter, text: string, line: number, file?: string): Rewrite {
  const start = text.split('\n').slice(0, line).reduce((n, l) => n + l.length + 1, 0);
  const found = rewritesOf(adapter, text, file).find((r) => r.range?.start === start);
  assert.ok(found, `no rewrite on line ${line + 1}`);
  return found;
}

function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length - 1;
}

/** Every line but `line` is byte-identical, and the edited line still parses. */
function assertOnlyLineChanged(original: string, edited: string, line: number): void {
  const a = original.split('\n');
  const b = edited.split('\n');
  assert.equal(b.length, a.length, 'line count changed');
  a.forEach((text, i) => {
    if (i !== line) assert.equal(b[i], text, `line ${i + 1} changed`);
  });
  assert.ok(parseJson((b[line] ?? '').replace(/\r$/, '')).ok, 'the edited line is not JSON');
}

/** The text outside the edited ranges is the same, in order, in the edited file. */
function assertOutsideUnchanged(original: string, edited: string, edits: readonly TextEdit[]): void {
  let at = 0;
  let pos = 0;
  for (const edit of [...edits].sort((x, y) => x.range.start - y.range.start)) {
    const kept = original.slice(at, edit.range.start);
    assert.equal(edited.slice(pos, pos + kept.length), kept);
    pos += kept.length + edit.newText.length;
    at = edit.range.end;
  }
  assert.equal(edited.slice(pos), original.slice(at));
}

function valuesOf(text: string, line: number): Record<string, unknown> {
  const parsed = parseJson((text.split('\n')[line] ?? '').replace(/\r$/, ''));
  assert.ok(parsed.ok);
  return toValue(parsed.node) as Record<string, unknown>;
}

test('arrayEdits deletes whole elements with their separators and keeps the rest byte-identical', () => {
  const text = '{"a": [1, 2, 3, 4]}';
  const array = parseArrayAt(text, { start: 6, end: 18 });
  assert.ok(array);
  const drop = (keep: number[]) => applyEdits(text, arrayEdits(text, array, keep.map((old) => ({ old })), detectStyle(text)));
  assert.equal(drop([0, 2, 3]), '{"a": [1, 3, 4]}');
  assert.equal(drop([0, 1]), '{"a": [1, 2]}');
  assert.equal(drop([1, 2, 3]), '{"a": [2, 3, 4]}');
  assert.equal(drop([]), '{"a": []}');
  assert.equal(drop([1]), '{"a": [2]}');
  const added = arrayEdits(text, array, [{ old: 0 }, { text: '9' }, { old: 1 }, { old: 2 }, { old: 3 }, { text: '7' }], detectStyle(text));
  assert.equal(applyEdits(text, added), '{"a": [1, 9, 2, 3, 4, 7]}');
});

test('arrayEdits keeps pretty-printed CRLF layout', () => {
  const text = '[\r\n  {"x": 1},\r\n  {"x": 2}\r\n]';
  const array = parseArrayAt(text, { start: 0, end: text.length });
  assert.ok(array);
  const edits = arrayEdits(text, array, [{ old: 0 }, { text: '{"x": 3}' }], detectStyle(text));
  assert.equal(applyEdits(text, edits), '[\r\n  {"x": 1},\r\n  {"x": 3}\r\n]');
  const empty = parseArrayAt('[\r\n]', { start: 0, end: 4 });
  assert.ok(empty);
  assert.equal(applyEdits('[\r\n]', arrayEdits('[\r\n]', empty, [{ text: '1' }], detectStyle(''))), '[1]');
});

test('applyEdits refuses overlapping edits', () => {
  assert.throws(() => applyEdits('abcdef', [{ range: { start: 0, end: 3 }, newText: '' }, { range: { start: 2, end: 4 }, newText: '' }]));
});

test('the marker is written in each format', () => {
  const text = '[elided] 1 message of earlier history.';
  assert.deepEqual(JSON.parse(markerElement('native', text)), { role: 'user', content: text });
  assert.deepEqual(JSON.parse(markerElement('anthropic', text)), { role: 'user', content: [{ type: 'text', text }] });
  assert.deepEqual(JSON.parse(markerElement('openai-chat', text)), { role: 'user', content: text });
  assert.deepEqual(JSON.parse(markerElement('openai-responses', text)), {
    type: 'message',
    role: 'user',
    content: [{ type: 'input_text', text }],
  });
  assert.equal(markerElement('openai-chat', 'x', detectStyle('{"a": 1, "b": 2}')), '{"role": "user", "content": "x"}');
});

test('seed incident, pending pair: the dropped call and its schema come back, one marker, defer', () => {
  const text = fixture('seed-incident.jsonl');
  const rewrite = rewriteOnLine(nativeAdapter, text, 3);
  const original = judgeRewrite(rewrite);
  assert.equal(original.decision, 'abort');
  const rules = new Set(original.findings.map((f) => f.rule));
  for (const rule of ['tool-result-orphaned', 'schema-dropped', 'prefix-mutated'] as const) assert.ok(rules.has(rule), rule);

  const plan = planFix(rewrite, text);
  assert.ok(plan);
  assert.notEqual(plan.verdict.decision, 'abort');
  const messages = plan.window.messages;
  const callAt = messages.findIndex((m) => m.blocks.some((b) => b.kind === 'tool_call' && b.id === 'toolu_01A'));
  const resultAt = messages.findIndex((m) => m.blocks.some((b) => b.kind === 'tool_result' && b.callId === 'toolu_01A'));
  assert.ok(callAt >= 0 && callAt < resultAt, 'the call is restored before its result');
  assert.equal(messages.filter((m) => m.elision).length, 1);
  assert.ok(messages[messages.length - 1]?.elision);
  assert.ok(plan.window.tools.some((t) => t.name === 'query_db'), 'the schema is restored');

  const edited = applyEdits(text, plan.edits);
  assertOnlyLineChanged(text, edited, 3);
  assertOutsideUnchanged(text, edited, plan.edits);
  for (const edit of plan.edits) assert.equal(lineOf(text, edit.range.start), 3);
  const fixed = valuesOf(edited, 3) as { messages: { role: string; content: string }[]; tools: { name: string }[] };
  assert.deepEqual(fixed.tools.map((t) => t.name), ['query_db', 'send_email']);
  assert.deepEqual(fixed.messages.map((m) => m.role), ['system', 'assistant', 'tool', 'user']);
  assert.match(fixed.messages[3]?.content ?? '', /^\[elided\] 1 message/);
  const recheck = judgeRewrite(rewriteOnLine(nativeAdapter, edited, 3));
  assert.notEqual(recheck.decision, 'abort', JSON.stringify(recheck.findings.map((f) => f.rule)));
});

test('seed incident, consumed pair: the orphaned result goes too, one marker naming the pair, defer', () => {
  const text = fixture('seed-consumed.jsonl');
  const rewrite = rewriteOnLine(nativeAdapter, text, 2);
  assert.equal(judgeRewrite(rewrite).decision, 'abort');
  const plan = planFix(rewrite, text);
  assert.ok(plan);
  assert.equal(plan.verdict.decision, 'defer');
  assert.ok(!plan.window.messages.some((m) => m.blocks.some((b) => b.kind !== 'text')), 'no call or result is left');
  assert.equal(plan.title, 'Compact in whole pairs');
  assert.match(plan.description, /toolu_01A \(query_db\)/);

  const edited = applyEdits(text, plan.edits);
  assertOnlyLineChanged(text, edited, 2);
  assertOutsideUnchanged(text, edited, plan.edits);
  const fixed = valuesOf(edited, 2) as { messages: { role: string; content: string }[]; tools: unknown[] };
  assert.deepEqual(fixed.messages.map((m) => m.role), ['system', 'assistant', 'user', 'user']);
  assert.match(fixed.messages[3]?.content ?? '', /^\[elided\] 3 messages.*toolu_01A \(query_db\)/);
  assert.equal(fixed.tools.length, 1, 'a schema only a completed pair referenced may leave');
  const recheck = judgeRewrite(rewriteOnLine(nativeAdapter, edited, 2));
  assert.equal(recheck.decision, 'defer', JSON.stringify(recheck.findings.map((f) => f.rule)));
});

test('a CRLF trace stays CRLF and every other line is unchanged', () => {
  const text = fixture('seed-consumed.jsonl').replace(/\n/g, '\r\n');
  const rewrite = rewriteOnLine(nativeAdapter, text, 2);
  const plan = planFix(rewrite, text);
  assert.ok(plan && plan.edits.length > 0);
  const edited = applyEdits(text, plan.edits);
  assert.equal(edited.split('\r\n').length, text.split('\r\n').length);
  assert.ok(!/[^\r]\n/.test(edited), 'a bare LF appeared');
  assertOnlyLineChanged(text, edited, 2);
  assert.notEqual(judgeRewrite(rewriteOnLine(nativeAdapter, edited, 2)).decision, 'abort');
});

function trace(...events: unknown[]): string {
  return [{ type: 'prefix-lens/trace', version: 1 }, ...events].map((e) => JSON.stringify(e)).join('\n') + '\n';
}

const sys = { role: 'system', content: 'You are helpful.' };
const tool = (name: string) => ({ name, version: '1', input_schema: { type: 'object' } });
const call = (id: string, name = 'lookup') => ({ id, name, input: { q: id } });
const result = (id: string, name = 'lookup') => ({ role: 'tool', tool_call_id: id, name, content: `result ${id}` });

test('a parallel group of 3 with one call dropped goes whole', () => {
  const group = { role: 'assistant', content: '', tool_calls: [call('c1'), call('c2'), call('c3')] };
  const before = [sys, { role: 'user', content: 'look up three' }, group, result('c1'), result('c2'), result('c3'), { role: 'assistant', content: 'done' }];
  const cut = { ...group, tool_calls: [call('c1'), call('c3')] };
  const text = trace(
    { type: 'window', tools: [tool('lookup')], messages: before, boundary: before.length },
    { type: 'rewrite', source: 'compaction', messages: [sys, cut, result('c1'), result('c2'), result('c3'), { role: 'assistant', content: 'done' }] },
  );
  const rewrite = rewriteOnLine(nativeAdapter, text, 2);
  assert.equal(judgeRewrite(rewrite).decision, 'abort');
  const plan = planFix(rewrite, text);
  assert.ok(plan);
  assert.notEqual(plan.verdict.decision, 'abort');
  assert.ok(!plan.window.messages.some((m) => m.blocks.some((b) => b.kind === 'tool_call' || b.kind === 'tool_result')));
  const edited = applyEdits(text, plan.edits);
  assertOnlyLineChanged(text, edited, 2);
  const fixed = valuesOf(edited, 2) as { messages: { role: string; content: string }[] };
  assert.deepEqual(fixed.messages.map((m) => m.role), ['system', 'assistant', 'user']);
  assert.match(fixed.messages[2]?.content ?? '', /c1 \(lookup\), c2 \(lookup\), c3 \(lookup\)/);
  assert.notEqual(judgeRewrite(rewriteOnLine(nativeAdapter, edited, 2)).decision, 'abort');
});

test('a schema dropped while a kept pending call references it is restored, with no marker', () => {
  const messages = [sys, { role: 'user', content: 'go' }, { role: 'assistant', content: '', tool_calls: [call('p1', 'fetch')] }];
  const text = trace(
    { type: 'window', tools: [tool('search'), tool('fetch'), tool('mail')], messages, boundary: 3 },
    { type: 'rewrite', source: 'policy', tools: [tool('search'), tool('mail')] },
  );
  const rewrite = rewriteOnLine(nativeAdapter, text, 2);
  assert.ok(judgeRewrite(rewrite).findings.some((f) => f.rule === 'schema-dropped'));
  const plan = planFix(rewrite, text);
  assert.ok(plan);
  assert.notEqual(plan.verdict.decision, 'abort');
  assert.deepEqual(plan.window.tools.map((t) => t.name), ['search', 'fetch', 'mail']);
  assert.ok(!plan.window.messages.some((m) => m.elision));
  const edited = applyEdits(text, plan.edits);
  assertOnlyLineChanged(text, edited, 2);
  assert.equal(plan.edits.length, 1);
  assert.equal(plan.edits[0]?.newText, JSON.stringify(tool('fetch')) + ',');
  assert.notEqual(judgeRewrite(rewriteOnLine(nativeAdapter, edited, 2)).decision, 'abort');
});

test('a rewrite that does not abort gets no plan', () => {
  const text = trace(
    { type: 'window', tools: [], messages: [sys], boundary: 1 },
    { type: 'rewrite', source: 'runtime', messages: [sys, { role: 'user', content: 'more' }] },
  );
  assert.equal(planFix(rewriteOnLine(nativeAdapter, text, 2), text), undefined);
});

test('windows made in code get a plan without edits', () => {
  const text = fixture('seed-consumed.jsonl');
  const rewrite = rewriteOnLine(nativeAdapter, text, 2);
  const plan = planFix(rewrite);
  assert.ok(plan);
  assert.deepEqual(plan.edits, []);
  assert.equal(plan.verdict.decision, 'defer');
});

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

test("a marker the proposal put at the frontier is replaced, so the fixed window has exactly one", () => {
  const group = { role: 'assistant', content: '', tool_calls: [call('c1'), call('c2')] };
  const before = [sys, { role: 'user', content: 'two lookups' }, group, result('c1'), result('c2'), { role: 'user', content: 'go on' }];
  const text = trace(
    { type: 'window', tools: [tool('lookup')], messages: before, boundary: before.length },
    { type: 'rewrite', source: 'compaction', messages: [sys, result('c1'), result('c2'), { role: 'user', content: 'go on' }, { role: 'user', content: '[elided] the lookups' }] },
  );
  const rewrite = rewriteOnLine(nativeAdapter, text, 2);
  assert.equal(judgeRewrite(rewrite).decision, 'abort');
  const plan = planFix(rewrite, text);
  assert.ok(plan);
  const markers = plan.window.messages.filter((m) => m.blocks[0]?.kind === 'text' && m.blocks[0].text.startsWith('[elided'));
  assert.equal(markers.length, 1);
  const edited = applyEdits(text, plan.edits);
  const fixed = valuesOf(edited, 2) as { messages: { role: string; content: string }[] };
  assert.deepEqual(fixed.messages.map((m) => m.content.startsWith('[elided')), [false, false, true]);
  assert.match(fixed.messages[2]?.content ?? '', /^\[elided\] 4 messages .*c1 \(lookup\), c2 \(lookup\)/);
  assert.equal(judgeRewrite(rewriteOnLine(nativeAdapter, edited, 2)).decision, 'defer');
});

test('dropping only unconsumed history needs no marker', () => {
  const messages = [sys, { role: 'user', content: 'go' }, { role: 'assistant', content: '', tool_calls: [call('p1')] }];
  const text = trace(
    { type: 'window', tools: [tool('lookup')], messages, boundary: 2 },
    { type: 'append', messages: [result('p1'), { role: 'user', content: 'and then?' }] },
    { type: 'rewrite', source: 'compaction', messages: [sys, { role: 'user', content: 'go' }, result('p1')] },
  );
  const rewrite = rewriteOnLine(nativeAdapter, text, 3);
  assert.equal(judgeRewrite(rewrite).decision, 'abort');
  const plan = planFix(rewrite, text);
  assert.ok(plan);
  assert.ok(!plan.window.messages.some((m) => m.elision), 'no consumed history was elided');
  assert.equal(plan.title, 'Keep pending tool pairs whole');
  const edited = applyEdits(text, plan.edits);
  assert.equal(judgeRewrite(rewriteOnLine(nativeAdapter, edited, 3)).decision, 'patch');
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

test('when no whole-pair fix is acceptable the plan falls back to the window before the rewrite', () => {
  const messages = [sys, { role: 'user', content: 'go' }, { role: 'assistant', content: '', tool_calls: [call('x1')] }, result('x1'), { role: 'assistant', content: 'done' }];
  const fresh = { role: 'assistant', content: 'again', tool_calls: [call('y1')] };
  const text = trace(
    { type: 'window', tools: [tool('lookup')], messages, boundary: messages.length },
    { type: 'rewrite', source: 'self_edit', messages: [sys, { role: 'user', content: 'go (edited)' }, ...messages.slice(2), fresh, result('y1'), result('y1')] },
  );
  const rewrite = rewriteOnLine(nativeAdapter, text, 2);
  assert.equal(judgeRewrite(rewrite).decision, 'abort');
  const plan = planFix(rewrite, text);
  assert.ok(plan);
  assert.equal(plan.title, 'Revert the rewrite');
  assert.match(plan.description, /falling back to the window before the rewrite/);
  assert.equal(plan.verdict.decision, 'patch');
  const edited = applyEdits(text, plan.edits);
  assertOnlyLineChanged(text, edited, 2);
  assert.deepEqual((valuesOf(edited, 2) as { messages: unknown[] }).messages, messages);
  assert.equal(judgeRewrite(rewriteOnLine(nativeAdapter, edited, 2)).decision, 'patch');
});
