/**
 * Anthropic Messages request bodies: reading into the neutral model (system,
 * tools, every block kind, sources), logged responses, the recorded corpus
 * chains (all patch), orphans anywhere in the window, and the sniff.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { checkTranscript } from '../../src/core/check';
import { anthropicAdapter, readAnthropicResponse } from '../../src/core/formats/anthropic';
import { parseJson } from '../../src/core/json/parse';
import { toolPairs, type OpaqueBlock, type ToolCall, type ToolResult } from '../../src/core/model';
import { renderMessage } from '../../src/core/render';
import { PROVIDERS, corpusFiles, fileText, readEvents, slice } from './provider-helpers';
import { CORPUS } from '../support/corpus';

const corpus = (name: string) => path.join(CORPUS, 'anthropic-messages', name);
const MIXED = corpus('pydanticai_test_anthropic_mixed_strict_tool_run.requests.jsonl');
const PARALLEL = corpus('pydanticai_test_multiple_parallel_tool_calls.requests.jsonl');
const THINKING = corpus('pydanticai_test_anthropic_tool_with_thinking.requests.jsonl');
const COMPACTION = corpus('pydanticai_test_anthropic_compaction_round_trip.requests.jsonl');

describe('anthropic: reading a request body', () => {
  const file = path.join(PROVIDERS, 'anthropic-request.json');
  const text = fileText(file);
  const { windows, steps, findings } = readEvents(anthropicAdapter, file, text);
  const window = windows[0]!;

  it('reads a .json file as one window, not live, everything consumed', () => {
    assert.equal(windows.length, 1);
    assert.equal(steps.length, 0);
    assert.deepEqual(findings, []);
    assert.equal(window.format, 'anthropic');
    assert.equal(window.live, false);
    assert.equal(window.boundary, window.messages.length);
  });

  it('turns system text blocks into one leading system message', () => {
    const system = window.messages[0]!;
    assert.equal(system.role, 'system');
    assert.deepEqual(
      system.blocks.map((b) => (b.kind === 'text' ? b.text : b.kind)),
      ['You are terse.', 'Use tools.'],
    );
    assert.equal(window.messages.length, 6);
  });

  it('reads tools by name, keeping the declaration without cache_control', () => {
    assert.deepEqual(window.tools.map((t) => t.name), ['lookup', 'weather']);
    const weather = window.tools[1]!;
    assert.equal(weather.declaration.type, 'object');
    assert.ok(weather.declaration.type === 'object' && !weather.declaration.properties.some((p) => p.key === 'cache_control'));
    assert.match(slice(text, weather.source), /"cache_control"/, 'the source range is still the whole element');
  });

  it('reads every block kind with its source range', () => {
    const assistant = window.messages[2]!;
    assert.deepEqual(assistant.blocks.map((b) => b.kind), ['opaque', 'text', 'tool_call', 'tool_call']);
    const thinking = assistant.blocks[0] as OpaqueBlock;
    assert.equal(thinking.type, 'thinking');
    assert.match(slice(text, thinking.source), /"signature": "sig-AAA"/);
    const call = assistant.blocks[2] as ToolCall;
    assert.equal(call.id, 'toolu_p');
    assert.equal(call.name, 'weather');
    assert.equal(slice(text, call.idSource), '"toolu_p"');
    assert.equal(slice(text, call.input), '{\n            "city": "Paris"\n          }');
    const results = window.messages[3]!.blocks as ToolResult[];
    assert.deepEqual(results.map((r) => [r.callId, r.isError]), [['toolu_p', undefined], ['toolu_r', true]]);
    assert.equal(window.messages[4]!.blocks[0]!.kind, 'opaque');
    assert.equal((window.messages[5]!.blocks[0] as OpaqueBlock).type, 'image');
  });

  it('maps each message 1:1 to its element of `messages`', () => {
    const user = window.messages[1]!;
    assert.equal(slice(text, user.source), '{\n      "role": "user",\n      "content": "Weather in Paris and Rome?"\n    }');
    assert.equal(slice(text, user.container)[0], '[');
    assert.equal(user.blocks[0]!.kind === 'text' && user.blocks[0]!.text, 'Weather in Paris and Rome?');
  });

  it('has complete pairs and no findings through the engine', () => {
    assert.equal([...toolPairs(window).values()].every((p) => p.call && p.results.length === 1), true);
    const report = checkTranscript({ file, text }, { tokens: false });
    assert.equal(report.format, 'anthropic');
    assert.deepEqual(report.findings, []);
  });

  it('renders string content and a single text block alike, and ignores cache_control', () => {
    const a = readEvents(anthropicAdapter, 'a.json', '{"max_tokens":1,"messages":[{"role":"user","content":"hi"}]}').windows[0]!;
    const b = readEvents(anthropicAdapter, 'b.json', '{"max_tokens":1,"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}]}').windows[0]!;
    assert.equal(renderMessage(a.messages[0]!), renderMessage(b.messages[0]!));
  });
});

describe('anthropic: opaque blocks', () => {
  const message = (block: string) =>
    readEvents(anthropicAdapter, 'm.json', `{"max_tokens":1,"messages":[{"role":"assistant","content":[${block}]}]}`).windows[0]!.messages[0]!;

  it('ignores the key order of a thinking block wrapper, as the provider does', () => {
    const response = message('{"type":"thinking","thinking":"t","signature":"S1"}');
    const replay = message('{"signature":"S1","type":"thinking","thinking":"t"}');
    assert.equal(renderMessage(response), renderMessage(replay));
  });

  it('still sees a changed or dropped signature', () => {
    const signed = message('{"type":"thinking","thinking":"t","signature":"S1"}');
    assert.notEqual(renderMessage(signed), renderMessage(message('{"type":"thinking","thinking":"t","signature":"S2"}')));
    assert.notEqual(renderMessage(signed), renderMessage(message('{"type":"thinking","thinking":"t"}')));
  });
});

describe('anthropic: logged responses', () => {
  it('reads content[] into one assistant message, a compaction block marking elision', () => {
    const parsed = parseJson('{"type":"message","role":"assistant","content":[{"type":"compaction","content":"Summary"},{"type":"text","text":"Hi"}]}');
    assert.ok(parsed.ok);
    const [message, ...rest] = readAnthropicResponse(parsed.node);
    assert.equal(rest.length, 0);
    assert.equal(message!.role, 'assistant');
    assert.equal(message!.elision, true);
    assert.deepEqual(message!.blocks.map((b) => b.kind), ['opaque', 'text']);
  });

  it('reads an error body or a stream as no output', () => {
    const error = parseJson('{"type":"error","error":{"type":"overloaded_error"}}');
    assert.ok(error.ok);
    assert.deepEqual(readAnthropicResponse(error.node), []);
    const stream = parseJson('"event: message_start\\ndata: {}"');
    assert.ok(stream.ok);
    assert.deepEqual(readAnthropicResponse(stream.node), []);
  });
});

describe('anthropic: the recorded corpus', () => {
  it('parses every file with no crash and no error finding', () => {
    for (const file of corpusFiles('anthropic-messages')) {
      const events = readEvents(anthropicAdapter, file);
      assert.ok(events.windows.length >= 1, file);
      const report = checkTranscript({ file, text: fileText(file) }, { tokens: false });
      assert.equal(report.format, 'anthropic', file);
      assert.deepEqual(report.findings.filter((f) => f.severity === 'error'), [], file);
    }
  });

  it('mixed_strict_tool_run: 3 requests → window, step, window, step, window; both steps patch', () => {
    const events = readEvents(anthropicAdapter, MIXED);
    assert.deepEqual(events.kinds, ['window', 'step', 'window', 'step', 'window']);
    assert.deepEqual(events.windows.map((w) => w.messages.length), [2, 4, 6]);
    const step = events.steps[0]!;
    assert.equal(step.source, 'request');
    assert.equal(step.before.boundary, step.before.messages.length, 'the previous request and its response are all consumed');
    assert.equal(step.before.messages.length, 3, 'system + user + the logged response');
    const report = checkTranscript({ file: MIXED, text: fileText(MIXED) }, { tokens: false });
    assert.deepEqual(report.steps.map((s) => s.decision), ['patch', 'patch']);
  });

  it('parallel tool calls: 4 tool_use answered in one user message → patch', () => {
    const events = readEvents(anthropicAdapter, PARALLEL);
    const last = events.windows[1]!;
    const calls = last.messages[2]!.blocks.filter((b) => b.kind === 'tool_call');
    const results = last.messages[3]!.blocks.filter((b) => b.kind === 'tool_result');
    assert.equal(calls.length, 4);
    assert.equal(results.length, 4);
    const report = checkTranscript({ file: PARALLEL, text: fileText(PARALLEL) }, { tokens: false });
    assert.deepEqual(report.steps.map((s) => s.decision), ['patch']);
  });

  it('tool_with_thinking: the signed thinking block replays byte-equal → patch', () => {
    const events = readEvents(anthropicAdapter, THINKING);
    const step = events.steps[0]!;
    const fromResponse = step.before.messages[1]!;
    const replayed = step.after.messages[1]!;
    const thinking = (m: typeof fromResponse) => m.blocks.find((b): b is OpaqueBlock => b.kind === 'opaque' && b.type === 'thinking');
    assert.ok(thinking(fromResponse) && thinking(replayed));
    assert.match(JSON.stringify(thinking(replayed)!.value), /"signature"/);
    assert.equal(renderMessage(fromResponse), renderMessage(replayed));
    assert.notEqual(thinking(fromResponse)!.source!.start, thinking(replayed)!.source!.start, 'one from the response, one from the next request');
    const report = checkTranscript({ file: THINKING, text: fileText(THINKING) }, { tokens: false });
    assert.deepEqual(report.steps.map((s) => s.decision), ['patch']);
  });

  it('tool_with_thinking: a changed signature in the replay is not a patch', () => {
    const text = fileText(THINKING);
    const lines = text.split('\n');
    const second = lines[1]!;
    const at = second.indexOf('"signature": "') + '"signature": "'.length;
    lines[1] = second.slice(0, at) + 'X' + second.slice(at + 1);
    const report = checkTranscript({ file: 'edited.jsonl', text: lines.join('\n') }, { tokens: false, format: 'anthropic' });
    assert.notEqual(report.steps[0]!.decision, 'patch');
    assert.ok(report.steps[0]!.rules.includes('prefix-mutated'));
  });

  it('compaction_round_trip: the compaction block marks its message as elided history', () => {
    const { windows } = readEvents(anthropicAdapter, COMPACTION);
    const window = windows[0]!;
    assert.equal(window.messages[0]!.role, 'system');
    assert.equal(window.messages[2]!.elision, true);
    assert.equal(window.messages[3]!.blocks.length, 2, 'the doubled text block is kept as recorded');
  });
});

describe('anthropic: orphans and the sniff', () => {
  it('finds a tool_use and a tool_result orphaned in the middle of the window', () => {
    const file = path.join(PROVIDERS, 'anthropic-buried-orphans.json');
    const text = fileText(file);
    const report = checkTranscript({ file, text }, { tokens: false });
    const byRule = (rule: string) => report.findings.filter((f) => f.rule === rule).map((f) => f.toolCallId);
    assert.deepEqual(byRule('tool-use-orphaned'), ['toolu_lost']);
    assert.deepEqual(byRule('tool-result-orphaned'), ['toolu_ghost']);
    const lost = report.findings.find((f) => f.toolCallId === 'toolu_lost')!;
    assert.ok(lost.range.start < text.indexOf('toolu_ok'), 'located at the buried call, not at the end');
  });

  it('aborts a compaction that drops a tool_use but keeps its tool_result', () => {
    const file = path.join(PROVIDERS, 'anthropic-log-dropped-call.jsonl');
    const report = checkTranscript({ file, text: fileText(file) }, { tokens: false });
    assert.deepEqual(report.steps.map((s) => s.decision), ['patch', 'abort']);
    assert.ok(report.steps[1]!.rules.includes('tool-result-orphaned'));
    assert.ok(report.steps[1]!.rules.includes('prefix-mutated'));
  });

  it('sniffs every Anthropic corpus file, and not the other formats', () => {
    for (const file of corpusFiles('anthropic-messages')) assert.equal(anthropicAdapter.sniff(fileText(file).slice(0, 65536)), true, file);
    for (const folder of ['openai-chat', 'openai-responses', 'claude-code', 'codex', 'langfuse']) {
      for (const file of corpusFiles(folder)) assert.equal(anthropicAdapter.sniff(fileText(file).slice(0, 65536)), false, file);
    }
    assert.equal(anthropicAdapter.sniff('{"type":"prefix-lens/trace","version":1}\n'), false);
  });
});

describe('anthropic: request-log steps through the engine', () => {
  const tools = [
    { name: 'lookup', input_schema: { type: 'object' } },
    { name: 'other', input_schema: { type: 'object' } },
  ];
  const base = { model: 'm', max_tokens: 10, system: 'S' };
  const call = (input: string) => `{"type":"tool_use","id":"toolu_1","name":"lookup","input":${input}}`;
  const log = (replayInput: string, replayTools: unknown[] = tools) =>
    [
      `{"request":${JSON.stringify({ ...base, tools, messages: [{ role: 'user', content: 'q' }] })},"response":{"role":"assistant","content":[${call('{"a":1,"b":2}')}]}}`,
      `{"request":{"model":"m","max_tokens":10,"system":"S","tools":${JSON.stringify(replayTools)},"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[${call(replayInput)}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"r"}]}]}}`,
    ].join('\n');
  const judge = (text: string) => checkTranscript({ file: 'log.jsonl', text }, { tokens: false }).steps[0]!;

  it('an exact replay is patch', () => {
    assert.equal(judge(log('{"a":1,"b":2}')).decision, 'patch');
  });

  it('a replayed tool input with its keys reordered is render-unstable (defer)', () => {
    const step = judge(log('{"b":2,"a":1}'));
    assert.equal(step.decision, 'defer');
    assert.ok(step.rules.includes('render-unstable'));
  });

  it('a replayed tool input with another value is not a patch', () => {
    assert.notEqual(judge(log('{"a":1,"b":3}')).decision, 'patch');
  });

  it('dropping the schema of a call in the history aborts (no historical registry in request bodies)', () => {
    const step = judge(log('{"a":1,"b":2}', [tools[1]]));
    assert.equal(step.decision, 'abort');
    assert.ok(step.rules.includes('schema-dropped'));
  });

  it('dropping a schema no call references is not an abort', () => {
    assert.notEqual(judge(log('{"a":1,"b":2}', [tools[0]])).decision, 'abort');
  });
});
