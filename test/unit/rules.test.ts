import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { checkTranscript } from '../../src/core/check';
import { judgeRewrite } from '../../src/core/guard';
import { fromValue } from '../../src/core/json/nodes';
import type { ContextWindow, Message } from '../../src/core/model';
import { LineIndex } from '../../src/core/text';
import { assistant, call, check, result, rewrite, rulesOf, system, tool, trace, user, windowEvent, type Json } from '../support/trace';

const tools = [tool('read_file'), tool('run_tests')];
const history: Json[] = [
  system('You are a coding agent.'),
  user('Read a.txt'),
  assistant('Reading.', call('c1', 'read_file', { path: 'a.txt' })),
  result('c1', 'hello'),
  assistant('It says hello.'),
];

function example(name: string) {
  const file = `examples/${name}`;
  return checkTranscript({ file, text: fs.readFileSync(file, 'utf8') }, { tokens: false });
}

test('seed incident: abort with exactly tool-result-orphaned, schema-dropped, prefix-mutated', () => {
  const report = example('seed-incident.trace.jsonl');
  assert.equal(report.steps.length, 1);
  assert.equal(report.steps[0]?.decision, 'abort');
  assert.deepEqual([...(report.steps[0]?.rules ?? [])].sort(), ['prefix-mutated', 'schema-dropped', 'tool-result-orphaned']);
  const text = fs.readFileSync('examples/seed-incident.trace.jsonl', 'utf8');
  const orphan = report.findings.find((f) => f.rule === 'tool-result-orphaned');
  assert.equal(text.slice(orphan?.range.start, orphan?.range.end), '"toolu_01"');
  assert.ok(orphan?.range.start && orphan.range.start > text.lastIndexOf('\n', text.length - 2), 'located in the rewrite line');
  const dropped = report.findings.find((f) => f.rule === 'schema-dropped');
  assert.equal(dropped?.toolCallId, 'toolu_01');
  assert.ok(dropped?.related?.some((r) => text.slice(r.range.start, r.range.end).startsWith('{"name":"query_db"')));
});

test('a buried orphan call is found in the middle of history', () => {
  const report = example('buried-orphan.trace.jsonl');
  const orphans = report.findings.filter((f) => f.rule === 'tool-use-orphaned');
  assert.deepEqual(orphans.map((f) => f.toolCallId), ['call_2']);
  assert.equal(orphans[0]?.step, undefined);
});

test('a buried orphan result is found in the middle of history', () => {
  const messages = [...history.slice(0, 2), result('ghost', 'no call'), ...history.slice(2)];
  const report = check(trace(windowEvent(tools, messages)));
  assert.deepEqual(report.findings.map((f) => [f.rule, f.toolCallId]), [['tool-result-orphaned', 'ghost']]);
});

test('parallel calls with one unanswered: only that call is an orphan once the turn moved on', () => {
  const parallel = [
    ...history,
    user('Run both.'),
    assistant('Running both.', call('p1', 'run_tests'), call('p2', 'read_file', { path: 'b' })),
    result('p1', 'ok'),
  ];
  const pending = check(trace(windowEvent(tools, parallel)));
  assert.deepEqual(pending.findings, [], 'p2 is still pending at the frontier of a live window');
  const movedOn = check(trace(windowEvent(tools, [...parallel, assistant('Done.')])));
  assert.deepEqual(movedOn.findings.map((f) => [f.rule, f.toolCallId]), [['tool-use-orphaned', 'p2']]);
});

test('whole-pair compaction with an elision marker defers; without the marker elision-unmarked', () => {
  const report = example('whole-pair-compaction.trace.jsonl');
  assert.equal(report.steps[0]?.decision, 'defer');
  assert.deepEqual(report.steps[0]?.rules, ['prefix-mutated']);
  const unmarked = check(trace(windowEvent(tools, history), rewrite('compaction', { messages: [history[0] as Json, history[4] as Json] })));
  assert.equal(unmarked.steps[0]?.decision, 'defer');
  assert.deepEqual(rulesOf(unmarked, 1), ['elision-unmarked', 'prefix-mutated']);
});

