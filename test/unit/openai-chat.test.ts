/**
 * OpenAI Chat Completions request bodies: messages and tool calls in the
 * neutral model, `content: null` / absent alike, the corpus (append-only chain
 * is patch; the Gemini-compat id rewrite is not), and the sniff tie-break.
 */
import { inputFromText } from '../../src/core/io';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { checkTranscript, checkTranscriptWith } from '../../src/core/check';
import { anthropicAdapter } from '../../src/core/formats/anthropic';
import { openaiChatAdapter, openaiChatCodec, readChatResponse } from '../../src/core/formats/openai-chat';
import { readRequestLog } from '../../src/core/formats/request-log';
import { CARRIED_FROM } from '../../src/core/model';
import { parseJson } from '../../src/core/json/parse';
import type { OpaqueBlock, ToolCall, ToolResult } from '../../src/core/model';
import { renderMessage } from '../../src/core/render';
import { PROVIDERS, corpusFiles, fileText, readEvents, slice } from './provider-helpers';
import { CORPUS } from '../support/corpus';

const AGENT = path.join(CORPUS, 'openai-chat', 'pydanticai_test_multiple_agent_tool_calls.requests.jsonl');
const WITHOUT_ID = path.join(CORPUS, 'openai-chat', 'pydanticai_test_compatible_api_with_tool_calls_without_id.requests.jsonl');

const windowOf = (body: string) => readEvents(openaiChatAdapter, 'request.json', body).windows[0]!;

describe('openai-chat: reading a request body', () => {
  const body =
    '{"model":"gpt-4o","tools":[{"type":"function","function":{"name":"get_time","parameters":{}}}],' +
    '"messages":[{"role":"developer","content":"Be brief."},{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image_url","image_url":{"url":"x"}}]},' +
    '{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_time","arguments":"{\\"tz\\":\\"UTC\\"}"}}]},' +
    '{"role":"tool","tool_call_id":"call_1","content":"noon"}]}';
  const window = windowOf(body);

  it('reads roles (developer → system), tools and content parts', () => {
    assert.deepEqual(window.messages.map((m) => m.role), ['system', 'user', 'assistant', 'tool']);
    assert.deepEqual(window.tools.map((t) => t.name), ['get_time']);
    assert.deepEqual(window.messages[1]!.blocks.map((b) => (b.kind === 'opaque' ? b.type : b.kind)), ['text', 'image_url']);
  });

  it('reads a tool call with its arguments string node as input', () => {
    const call = window.messages[2]!.blocks[0] as ToolCall;
    assert.equal(call.kind, 'tool_call');
    assert.equal(call.id, 'call_1');
    assert.equal(call.name, 'get_time');
    assert.equal(call.input?.type, 'string');
    assert.equal(slice(body, call.input), '"{\\"tz\\":\\"UTC\\"}"');
    assert.equal(slice(body, call.idSource), '"call_1"');
  });

  it('reads a tool message as one result for its tool_call_id', () => {
    const tool = window.messages[3]!;
    assert.equal(tool.blocks.length, 1);
    const result = tool.blocks[0] as ToolResult;
    assert.equal(result.callId, 'call_1');
    assert.equal(result.content?.type === 'string' && result.content.value, 'noon');
  });

  it('renders content:null, an absent content, refusal:null and annotations:[] alike', () => {
    const calls = '"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]';
    const nulls = windowOf(`{"messages":[{"role":"assistant","content":null,"refusal":null,"annotations":[],${calls}}]}`);
    const absent = windowOf(`{"messages":[{"role":"assistant",${calls}}]}`);
    assert.equal(renderMessage(nulls.messages[0]!), renderMessage(absent.messages[0]!));
  });

  it('keeps other fields the model reads (a thought signature) as opaque blocks', () => {
    const signed = windowOf('{"messages":[{"role":"assistant","content":"ok","thought_signature":"SIG"}]}');
    const plain = windowOf('{"messages":[{"role":"assistant","content":"ok"}]}');
    const opaque = signed.messages[0]!.blocks[1] as OpaqueBlock;
    assert.equal(opaque.type, 'thought_signature');
    assert.notEqual(renderMessage(signed.messages[0]!), renderMessage(plain.messages[0]!));
  });

  it('reads choices[0].message of a logged response', () => {
    const parsed = parseJson('{"choices":[{"index":0,"message":{"role":"assistant","content":"Hi","refusal":null}}]}');
    assert.ok(parsed.ok);
    const [message] = readChatResponse(parsed.node);
    assert.equal(message!.role, 'assistant');
    assert.deepEqual(message!.blocks.map((b) => b.kind), ['text']);
    const empty = parseJson('{"error":{"message":"rate limited"}}');
    assert.ok(empty.ok);
    assert.deepEqual(readChatResponse(empty.node), []);
  });
});

