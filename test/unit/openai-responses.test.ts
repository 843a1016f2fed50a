/**
 * OpenAI Responses request bodies: instructions and input items 1:1 as
 * messages, calls keyed by call_id, output items, server state
 * (`conversation` / `previous_response_id`): info instead of an orphan, and a
 * continued request judged as the window the model reads.
 */
import { inputFromText } from '../../src/core/io';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { checkTranscript, checkTranscriptWith } from '../../src/core/check';
import { openaiResponsesAdapter, openaiResponsesCodec, readResponsesOutput } from '../../src/core/formats/openai-responses';
import { readRequestLog } from '../../src/core/formats/request-log';
import { CARRIED_FROM } from '../../src/core/model';
import { parseJson } from '../../src/core/json/parse';
import type { OpaqueBlock, ToolCall, ToolResult } from '../../src/core/model';
import { renderMessage } from '../../src/core/render';
import { PROVIDERS, corpusFiles, fileText, readEvents, slice } from './provider-helpers';
import { CORPUS } from '../support/corpus';

const CONVERSATION = path.join(CORPUS, 'openai-responses', 'pydanticai_test_openai_conversation_id_tool_call_continuation.requests.jsonl');
const COMBINED = path.join(CORPUS, 'openai-responses', 'pydanticai_test_openai_responses_history_with_combined_tool_call_id.requests.jsonl');
const CHAIN = path.join(PROVIDERS, 'openai-responses-log-chain.jsonl');

describe('openai-responses: reading a request body', () => {
  const body =
    '{"model":"gpt-5","instructions":"Be brief.","tools":[{"type":"function","name":"get_time","parameters":{}},{"type":"web_search"}],"input":[' +
    '{"role":"user","content":[{"type":"input_text","text":"time?"}]},' +
    '{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"enc","status":"completed"},' +
    '{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_time","arguments":"{}","status":"completed"},' +
    '{"type":"function_call_output","call_id":"call_1","output":"noon"},' +
    '{"type":"web_search_call","id":"ws_1","action":{"query":"x"}},' +
    '{"type":"custom_tool_call","call_id":"call_2","name":"patch","input":"*** Begin"},' +
    '{"type":"custom_tool_call_output","call_id":"call_2","output":"done"},' +
    '{"type":"compaction","encrypted_content":"sum"}]}';
  const { windows, findings } = readEvents(openaiResponsesAdapter, 'request.json', body);
  const window = windows[0]!;

  it('turns instructions into a leading system message and each input item into one message', () => {
    assert.deepEqual(findings, []);
    assert.deepEqual(window.messages.map((m) => m.role), ['system', 'user', 'assistant', 'assistant', 'tool', 'assistant', 'assistant', 'tool', 'assistant']);
    const input = JSON.parse(body).input as unknown[];
    window.messages.slice(1).forEach((message, i) => assert.deepEqual(JSON.parse(slice(body, message.source)), input[i]));
    assert.deepEqual(window.tools.map((t) => t.name), ['get_time', 'web_search']);
  });

  it('keys calls and outputs by call_id, not the item id', () => {
    const call = window.messages[3]!.blocks[0] as ToolCall;
    assert.deepEqual([call.kind, call.id, call.name, slice(body, call.idSource)], ['tool_call', 'call_1', 'get_time', '"call_1"']);
    const output = window.messages[4]!.blocks[0] as ToolResult;
    assert.deepEqual([output.kind, output.callId], ['tool_result', 'call_1']);
    const custom = window.messages[6]!.blocks[0] as ToolCall;
    assert.deepEqual([custom.id, custom.name, custom.input?.type], ['call_2', 'patch', 'string']);
  });

  it('keeps reasoning and server-side tool items opaque, and marks compaction as elision', () => {
    assert.equal((window.messages[2]!.blocks[0] as OpaqueBlock).type, 'reasoning');
    assert.equal((window.messages[5]!.blocks[0] as OpaqueBlock).type, 'web_search_call');
    assert.equal(window.messages[8]!.elision, true);
  });

  it('leaves item status and call item ids out of the render', () => {
    const a = readEvents(openaiResponsesAdapter, 'a.json', '{"input":[{"type":"function_call","id":"fc_1","call_id":"c","name":"f","arguments":"{}","status":"completed"}]}');
    const b = readEvents(openaiResponsesAdapter, 'b.json', '{"input":[{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}]}');
    assert.equal(renderMessage(a.windows[0]!.messages[0]!), renderMessage(b.windows[0]!.messages[0]!));
  });

  it('ignores the wrapper key order of a replayed reasoning item, not its content', () => {
    const render = (item: string) => renderMessage(readEvents(openaiResponsesAdapter, 'r.json', `{"input":[${item}]}`).windows[0]!.messages[0]!);
    const response = render('{"id":"rs_1","type":"reasoning","summary":[],"encrypted_content":"E1","status":"completed"}');
    assert.equal(render('{"type":"reasoning","encrypted_content":"E1","id":"rs_1","summary":[]}'), response);
    assert.notEqual(render('{"type":"reasoning","encrypted_content":"E2","id":"rs_1","summary":[]}'), response);
  });

  it('reads a string input as one user message', () => {
    const { windows: [w] } = readEvents(openaiResponsesAdapter, 's.json', '{"model":"gpt-5","input":"hello"}');
    assert.deepEqual(w!.messages.map((m) => [m.role, m.blocks[0]!.kind === 'text' && m.blocks[0]!.text]), [['user', 'hello']]);
  });

  it('reads output[] items of a logged response, one message each', () => {
    const parsed = parseJson('{"id":"resp_1","output":[{"type":"reasoning","id":"rs","summary":[]},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Hi","annotations":[]}]}]}');
    assert.ok(parsed.ok);
    const messages = readResponsesOutput(parsed.node);
    assert.deepEqual(messages.map((m) => [m.role, m.blocks[0]!.kind]), [['assistant', 'opaque'], ['assistant', 'text']]);
  });
});

