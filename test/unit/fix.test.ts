import { test } from 'node:test';
import * as fs from 'node:fs';
import * as path from 'node:path';
import assert from 'node:assert/strict';
import { applyEdits, arrayEdits, parseArrayAt } from '../../src/core/fix/edits';
import { planFix } from '../../src/core/fix/plan';
import { detectStyle, markerElement, markerText } from '../../src/core/fix/marker';
import { judgeRewrite } from '../../src/core/guard';
import { nativeAdapter } from '../../src/core/formats/native';
import { renderWindow } from '../../src/core/render';
import { assertOnlyLineChanged, assertOutsideUnchanged, call, fixture, lineOf, result, rewriteOnLine, sys, tool, trace, valuesOf } from './fix-helpers';

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
  assert.equal(plan.title, 'Compact in whole pairs', 'one name for the whole-pair fix');
  const edited = applyEdits(text, plan.edits);
  assert.equal(judgeRewrite(rewriteOnLine(nativeAdapter, edited, 3)).decision, 'patch');
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

test('the seed incident of examples/ (tool_use stripped, result pending, query_db dropped) is fixed by restoring the call and schema', () => {
  const text = fs.readFileSync(path.join(__dirname, '..', '..', 'examples', 'seed-incident.trace.jsonl'), 'utf8');
  const line = text.split('\n').findIndex((l) => l.includes('"type":"rewrite"'));
  const rewrite = rewriteOnLine(nativeAdapter, text, line);
  const rules = new Set(judgeRewrite(rewrite).findings.map((f) => f.rule));
  for (const rule of ['tool-result-orphaned', 'schema-dropped'] as const) assert.ok(rules.has(rule), rule);
  const plan = planFix(rewrite, text);
  assert.ok(plan && plan.edits.length > 0);
  assert.notEqual(plan.verdict.decision, 'abort');
  const ids = plan.window.messages.flatMap((m) => m.blocks.flatMap((b) => (b.kind === 'tool_call' ? [`call ${b.name}`] : b.kind === 'tool_result' ? ['result'] : [])));
  assert.deepEqual(ids, ['call query_db', 'result']);
  assert.ok(plan.window.tools.some((t) => t.name === 'query_db'));
  assert.ok(plan.window.messages.filter((m) => m.elision).length <= 1);
  const edited = applyEdits(text, plan.edits);
  assertOnlyLineChanged(text, edited, line);
  assert.notEqual(judgeRewrite(rewriteOnLine(nativeAdapter, edited, line)).decision, 'abort');
});

test('a rewrite that states its boundary gets the boundary of the fix written back', () => {
  const messages = [sys, { role: 'user', content: 'go' }, { role: 'assistant', content: '', tool_calls: [call('s1')] }, result('s1'), { role: 'assistant', content: 'done' }, { role: 'user', content: 'next' }];
  const text = trace(
    { type: 'window', tools: [tool('lookup')], messages, boundary: 6 },
    { type: 'rewrite', source: 'compaction', messages: [sys, result('s1'), messages[4], messages[5]], boundary: 4 },
  );
  const rewrite = rewriteOnLine(nativeAdapter, text, 2);
  assert.equal(judgeRewrite(rewrite).decision, 'abort');
  const plan = planFix(rewrite, text);
  assert.ok(plan);
  assert.equal(plan.window.boundary, 3);
  const edited = applyEdits(text, plan.edits);
  const fixed = valuesOf(edited, 2) as { messages: unknown[]; boundary: number };
  assert.equal(fixed.messages.length, 4);
  assert.equal(fixed.boundary, 3);
  assert.equal(judgeRewrite(rewriteOnLine(nativeAdapter, edited, 2)).decision, 'defer');
});

test('the marker names at most 20 pairs and counts the rest', () => {
  const pairs = Array.from({ length: 25 }, (_, i) => ({ id: `t${i}`, name: 'lookup' }));
  const text = markerText({ messages: 50, pairs });
  assert.match(text, /^\[elided\] 50 messages of earlier history; tool pairs removed whole: t0 \(lookup\), .* t19 \(lookup\) and 5 more\.$/);
  assert.ok(!text.includes('t20'));
  assert.equal(markerText({ messages: 1, pairs: [] }), '[elided] 1 message of earlier history.');
});

test('a plan that only gives back the window before the rewrite is named "Revert the rewrite" (the shipped seed incident)', () => {
  const text = fs.readFileSync(path.join(__dirname, '..', '..', 'examples', 'seed-incident.trace.jsonl'), 'utf8');
  const rewrite = rewriteOnLine(nativeAdapter, text, 4);
  const plan = planFix(rewrite, text);
  assert.ok(plan);
  assert.equal(renderWindow(plan.window).text, renderWindow(rewrite.before).text, 'the same bytes as before the rewrite');
  assert.equal(plan.title, 'Revert the rewrite');
  assert.match(plan.description, /^Keeping its tool pairs whole gives back the window before the rewrite, byte for byte\. /);
});