describe('openai-chat: the recorded corpus', () => {
  it('parses every file with no crash and no error finding', () => {
    for (const file of corpusFiles('openai-chat')) {
      const report = checkTranscript({ file, text: fileText(file) }, { tokens: false });
      assert.equal(report.format, 'openai-chat', file);
      assert.deepEqual(report.findings.filter((f) => f.severity === 'error'), [], file);
    }
  });

  it('multiple_agent_tool_calls: skips the Gemini lines, and the OpenAI chain (5 → 7 messages) is patch', () => {
    const events = readEvents(openaiChatAdapter, AGENT);
    assert.deepEqual(events.kinds, ['window', 'step', 'window', 'finding']);
    assert.deepEqual(events.findings.map((f) => f.rule), ['record-skipped']);
    assert.match(events.findings[0]!.message, /^Skipped 2 records holding no request body of OpenAI Chat Completions \(first at line 1\): .*generateContent/);
    assert.equal(events.findings[0]!.related?.length, 1);
    assert.deepEqual(events.windows.map((w) => w.messages.length), [5, 7]);
    const step = events.steps[0]!;
    const fromResponse = step.before.messages[5]!;
    const replayed = step.after.messages[5]!;
    assert.equal(renderMessage(fromResponse), renderMessage(replayed), 'the replay without content/refusal/annotations is byte-identical');
    const report = checkTranscript({ file: AGENT, text: fileText(AGENT) }, { tokens: false });
    assert.deepEqual(report.steps.map((s) => s.decision), ['patch']);
  });

  it('compatible_api_with_tool_calls_without_id: the rewritten id and dropped signature are not a patch', () => {
    const events = readEvents(openaiChatAdapter, WITHOUT_ID);
    const step = events.steps[0]!;
    const fromResponse = step.before.messages[1]!;
    const replayed = step.after.messages[1]!;
    assert.equal((fromResponse.blocks.find((b) => b.kind === 'tool_call') as ToolCall).id, '');
    assert.match((replayed.blocks.find((b) => b.kind === 'tool_call') as ToolCall).id, /^pyd_ai_/);
    assert.ok(fromResponse.blocks.some((b) => b.kind === 'opaque' && b.type === 'thought_signature'));
    const report = checkTranscript({ file: WITHOUT_ID, text: fileText(WITHOUT_ID) }, { tokens: false });
    assert.equal(report.steps.length, 1);
    // The consumed output was rewritten (but no pair is cut: the new id is used by its result): defer.
    assert.equal(report.steps[0]!.decision, 'defer');
    assert.ok(report.steps[0]!.rules.includes('prefix-mutated'));
    // The replayed message is the consumed one edited in place, not history removed.
    assert.ok(!report.steps[0]!.rules.includes('elision-unmarked'));
    const mutated = report.findings.find((f) => f.rule === 'prefix-mutated')!;
    assert.equal(mutated.step, 1);
    assert.match(fileText(WITHOUT_ID).slice(mutated.range.start, mutated.range.end), /pyd_ai_|"tool_calls"|"function"/);
  });
});

describe('openai-chat: sniff', () => {
  it('sniffs the corpus (past the leading Gemini lines), and not the other formats', () => {
    for (const file of corpusFiles('openai-chat')) assert.equal(openaiChatAdapter.sniff(fileText(file).slice(0, 65536)), true, file);
    for (const folder of ['anthropic-messages', 'openai-responses', 'claude-code', 'codex', 'langfuse']) {
      for (const file of corpusFiles(folder)) assert.equal(openaiChatAdapter.sniff(fileText(file).slice(0, 65536)), false, file);
    }
  });

  it('breaks the tie with Anthropic: model+messages is Chat, +max_tokens or a system key is Anthropic', () => {
    const bare = '{"model":"m","messages":[{"role":"user","content":"hi"}]}';
    const withMax = '{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}';
    const withSystem = '{"model":"m","system":"s","messages":[{"role":"user","content":"hi"}]}';
    const chatWithMax = '{"model":"m","max_tokens":5,"messages":[{"role":"system","content":"s"},{"role":"user","content":"hi"}]}';
    const blocks = '{"model":"m","messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]}]}';
    assert.deepEqual([bare, withMax, withSystem, chatWithMax, blocks].map((h) => [openaiChatAdapter.sniff(h), anthropicAdapter.sniff(h)]), [
      [true, false],
      [false, true],
      [false, true],
      [true, false],
      [false, true],
    ]);
  });

  it('sniffs a head cut inside a huge first line', () => {
    const line = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x'.repeat(200_000) }, { role: 'tool', tool_call_id: 'c', content: 'y' }] });
    assert.equal(openaiChatAdapter.sniff(line.slice(0, 65536)), true);
  });
});

