import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { parseJson, type JsonNode } from '../../src/core/json/parse';
import { fromValue } from '../../src/core/json/nodes';
import { canonicalJson, explainRenderDifference } from '../../src/core/meaning';
import type { ContextWindow, Message } from '../../src/core/model';
import { renderJson, renderMessage, renderWindow, sameJson } from '../../src/core/render';

function node(text: string): JsonNode {
  const parsed = parseJson(text);
  if (!parsed.ok) throw parsed.error;
  return parsed.node;
}

const call = (id: string, input = '{"b":1,"a":2.50}'): Message => ({
  role: 'assistant',
  blocks: [
    { kind: 'text', text: 'calling' },
    { kind: 'tool_call', id, name: 'f', input: node(input), source: { start: 100, end: 150 } },
  ],
  source: { start: 90, end: 160 },
});

const window = (messages: Message[], boundary = messages.length): ContextWindow => ({
  format: 'native',
  tools: [{ name: 'f', declaration: node('{ "name": "f", "input_schema": {"type":"object"} }'), source: { start: 10, end: 60 } }],
  messages,
  boundary,
  live: true,
});

test('renderJson keeps key order and raw number text, compacts whitespace, re-encodes strings', () => {
  assert.equal(renderJson(node('{ "b" : 1.0, "a": [ 1e3, "\\u00e9\\/" ] }')), '{"b":1.0,"a":[1e3,"é/"]}');
});

test('a window renders tools first, then messages, compact and deterministic', () => {
  const w = window([{ role: 'system', blocks: [{ kind: 'text', text: 'sys' }] }, call('t1')]);
  const rendered = renderWindow(w);
  assert.equal(
    rendered.text,
    '{"tools":[{"name":"f","input_schema":{"type":"object"}}],"messages":[{"role":"system","content":[{"type":"text","text":"sys"}]},' +
      '{"role":"assistant","content":[{"type":"text","text":"calling"},{"type":"tool_use","id":"t1","name":"f","input":{"b":1,"a":2.50}}]}]}',
  );
  assert.equal(renderWindow(w).text, rendered.text);
});

test('the boundary offset is the end of the tools plus the consumed messages', () => {
  const messages: Message[] = [{ role: 'user', blocks: [{ kind: 'text', text: 'u' }] }, call('t1')];
  const one = renderWindow(window(messages, 1));
  assert.ok(one.text.slice(0, one.boundaryOffset).endsWith('{"role":"user","content":[{"type":"text","text":"u"}]}'));
  const none = renderWindow(window(messages, 0));
  assert.ok(none.text.slice(0, none.boundaryOffset).endsWith('"messages":['));
  const all = renderWindow(window(messages, 2));
  assert.equal(all.boundaryOffset, all.text.length - 2);
});

test('segments map every tool, message and block back to its source, with call ids', () => {
  const rendered = renderWindow(window([call('t1')]));
  const kinds = rendered.segments.map((s) => s.kind);
  assert.deepEqual(kinds, ['tool', 'message', 'block', 'block']);
  const callSegment = rendered.segments[3];
  assert.equal(callSegment?.callId, 't1');
  assert.deepEqual(callSegment?.source, { start: 100, end: 150 });
  assert.ok(rendered.text.slice(callSegment?.start, callSegment?.end).startsWith('{"type":"tool_use","id":"t1"'));
  const message = rendered.segments[1];
  assert.equal(rendered.text.slice(message?.start, message?.end), renderMessage(call('t1')));
});

test('content null and absent render alike; a changed id or a dropped signature changes bytes', () => {
  const absent: Message = { role: 'tool', blocks: [{ kind: 'tool_result', callId: 'x', content: undefined }] };
  const nulled: Message = { role: 'tool', blocks: [{ kind: 'tool_result', callId: 'x', content: undefined, source: { start: 1, end: 2 } }] };
  assert.equal(renderMessage(absent), renderMessage(nulled));
  assert.notEqual(renderMessage(call('t1')), renderMessage(call('t2')));
  const thinking = (value: unknown): Message => ({ role: 'assistant', blocks: [{ kind: 'opaque', type: 'thinking', value: fromValue(value) }] });
  assert.notEqual(renderMessage(thinking({ type: 'thinking', thinking: 'hm', signature: 'sig' })), renderMessage(thinking({ type: 'thinking', thinking: 'hm' })));
});

test('schema_version and is_error are rendered only when set', () => {
  const versioned: Message = { role: 'assistant', blocks: [{ kind: 'tool_call', id: 'a', name: 'f', input: undefined, schemaVersion: '2' }] };
  assert.match(renderMessage(versioned), /"input":\{\},"schema_version":"2"/);
  const failed: Message = { role: 'tool', blocks: [{ kind: 'tool_result', callId: 'a', content: fromValue('boom'), isError: true }] };
  assert.match(renderMessage(failed), /"content":"boom","is_error":true/);
});

test('meaning ignores key order, number form, NFC and embedded JSON formatting', () => {
  assert.equal(canonicalJson(node('{"b":1.0,"a":"caf\u00e9"}')), canonicalJson(node('{"a":"cafe\u0301","b":1}')));
  assert.equal(canonicalJson(node('{"arguments":"{\\"x\\": 1}"}')), canonicalJson(node('{"arguments":"{\\"x\\":1}"}')));
  assert.notEqual(canonicalJson(node('{"a":1}')), canonicalJson(node('{"a":2}')));
});

test('explainRenderDifference names each cause, and nothing when meaning differs or bytes agree', () => {
  assert.equal(explainRenderDifference('{"a":1,"b":2}', '{"b":2,"a":1}'), 'key order');
  assert.equal(explainRenderDifference('{"a":1.0}', '{"a":1}'), 'number form');
  assert.equal(explainRenderDifference('{"a":"caf\u00e9"}', '{"a":"cafe\u0301"}'), 'unicode normalisation');
  assert.equal(explainRenderDifference('{"args":"{\\"x\\": 1}"}', '{"args":"{\\"x\\":1}"}'), 'whitespace inside an embedded JSON string');
  assert.equal(explainRenderDifference('{"a":1,"b":2.0}', '{"b":2,"a":1}'), 'key order, number form');
  assert.equal(explainRenderDifference('{"a":1}', '{"a":2}'), undefined);
  assert.equal(explainRenderDifference('{"a":1}', '{"a":1}'), undefined);
});

test('sameJson tells two nodes render alike exactly when their renders are equal (random values, spacing, number spellings, a missing node)', () => {
  const spelled = (value: unknown, indent: number) => JSON.stringify(value, null, indent).replace(/(?<=[:[,\s])(-?\d+)(?=[,\]}\s])/g, (n) => (indent === 3 ? `${n}.0` : n));
  const text = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }).chain((v) => fc.tuple(fc.constant(v), fc.constantFrom(0, 2, 3)).map(([value, indent]) => spelled(value, indent))),
    fc.constantFrom('null', '{}', '[]', '""', '{"a":1,"b":2}', '{"b":2,"a":1}', '[1,2]', '[1,2.0]', '"\\ud800"', '"\\u00e9"', '"é"'),
  );
  fc.assert(
    fc.property(fc.option(text), fc.option(text), fc.boolean(), (a, b, same) => {
      const x = a === null ? undefined : node(a);
      const y = same ? (a === null ? undefined : node(a)) : b === null ? undefined : node(b);
      assert.equal(sameJson(x, y), renderJson(x) === renderJson(y), `${String(a)} / ${String(same ? a : b)}`);
    }),
    { numRuns: 500 },
  );
});