test('dropping a result but keeping its call orphans the call, even at the frontier of a live window', () => {
  const report = check(trace(windowEvent(tools, history.slice(0, 4)), rewrite('compaction', { messages: history.slice(0, 3) })));
  assert.equal(report.steps[0]?.decision, 'abort');
  assert.deepEqual(report.findings.filter((f) => f.rule === 'tool-use-orphaned').map((f) => f.toolCallId), ['c1']);
});

test('a pending call with its schema dropped aborts', () => {
  const pending = [...history, user('Run the tests.'), assistant('Running.', call('c2', 'run_tests'))];
  const report = check(trace(windowEvent(tools, pending), rewrite('policy', { tools: [tool('read_file')] })));
  assert.equal(report.steps[0]?.decision, 'abort');
  assert.deepEqual(rulesOf(report, 1), ['prefix-mutated', 'schema-dropped']);
  assert.equal(report.findings.find((f) => f.rule === 'schema-dropped')?.toolCallId, 'c2');
});

test('a result after the boundary keeps its call pending: dropping the schema aborts', () => {
  const text = trace(windowEvent(tools, history.slice(0, 3)), { type: 'append', messages: [history[3] as Json] }, rewrite('policy', { tools: [tool('run_tests')] }));
  assert.equal(check(text).steps[0]?.decision, 'abort');
});

test('a schema removed with only completed pairs referencing it defers, not abort', () => {
  const report = check(trace(windowEvent(tools, history), rewrite('policy', { tools: [tool('run_tests')] })));
  assert.equal(report.steps[0]?.decision, 'defer');
  assert.deepEqual(rulesOf(report, 1), ['prefix-mutated']);
});

test('an edit only past the boundary is a patch', () => {
  const report = example('patch-past-boundary.trace.jsonl');
  assert.equal(report.steps[0]?.decision, 'patch');
  assert.deepEqual(report.steps[0]?.rules, []);
  const appendOnly = check(trace(windowEvent(tools, history), rewrite('runtime', { messages: [...history, user('next')] })));
  assert.equal(appendOnly.steps[0]?.decision, 'patch');
});

test('key-order drift is render-unstable naming "key order", not a straddle', () => {
  const report = example('key-order-drift.trace.jsonl');
  assert.equal(report.steps[0]?.decision, 'defer');
  assert.deepEqual(report.steps[0]?.rules, ['render-unstable']);
  assert.match(report.findings[0]?.message ?? '', /key order/);
});

function driftStep(before: Json, after: Json) {
  const messages = (input: Json) => [history[0] as Json, user('go'), assistant('ok', call('k1', 'read_file', input)), result('k1', 'r'), assistant('done')];
  return check(trace(windowEvent(tools, messages(before)), rewrite('runtime', { messages: messages(after) })));
}

test('number form (1.0 vs 1) is render-unstable naming "number form"', () => {
  const text = trace(windowEvent(tools, history)).replace('"path":"a.txt"', '"path":"a.txt","n":1.0');
  const after = text.split('\n')[1]?.replace('"n":1.0', '"n":1') ?? '';
  const windowLine = JSON.parse(after) as { messages: Json[] };
  const report = check(text + JSON.stringify(rewrite('runtime', { messages: windowLine.messages })) + '\n');
  assert.deepEqual(report.steps[0]?.rules, ['render-unstable']);
  assert.match(report.findings[0]?.message ?? '', /number form/);
});

test('NFC vs NFD is render-unstable naming "unicode normalisation"', () => {
  const report = driftStep({ path: 'caf\u00e9.txt' }, { path: 'cafe\u0301.txt' });
  assert.deepEqual(report.steps[0]?.rules, ['render-unstable']);
  assert.match(report.findings[0]?.message ?? '', /unicode normalisation/);
});

test('a changed input of a consumed call whose result stays is pair-straddled (abort)', () => {
  const report = driftStep({ path: 'a.txt' }, { path: 'b.txt' });
  assert.equal(report.steps[0]?.decision, 'abort');
  assert.deepEqual(rulesOf(report, 1), ['pair-straddled', 'prefix-mutated']);
  assert.equal(report.findings.find((f) => f.rule === 'pair-straddled')?.toolCallId, 'k1');
});

