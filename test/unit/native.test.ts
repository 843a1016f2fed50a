import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { nativeAdapter, windowFromObject } from '../../src/core/formats/native';
import { detectFormat } from '../../src/core/formats/registry';
import { inputFromFile, inputFromText } from '../../src/core/io';
import { linesFromBytes } from '../../src/core/byte-lines';
import type { ContextWindow, Rewrite, ToolCall, ToolResult } from '../../src/core/model';
import { splitLines } from '../../src/core/text';
import type { TranscriptEvent } from '../../src/core/transcript';
import { assistant, call, check, result, rewrite, system, tool, trace, user, windowEvent } from '../support/trace';

function read(text: string): TranscriptEvent[] {
  return [...nativeAdapter.read(inputFromText('t.jsonl', text))];
}
const windows = (events: TranscriptEvent[]) => events.flatMap((e) => (e.kind === 'window' ? [e.window] : []));
const steps = (events: TranscriptEvent[]) => events.flatMap((e) => (e.kind === 'step' ? [e.rewrite] : []));

const fixture = fs.readFileSync('test/fixtures/native/ranges.trace.jsonl', 'utf8');

test('the native format is detected by its header line, ahead of every other format', () => {
  assert.equal(detectFormat(fixture)?.id, 'native');
  assert.equal(nativeAdapter.sniff('{"type":"window","messages":[]}'), false);
});

test('every message, call and result carries exact source ranges', () => {
  const final = windows(read(fixture)).at(-1) as ContextWindow;
  const slice = (r?: { start: number; end: number }) => (r ? fixture.slice(r.start, r.end) : undefined);
  const [sys, , assistantMessage, toolMessage] = final.messages;
  assert.equal(slice(sys?.source), '{"role":"system","content":"Be brief."}');
  assert.ok(slice(sys?.container)?.startsWith('[{"role":"system"'));
  const c = assistantMessage?.blocks[1] as ToolCall;
  assert.equal(c.kind, 'tool_call');
  assert.equal(slice(c.idSource), '"call_é1"');
  assert.equal(slice(c.source), '{"id":"call_é1","name":"lookup","input":{"q":"x"},"schema_version":"2"}');
  assert.ok(slice(c.container)?.startsWith('[{"id":"call_é1"'));
  assert.equal(c.schemaVersion, '2');
  const r = toolMessage?.blocks[0] as ToolResult;
  assert.equal(slice(r.idSource), '"call_é1"');
  assert.equal(slice(r.source), slice(toolMessage?.source));
  assert.equal(slice(final.tools[0]?.source), '{"name":"lookup","version":2,"input_schema":{"type":"object"}}');
  assert.equal(final.tools[0]?.version, '2');
});

test('generate moves the boundary to the end, append does not', () => {
  const events = read(fixture);
  const final = windows(events).at(-1) as ContextWindow;
  assert.equal(final.messages.length, 4);
  assert.equal(final.boundary, 3, 'the appended tool result is not consumed yet');
  assert.equal(final.live, true);
});

test('the historical registry keeps every tool version seen; applied:false keeps the state', () => {
  const text = trace(
    windowEvent([tool('a', '1')], [system('s')]),
    rewrite('policy', { tools: [tool('a', '2'), tool('b')] }),
    rewrite('policy', { tools: [], applied: false }),
  );
  const events = read(text);
  const [first, second] = steps(events) as [Rewrite, Rewrite];
  assert.equal(second.applied, false);
  assert.deepEqual(second.before.tools.map((t) => `${t.name}@${t.version}`), ['a@2', 'b@1'], 'the unapplied rewrite did not become the state');
  assert.deepEqual(first.after.historicalTools?.map((t) => `${t.name}@${t.version}`), ['a@1', 'a@2', 'b@1']);
  assert.equal(windows(events).length, 2, 'one window per applied state');
});

test('a rewrite without messages keeps them and the boundary; with messages the boundary is inferred', () => {
  const src = trace(
    windowEvent([], [system('s'), user('u'), assistant('a')]),
    rewrite('compaction', { messages: [system('s'), assistant('a'), user('next')] }),
    rewrite('policy', { tools: [tool('t')] }),
  );
  const [compaction, policy] = steps(read(src)) as [Rewrite, Rewrite];
  assert.equal(compaction.after.boundary, 2, 'just past the last retained consumed message');
  assert.equal(compaction.range?.start, src.indexOf('{"type":"rewrite"'));
  assert.equal(policy.after.messages, compaction.after.messages);
  assert.equal(policy.after.boundary, 2);
});

test('unknown events, bad messages and bad lines become findings; the rest is read', () => {
  const lines = trace(windowEvent([], [system('s'), { role: 'robot', content: 'x' }, 42]), { type: 'telemetry' }).split('\n');
  lines.splice(2, 0, '{"type": "generate", "messages": [');
  const events = read(lines.join('\n'));
  const findings = events.flatMap((e) => (e.kind === 'finding' ? [e.finding] : []));
  assert.deepEqual(findings.map((f) => f.rule).sort(), ['invalid-json', 'record-skipped', 'record-skipped', 'record-skipped']);
  assert.equal(windows(events).at(-1)?.messages.length, 1);
});