describe('openai-chat: orphans', () => {
  it('finds an unanswered call and a stray tool message in the middle of the window', () => {
    const call = (id: string) => ({ id, type: 'function', function: { name: 'f', arguments: '{}' } });
    const body = JSON.stringify({
      model: 'gpt-4o',
      messages: [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: null, tool_calls: [call('call_lost'), call('call_ok')] },
        { role: 'tool', tool_call_id: 'call_ok', content: 'ok' },
        { role: 'tool', tool_call_id: 'call_ghost', content: '?' },
        { role: 'assistant', content: 'done' },
        { role: 'user', content: 'next' },
      ],
    });
    const report = checkTranscript({ file: 'orphans.json', text: body }, { tokens: false });
    const ids = (rule: string) => report.findings.filter((f) => f.rule === rule).map((f) => f.toolCallId);
    assert.deepEqual(ids('tool-use-orphaned'), ['call_lost']);
    assert.deepEqual(ids('tool-result-orphaned'), ['call_ghost']);
    assert.equal(body.slice(report.findings.find((f) => f.toolCallId === 'call_lost')!.range.start).startsWith('"call_lost"'), true);
  });
});

describe('openai-chat: bare request lines', () => {
  it('judges each request against the previous one: content null then absent is patch', () => {
    const file = path.join(PROVIDERS, 'openai-chat-log-null-content.jsonl');
    const report = checkTranscript({ file, text: fileText(file) }, { tokens: false });
    assert.equal(report.format, 'openai-chat');
    assert.deepEqual(report.steps.map((s) => s.decision), ['patch', 'patch']);
    assert.deepEqual(report.findings, []);
  });
});

describe('openai-chat: carrying a request log\'s repeated history', () => {
  /** A growing chat log (request + response per line); `edit` rewrites one line's history, `bad` breaks one line. */
  const chatLog = (turns: number, edit?: number, bad?: number) => {
    const messages: Record<string, unknown>[] = [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'q' }];
    const lines: string[] = [];
    for (let t = 0; t < turns; t++) {
      const call = { id: `call_${t}`, type: 'function', function: { name: 'f', arguments: `{"t":${t}}` } };
      const response = { choices: [{ message: { role: 'assistant', content: null, refusal: null, annotations: [], tool_calls: [call] } }] };
      const request = { model: 'gpt-4o', messages: t === edit ? messages.map((m, i) => (i === 0 ? { ...m, content: 'edited' } : m)) : [...messages] };
      const line = JSON.stringify({ request, response });
      lines.push(t === bad ? line.slice(0, 40) : line);
      messages.push({ role: 'assistant', tool_calls: [call] }, { role: 'tool', tool_call_id: call.id, content: `r${t}` });
    }
    return lines.join('\n');
  };
  const reference = { ...openaiChatAdapter, read: (input: Parameters<typeof openaiChatAdapter.read>[0]) => readRequestLog(input, { ...openaiChatCodec, carrier: undefined }) };
  const both = (text: string) =>
    [openaiChatAdapter, reference].map((adapter) => JSON.parse(JSON.stringify(checkTranscriptWith(adapter, inputFromText('log.jsonl', text), { tokens: false, keepRewrites: true }))));

  it('gives the report of reading every line in full, and carries most messages', () => {
    for (const text of [chatLog(12), chatLog(12, 6), chatLog(12, undefined, 5), chatLog(12, 3, 8)]) {
      const [fast, full] = both(text);
      assert.deepEqual(fast, full);
    }
    const decisions = both(chatLog(12, 6))[0].steps.map((s: { decision: string }) => s.decision);
    assert.equal(decisions[5], 'defer');
    assert.equal(decisions.filter((d: string) => d === 'patch').length, 9);
    let carried = 0;
    for (const event of openaiChatAdapter.read(inputFromText('log.jsonl', chatLog(12)))) {
      if (event.kind === 'window') carried += event.window.messages.filter((m) => m[CARRIED_FROM]).length;
    }
    assert.ok(carried > 50, `carried ${carried}`);
  });
});


describe('openai-chat: an empty id is no id', () => {
  it('a call and a result whose ids are both "" are not paired, and no message prints "" as an id', () => {
    const body = {
      model: 'gpt-4o',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', tool_calls: [{ id: '', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: '', content: 'done' },
      ],
    };
    const report = checkTranscript(inputFromText('empty-ids.json', JSON.stringify(body)), { tokens: false, format: 'openai-chat' });
    assert.deepEqual(report.findings.map((f) => f.rule).sort(), ['tool-result-orphaned', 'tool-use-orphaned']);
    for (const f of report.findings) {
      assert.doesNotMatch(f.message, /""/, f.message);
      assert.match(f.message, /with an empty id/);
    }
  });
});