test('a consumed result edited alone is pair-straddled; both members edited is only prefix-mutated', () => {
  const edited = history.map((m, i) => (i === 3 ? result('c1', 'goodbye') : m));
  assert.deepEqual(rulesOf(check(trace(windowEvent(tools, history), rewrite('runtime', { messages: edited }))), 1), ['pair-straddled', 'prefix-mutated']);
  const both = edited.map((m, i) => (i === 2 ? assistant('Reading.', call('c1', 'read_file', { path: 'b.txt' })) : m));
  const report = check(trace(windowEvent(tools, history), rewrite('runtime', { messages: both })));
  assert.equal(report.steps[0]?.decision, 'defer');
  assert.deepEqual(rulesOf(report, 1), ['prefix-mutated']);
});

test('an invalid JSON line is located by line and column and the next line is still checked', () => {
  const lines = trace(windowEvent(tools, history), rewrite('policy', { tools: [tool('run_tests')] })).split('\n');
  lines.splice(2, 0, '{"type":"append", "messages": [}');
  const report = check(lines.join('\n'));
  const bad = report.findings.find((f) => f.rule === 'invalid-json');
  assert.ok(bad);
  const at = LineIndex.fromStarts(report.lineStarts).position(bad.range.start);
  assert.deepEqual(at, { line: 3, column: (lines[2] ?? '').indexOf('}') + 1 });
  assert.equal(report.steps.length, 1, 'the rewrite after the bad line is still judged');
  assert.equal(report.steps[0]?.decision, 'defer');
});

test('two results for one call are tool-result-duplicated, related to the call', () => {
  const text = trace(windowEvent(tools, [...history.slice(0, 4), result('c1', 'again'), history[4] as Json]));
  const report = check(text);
  const dup = report.findings.filter((f) => f.rule === 'tool-result-duplicated');
  assert.equal(dup.length, 1);
  assert.equal(dup[0]?.toolCallId, 'c1');
  assert.equal(text.slice(dup[0]?.related?.[0]?.range.start, dup[0]?.related?.[0]?.range.end), '"c1"');
  assert.ok((dup[0]?.range.start ?? 0) > text.indexOf('"again"') - 40);
});

test('two calls with one id are tool-call-id-reused', () => {
  const messages = [...history, user('again'), assistant('Reading again.', call('c1', 'read_file', { path: 'a.txt' })), result('c1', 'hello'), assistant('Same.')];
  const report = check(trace(windowEvent(tools, messages)));
  assert.deepEqual(rulesOf(report), ['tool-call-id-reused', 'tool-result-duplicated']);
});

test('a policy that bumps the version of a pending call\'s tool is schema-changed (abort)', () => {
  const pending = [...history, user('Run.'), assistant('Running.', call('c2', 'run_tests', {}, '1'))];
  const report = check(trace(windowEvent(tools, pending), rewrite('policy', { tools: [tool('read_file'), tool('run_tests', '2')] })));
  assert.equal(report.steps[0]?.decision, 'abort');
  assert.ok(rulesOf(report, 1).includes('schema-changed'));
  const completed = check(trace(windowEvent(tools, history.map((m, i) => (i === 2 ? assistant('Reading.', call('c1', 'read_file', {}, '1')) : m))), rewrite('policy', { tools: [tool('read_file', '2'), tool('run_tests')] })));
  assert.ok(!rulesOf(completed, 1).includes('schema-changed'), 'a completed pair keeps its historical version');
});

test('a self-edit is flagged as info and judged by the same rules', () => {
  const report = example('self-edit.trace.jsonl');
  assert.equal(report.steps[0]?.decision, 'abort');
  assert.ok(report.steps[0]?.rules.includes('self-edit'));
  assert.ok(report.steps[0]?.rules.includes('tool-result-orphaned'));
  assert.equal(report.findings.find((f) => f.rule === 'self-edit')?.severity, 'info');
  const harmless = check(trace(windowEvent(tools, history), rewrite('self_edit', { messages: [...history, user('more')] })));
  assert.equal(harmless.steps[0]?.decision, 'patch');
  assert.deepEqual(harmless.steps[0]?.rules, ['self-edit']);
});

function window(messages: Message[], extra: Partial<ContextWindow> = {}): ContextWindow {
  return { format: 'openai-responses', tools: [], messages, boundary: messages.length, live: false, ...extra };
}
const text = (t: string) => ({ kind: 'text' as const, text: t });