describe('openai-responses: server state', () => {
  it('conversation continuation: record-skipped for the non-request lines; the call the previous logged response made pairs (no server-state info, no orphan)', () => {
    const events = readEvents(openaiResponsesAdapter, CONVERSATION);
    assert.deepEqual(events.kinds, ['window', 'step', 'window', 'finding', 'finding']);
    assert.match(events.findings[0]!.message, /\/v1\/conversations/);
    assert.match(events.findings[1]!.message, /DELETE/);
    const continued = events.windows[1]!;
    assert.equal(continued.serverState?.kind, 'conversation');
    assert.deepEqual(continued.messages.map((m) => m.blocks[0]!.kind), ['text', 'text', 'tool_call', 'tool_result'], 'checked with the history it continues');
    const report = checkTranscript({ file: CONVERSATION, text: fileText(CONVERSATION) }, { tokens: false });
    assert.deepEqual(report.findings.map((f) => f.rule), ['record-skipped', 'record-skipped']);
    assert.deepEqual(report.steps.map((s) => s.decision), ['patch']);
  });

  it('a request whose call is in a conversation this log does not hold: server-state-pairing info, no orphan', () => {
    const third = fileText(CONVERSATION).split('\n')[2]!;
    const report = checkTranscript({ file: 'third.jsonl', text: `${third}\n` }, { tokens: false, format: 'openai-responses' });
    assert.deepEqual(report.findings.map((f) => [f.severity, f.rule]), [['info', 'server-state-pairing']]);
  });

  it('judges a continued request as the history plus the new input', () => {
    const events = readEvents(openaiResponsesAdapter, CONVERSATION);
    const step = events.steps[0]!;
    assert.deepEqual(step.after.messages.map((m) => m.role), ['system', 'user', 'assistant', 'tool']);
    const text = fileText(CONVERSATION);
    assert.equal(step.after.messages.slice(0, 3).map(renderMessage).join(), step.before.messages.map(renderMessage).join());
    assert.equal(slice(text, step.after.messages[3]!.source).includes('function_call_output'), true);
  });

  it('previous_response_id chain: patch; a request continuing state the log lacks is info, no step', () => {
    const events = readEvents(openaiResponsesAdapter, CHAIN);
    assert.deepEqual(events.kinds, ['window', 'step', 'window', 'finding', 'window']);
    assert.equal(events.findings[0]!.rule, 'server-state-pairing');
    assert.match(events.findings[0]!.message, /resp_elsewhere/);
    const report = checkTranscript({ file: CHAIN, text: fileText(CHAIN) }, { tokens: false });
    assert.deepEqual(report.steps.map((s) => s.decision), ['patch']);
    assert.equal(report.findings.filter((f) => f.severity === 'error').length, 0);
  });

  it('a continued request that changes the consumed history is not a patch', () => {
    const text = fileText(CHAIN);
    const second = text.split('\n')[1]!;
    const edited = text.replace(second, second.replace('"Be brief."', '"Be verbose."'));
    const report = checkTranscript({ file: 'edited.jsonl', text: edited }, { tokens: false });
    assert.notEqual(report.steps[0]!.decision, 'patch');
  });
});

describe('openai-responses: orphans', () => {
  const fc = (id: string) => ({ type: 'function_call', call_id: id, name: 'f', arguments: '{}' });
  const out = (id: string) => ({ type: 'function_call_output', call_id: id, output: 'ok' });
  const input = [{ role: 'user', content: 'a' }, fc('call_lost'), fc('call_ok'), out('call_ok'), out('call_ghost'), { role: 'user', content: 'b' }];

  it('finds an unanswered call and an output without its call in the middle of the input', () => {
    const report = checkTranscript({ file: 'orphans.json', text: JSON.stringify({ model: 'gpt-5', input }) }, { tokens: false });
    const ids = (rule: string) => report.findings.filter((f) => f.rule === rule).map((f) => f.toolCallId);
    assert.deepEqual(ids('tool-use-orphaned'), ['call_lost']);
    assert.deepEqual(ids('tool-result-orphaned'), ['call_ghost']);
  });

  it('with server state, the output without its call is info, the unanswered call still an orphan', () => {
    const text = JSON.stringify({ model: 'gpt-5', previous_response_id: 'resp_0', input });
    const report = checkTranscript({ file: 'state.json', text }, { tokens: false });
    const ids = (rule: string) => report.findings.filter((f) => f.rule === rule).map((f) => f.toolCallId);
    assert.deepEqual(ids('server-state-pairing'), ['call_ghost']);
    assert.deepEqual(ids('tool-result-orphaned'), []);
    assert.deepEqual(ids('tool-use-orphaned'), ['call_lost']);
  });
});