test('what the native reader skips or reads with a fallback is one info per cause with the count, the first line and the next ones related', () => {
  const lines = trace(
    windowEvent([], [system('s'), { role: 'robot', content: 'x' }, user('u')]),
    { type: 'telemetry', n: 1 },
    { type: 'append', messages: [{ role: 'robot', content: 'y' }, 42, { role: 'tool', content: 'no id' }] },
    { type: 'telemetry', n: 2 },
    { type: 'rewrite', messages: [system('s'), user('u')], boundary: -1 },
    { type: 'telemetry', n: 3 },
  ).split('\n');
  const findings = read(lines.join('\n')).flatMap((e) => (e.kind === 'finding' ? [e.finding] : []));
  const start = (index: number) => lines.slice(0, index).join('\n').length + 1;
  assert.deepEqual(
    findings.map((f) => [f.severity, f.rule, f.message, f.related?.length ?? 0]),
    [
      ['info', 'record-skipped', 'Skipped 2 messages with role "robot" (first at line 2): the roles of the trace are system, user, assistant and tool', 1],
      ['info', 'record-skipped', "Skipped 3 events of type \"telemetry\" (first at line 3): not part of the model's context as far as this reader knows", 2],
      ['info', 'record-skipped', 'Skipped 1 message of JSON type number (first at line 4): not part of the context as read', 0],
      ['info', 'record-skipped', 'Read 1 `tool` message without a string `tool_call_id` as text (first at line 4): not paired with anything', 0],
      ['info', 'record-skipped', 'Read 1 rewrite without a valid `source` as runtime (first at line 6): `source` is policy, compaction, self_edit or runtime', 0],
      ['info', 'record-skipped', 'Ignored 1 `boundary` value other than a non-negative integer (first at line 6): the boundary is inferred', 0],
    ],
  );
  const events = findings[1]!;
  assert.equal(events.range.start, start(2));
  assert.deepEqual(events.related?.map((r) => r.range.start), [start(4), start(6)]);
});

test('windowFromObject reads plain objects; missing fields come from the base', () => {
  const base = windowFromObject({ tools: [{ name: 'f', input_schema: {} }], messages: [{ role: 'user', content: 'hi' }], boundary: 1 });
  assert.equal(base.messages[0]?.blocks[0]?.kind, 'text');
  assert.equal(base.boundary, 1);
  const next = windowFromObject({ messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: null, tool_calls: [call('x', 'f')] }] }, base);
  assert.equal(next.tools.length, 1);
  assert.equal(next.boundary, 1);
  assert.equal(next.messages[1]?.blocks.length, 1, 'content null adds no block');
  assert.equal(next.messages[0]?.source, undefined, 'objects built in code have no source');
});

test('inputFromFile streams lines with the same UTF-16 offsets as splitLines', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prefix-lens-'));
  const file = path.join(dir, 't.jsonl');
  const content = trace(windowEvent([], [user('héllo 😀 wörld')]), { type: 'append', messages: [result('x', 'ü')] }).replace(/\n/, '\r\n');
  fs.writeFileSync(file, content);
  assert.deepEqual([...inputFromFile(file).lines()], [...splitLines(content)]);
  assert.equal(inputFromFile(file).head(10), content.slice(0, 10));
  fs.rmSync(dir, { recursive: true });
});

test('lines spanning chunk boundaries are joined once with correct offsets (a character cut between chunks too)', () => {
  const content = 'ab\ncdéf\n\nghi\r\nj😀';
  const bytes = Buffer.from(content);
  const cuts = [1, 6, 7, 8, 10, 13, 14, 17, bytes.length];
  const chunks = cuts.map((cut, i) => bytes.subarray(cuts[i - 1] ?? 0, cut));
  assert.deepEqual([...linesFromBytes(chunks)], [...splitLines(content)]);
});

test('property: no sequence of lines crashes the native reader or the checks', () => {
  const message = fc.record(
    {
      role: fc.constantFrom('system', 'user', 'assistant', 'tool', 'robot'),
      content: fc.oneof(fc.string(), fc.constant(null), fc.array(fc.oneof(fc.string(), fc.json().map((j) => JSON.parse(j) as unknown)))),
      tool_calls: fc.array(fc.record({ id: fc.oneof(fc.constantFrom('a', 'b'), fc.integer()), name: fc.constantFrom('f', 'g'), input: fc.json().map((j) => JSON.parse(j) as unknown) }, { requiredKeys: [] }), { maxLength: 2 }),
      tool_call_id: fc.oneof(fc.constantFrom('a', 'b'), fc.integer()),
      elision: fc.boolean(),
    },
    { requiredKeys: ['role'] },
  );
  const tools = fc.array(fc.record({ name: fc.constantFrom('f', 'g', 7), version: fc.oneof(fc.string(), fc.integer()) }, { requiredKeys: [] }), { maxLength: 3 });
  const event = fc.oneof(
    fc.record({ type: fc.constant('window'), tools, messages: fc.array(message, { maxLength: 5 }), boundary: fc.oneof(fc.integer({ min: -2, max: 8 }), fc.string()) }, { requiredKeys: ['type'] }),
    fc.record({ type: fc.constantFrom('generate', 'append'), messages: fc.array(message, { maxLength: 3 }) }, { requiredKeys: ['type'] }),
    fc.record({ type: fc.constant('rewrite'), source: fc.constantFrom('policy', 'compaction', 'self_edit', 'runtime', 'x'), tools, messages: fc.array(message, { maxLength: 5 }), applied: fc.boolean() }, { requiredKeys: ['type'] }),
  );
  const line = fc.oneof({ weight: 5, arbitrary: event.map((e) => JSON.stringify(e)) }, { weight: 1, arbitrary: fc.string() });
  fc.assert(
    fc.property(fc.array(line, { maxLength: 8 }), (lines) => {
      const report = check([JSON.stringify({ type: 'prefix-lens/trace', version: 1 }), ...lines].join('\n'));
      return report.findings.every((f) => f.range.start >= 0 && f.range.end >= f.range.start);
    }),
    { numRuns: 300 },
  );
});