test('in a request body (not live) an unanswered call at the end is an orphan', () => {
  const messages: Message[] = [
    { role: 'user', blocks: [text('go')] },
    { role: 'assistant', blocks: [{ kind: 'tool_call', id: 'x', name: 'f', input: fromValue({}) }] },
  ];
  const verdict = judgeRewrite({ source: 'request', before: window(messages.slice(0, 1)), after: window(messages), applied: true });
  assert.deepEqual(verdict.findings.map((f) => f.rule), ['tool-use-orphaned']);
  assert.equal(verdict.decision, 'abort');
});

test('a result whose call lives in server state is info server-state-pairing, not an orphan', () => {
  const messages: Message[] = [{ role: 'tool', blocks: [{ kind: 'tool_result', callId: 'fc_1', content: fromValue('ok') }] }];
  const serverState = { kind: 'previous_response_id' as const, id: 'resp_1' };
  const verdict = judgeRewrite({ source: 'request', before: window([], { serverState }), after: window(messages, { serverState }), applied: true });
  assert.deepEqual(verdict.findings.map((f) => [f.rule, f.severity]), [['server-state-pairing', 'info']]);
  assert.equal(verdict.decision, 'patch');
});

test('prefix-mutated points at the changed block in the proposal, related to the bytes the model read', () => {
  const edited = history.map((m, i) => (i === 1 ? user('Read b.txt') : m));
  const text = trace(windowEvent(tools, history), rewrite('runtime', { messages: edited }));
  const report = check(text);
  const f = report.findings.find((x) => x.rule === 'prefix-mutated');
  assert.equal(text.slice(f?.range.start, f?.range.end), '"Read b.txt"');
  assert.ok((f?.range.start ?? 0) > text.indexOf('{"type":"rewrite"'));
  const original = f?.related?.[0]?.range;
  assert.equal(text.slice(original?.start, original?.end), '"Read a.txt"');
  assert.ok((original?.start ?? 0) < text.indexOf('{"type":"rewrite"'));
});

test('tool registry changes: same-meaning re-render is render-unstable, reorder or addition is prefix-mutated, nothing consumed is a patch', () => {
  const reordered = { name: 'read_file', input_schema: { type: 'object' }, version: '1' };
  const drift = check(trace(windowEvent(tools, history), rewrite('policy', { tools: [reordered, tools[1] as Json] })));
  assert.deepEqual(drift.steps[0]?.rules, ['render-unstable']);
  assert.match(drift.findings[0]?.message ?? '', /key order/);
  const swapped = check(trace(windowEvent(tools, history), rewrite('policy', { tools: [tools[1] as Json, tools[0] as Json] })));
  assert.equal(swapped.steps[0]?.decision, 'defer');
  assert.deepEqual(swapped.steps[0]?.rules, ['prefix-mutated']);
  const added = check(trace(windowEvent(tools, history), rewrite('policy', { tools: [...tools, tool('write_file')] })));
  assert.deepEqual(added.steps[0]?.rules, ['prefix-mutated']);
  const fresh = check(trace(windowEvent(tools, history.slice(0, 2), 0), rewrite('policy', { tools: [tool('write_file')] })));
  assert.equal(fresh.steps[0]?.decision, 'patch', 'the model has read nothing yet');
});

test('a consumed message inserted into history is prefix-mutated at the inserted message', () => {
  const inserted = [...history.slice(0, 2), user('(injected)'), ...history.slice(2)];
  const text = trace(windowEvent(tools, history), rewrite('runtime', { messages: inserted }));
  const report = check(text);
  assert.deepEqual(report.steps[0]?.rules, ['prefix-mutated']);
  const f = report.findings[0];
  assert.equal(text.slice(f?.range.start, f?.range.end), '{"role":"user","content":"(injected)"}');
});

test('a message inserted just before the last consumed message kept is flagged where it was inserted', () => {
  // History of five consumed messages; the insert lands at index 4, just before the last one kept (prefix-changes lists inserts up to it).
  const inserted = [...history.slice(0, 4), user('Injected.'), history[4] as Json];
  const report = check(trace(windowEvent(tools, history), rewrite('runtime', { messages: inserted })));
  const found = report.findings.filter((f) => f.rule === 'prefix-mutated').map((f) => f.message);
  assert.equal(found.length, 1);
  assert.match(found[0] ?? '', /^A user message was inserted into the consumed prefix.*messages\[4\]/);
});