describe('openai-responses: the recorded corpus and the sniff', () => {
  it('parses every file with no crash and no error finding', () => {
    for (const file of corpusFiles('openai-responses')) {
      const report = checkTranscript({ file, text: fileText(file) }, { tokens: false });
      assert.equal(report.format, 'openai-responses', file);
      assert.deepEqual(report.findings.filter((f) => f.severity === 'error'), [], file);
    }
  });

  it('history_with_combined_tool_call_id: pairs by call_id across the fc_ item id', () => {
    const { windows } = readEvents(openaiResponsesAdapter, COMBINED);
    const window = windows[0]!;
    assert.deepEqual(window.messages.map((m) => m.role), ['user', 'assistant', 'tool', 'user']);
    const call = window.messages[1]!.blocks[0] as ToolCall;
    const output = window.messages[2]!.blocks[0] as ToolResult;
    assert.equal(call.id, output.callId);
    assert.match(call.id, /^call_/);
    assert.equal(window.serverState, undefined, 'previous_response_id: null is no server state');
  });

  it('sniffs the corpus and not the other formats', () => {
    for (const file of corpusFiles('openai-responses')) assert.equal(openaiResponsesAdapter.sniff(fileText(file).slice(0, 65536)), true, file);
    for (const folder of ['anthropic-messages', 'openai-chat', 'claude-code', 'codex', 'langfuse', 'inspect-ai']) {
      for (const file of corpusFiles(folder)) assert.equal(openaiResponsesAdapter.sniff(fileText(file).slice(0, 65536)), false, file);
    }
  });
});

describe('openai-responses: carrying a stateless log\'s repeated input', () => {
  /** A growing stateless Responses log: the whole history is sent again as `input` each time. */
  const responsesLog = (turns: number, edit?: number, bad?: number) => {
    const input: Record<string, unknown>[] = [{ role: 'user', content: [{ type: 'input_text', text: 'q' }] }];
    const lines: string[] = [];
    for (let t = 0; t < turns; t++) {
      const call = { type: 'function_call', id: `fc_${t}`, call_id: `call_${t}`, name: 'f', arguments: `{"t":${t}}` };
      const reasoning = { type: 'reasoning', id: `rs_${t}`, summary: [], encrypted_content: `E${t}` };
      const request = { model: 'gpt-5', instructions: 'Be brief.', store: false, input: t === edit ? input.map((m, i) => (i === 2 ? { role: 'user', content: 'edited' } : m)) : [...input] };
      const line = JSON.stringify({ request, response: { id: `resp_${t}`, output: [{ ...reasoning, status: 'completed' }, { ...call, status: 'completed' }] } });
      lines.push(t === bad ? line.slice(0, 50) : line);
      input.push(reasoning, call, { type: 'function_call_output', call_id: call.call_id, output: `r${t}` });
    }
    return lines.join('\n');
  };
  const reference = {
    ...openaiResponsesAdapter,
    read: (input: Parameters<typeof openaiResponsesAdapter.read>[0]) => readRequestLog(input, { ...openaiResponsesCodec, carrier: undefined }),
  };
  const both = (text: string) =>
    [openaiResponsesAdapter, reference].map((adapter) => JSON.parse(JSON.stringify(checkTranscriptWith(adapter, inputFromText('log.jsonl', text), { tokens: false, keepRewrites: true }))));

  it('gives the report of reading every line in full, and carries most items', () => {
    for (const text of [responsesLog(10), responsesLog(10, 4), responsesLog(10, undefined, 3), responsesLog(10, 2, 7)]) {
      const [fast, full] = both(text);
      assert.deepEqual(fast, full);
    }
    const clean = both(responsesLog(10))[0];
    assert.ok(clean.steps.every((s: { decision: string }) => s.decision === 'patch'));
    assert.notEqual(both(responsesLog(10, 4))[0].steps[3].decision, 'patch');
    let carried = 0;
    for (const event of openaiResponsesAdapter.read(inputFromText('log.jsonl', responsesLog(10)))) {
      if (event.kind === 'window') carried += event.window.messages.filter((m) => m[CARRIED_FROM]).length;
    }
    assert.ok(carried > 50, `carried ${carried}`);
  });
});

