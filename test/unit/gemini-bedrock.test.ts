/**
 * Gemini generateContent and Bedrock Converse request bodies and logs: reading
 * (positional ids for id-less Gemini calls, keyed Converse blocks), request
 * logs judged as steps, and their positional rules (Gemini: answered
 * immediately after with equal part counts, never in a model turn; Bedrock:
 * the next user message) plus Converse's required toolConfig.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkTranscript } from '../../src/core/check';
import { bedrockAdapter } from '../../src/core/formats/bedrock';
import { geminiAdapter } from '../../src/core/formats/gemini';
import { detectFormat } from '../../src/core/formats/registry';
import { inputFromFile, inputFromText } from '../../src/core/io';
import type { ToolCall, ToolResult } from '../../src/core/model';
import { corpus, fileText, fixture, lineOf, readWith, textAt, unpaired } from './wild-helpers';

const OPTIONS = { tokens: false } as const;
const G_LOG = fixture('gemini', 'parallel-calls.requests.jsonl');
const G_SPLIT = fixture('gemini', 'split-responses.json');
const G_CONSECUTIVE = fixture('gemini', 'parallel-results-consecutive-contents.requests.jsonl');
const G_MODEL_TURN = fixture('gemini', 'response-in-model-turn.json');
const B_LOG = fixture('bedrock', 'tool-run.requests.jsonl');
const B_NO_CONFIG = fixture('bedrock', 'missing-toolconfig.json');
const B_LATE = fixture('bedrock', 'result-late.json');

const rulesOf = (file: string) => checkTranscript(inputFromFile(file), OPTIONS).findings.map((f) => f.rule);

describe('gemini: reading contents', () => {
  const events = readWith(geminiAdapter, G_LOG);

  it('reads systemInstruction, tools and the contents of each request; the log step is patch', () => {
    const second = events.windows[1]!;
    assert.equal(second.format, 'gemini');
    assert.deepEqual(second.messages.map((m) => m.role), ['system', 'user', 'assistant', 'user']);
    assert.deepEqual(second.tools.map((t) => t.name), ['get_weather']);
    const report = checkTranscript(inputFromFile(G_LOG), OPTIONS);
    assert.deepEqual(report.steps.map((s) => s.decision), ['patch']);
    assert.deepEqual(report.findings, []);
  });

  it('gives id-less calls their position as id and pairs the responses to them in order', () => {
    const second = events.windows[1]!;
    const calls = second.messages[2]!.blocks as ToolCall[];
    assert.deepEqual(calls.map((c) => c.id), ['position:contents[1].parts[0]', 'position:contents[1].parts[1]']);
    const results = second.messages[3]!.blocks as ToolResult[];
    assert.deepEqual(results.map((r) => r.callId), ['position:contents[1].parts[0]', 'position:contents[1].parts[1]']);
    assert.deepEqual(unpaired(second), { calls: [], results: [] });
  });

  it('numbers the logged response turn like the next request does (so the step compares equal)', () => {
    const before = events.steps[0]!.before;
    const call = before.messages[before.messages.length - 1]!.blocks[0] as ToolCall;
    assert.equal(call.id, 'position:contents[1].parts[0]');
  });

  it('is detected by content; the OpenAI cassette that starts with Gemini calls stays openai-chat', () => {
    assert.equal(detectFormat(fileText(G_LOG))?.id, 'gemini');
    assert.equal(detectFormat(fileText(G_SPLIT))?.id, 'gemini');
    const mixed = corpus('openai-chat', 'pydanticai_test_multiple_agent_tool_calls.requests.jsonl');
    assert.equal(detectFormat(fileText(mixed).slice(0, 65536))?.id, 'openai-chat');
  });
});

describe('gemini: positional rule', () => {
  it('parallel results sent as consecutive user contents are one turn (the API merges them): clean, patch, exit 0', () => {
    const report = checkTranscript(inputFromFile(G_CONSECUTIVE), OPTIONS);
    assert.deepEqual(report.findings, []);
    assert.deepEqual(report.steps.map((s) => s.decision), ['patch']);
    const last = readWith(geminiAdapter, G_CONSECUTIVE).final;
    assert.deepEqual(unpaired(last), { calls: [], results: [] });
  });

  it('names contents indexes (systemInstruction is not contents[0]) and says a positional id is a place', () => {
    const report = checkTranscript(inputFromFile(G_SPLIT), OPTIONS);
    const counts = report.findings.find((f) => /functionCall part/.test(f.message))!;
    assert.equal(counts.message, 'contents[1] makes 2 functionCall part(s) but contents[2] answers with 1 functionResponse part(s); Gemini requires equal counts in the turn right after');
  });

  it('responses split by a model turn between them: the count mismatch and the late response are misplaced', () => {
    const report = checkTranscript(inputFromFile(G_SPLIT), OPTIONS);
    const misplaced = report.findings.filter((f) => f.rule === 'tool-result-misplaced');
    assert.equal(misplaced.length, 2);
    assert.ok(misplaced.some((f) => /2 functionCall part\(s\) but .* 1 functionResponse/.test(f.message)));
    const late = misplaced.find((f) => f.toolCallId === 'position:contents[1].parts[1]')!;
    assert.match(late.message, /^functionResponse for the call at contents\[1\]\.parts\[1\] \(no id in the file: paired by position\) is in contents\[4\]; .* \(contents\[2\]\)$/);
    assert.match(textAt(G_SPLIT, late.range), /^\{\s*"name": "get_weather"/);
    assert.equal(lineOf(G_SPLIT, late.range.start) > lineOf(G_SPLIT, misplaced.find((f) => f !== late)!.range.start), true);
  });

  it('a functionResponse inside a model turn is misplaced', () => {
    const report = checkTranscript(inputFromFile(G_MODEL_TURN), OPTIONS);
    const misplaced = report.findings.filter((f) => f.rule === 'tool-result-misplaced');
    assert.equal(misplaced.length, 1);
    assert.match(misplaced[0]!.message, /model turn/);
  });

  it('a request whose last model turn has unanswered calls is an orphan (requests are not live)', () => {
    const body = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }, { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }] }] };
    const report = checkTranscript(inputFromText('r.json', JSON.stringify(body)), { ...OPTIONS, format: 'gemini' });
    assert.deepEqual(report.findings.map((f) => f.rule), ['tool-use-orphaned']);
  });
});

describe('bedrock: Converse', () => {
  it('reads keyed blocks, system and toolConfig; the logged tool run is patch', () => {
    const events = readWith(bedrockAdapter, B_LOG);
    const second = events.windows[1]!;
    assert.equal(second.format, 'bedrock');
    assert.deepEqual(second.messages.map((m) => m.role), ['system', 'user', 'assistant', 'user']);
    assert.deepEqual(second.tools.map((t) => t.name), ['get_weather']);
    const call = second.messages[2]!.blocks[1] as ToolCall;
    assert.equal(call.id, 'tooluse_abc123');
    assert.deepEqual(unpaired(second), { calls: [], results: [] });
    const report = checkTranscript(inputFromFile(B_LOG), OPTIONS);
    assert.deepEqual(report.steps.map((s) => s.decision), ['patch']);
    assert.deepEqual(report.findings, []);
  });

  it('toolUse / toolResult without toolConfig: schema-dropped on the first toolUseId', () => {
    const report = checkTranscript(inputFromFile(B_NO_CONFIG), OPTIONS);
    assert.deepEqual(report.findings.map((f) => f.rule), ['schema-dropped']);
    assert.equal(textAt(B_NO_CONFIG, report.findings[0]!.range), '"tooluse_abc123"');
  });

  it('a toolResult that is not in the next user message is misplaced', () => {
    assert.deepEqual(rulesOf(B_LATE), ['tool-result-misplaced']);
  });

  it('is detected by content, ahead of Anthropic', () => {
    for (const file of [B_LOG, B_NO_CONFIG, B_LATE]) assert.equal(detectFormat(fileText(file))?.id, 'bedrock', file);
  });
});

describe('gemini: thought signatures on call parts', () => {
  const call = (signature?: string) => ({ functionCall: { name: 'f', args: {} }, ...(signature && { thoughtSignature: signature }) });
  const request = (signature?: string) => ({
    contents: [
      { role: 'user', parts: [{ text: 'go' }] },
      { role: 'model', parts: [call(signature)] },
      { role: 'user', parts: [{ functionResponse: { name: 'f', response: { ok: true } } }] },
    ],
  });

  it('keeps the signature as an opaque block next to the call', () => {
    const events = readWith(geminiAdapter, 'sig.json', JSON.stringify(request('c2lnbmF0dXJl')));
    assert.deepEqual(events.final.messages[1]!.blocks.map((b) => b.kind), ['tool_call', 'opaque']);
  });

  it('a replayed turn that drops the signature is not append-only', () => {
    const log = [request('c2lnbmF0dXJl'), { ...request(), contents: [...request().contents, { role: 'model', parts: [{ text: 'done' }] }, { role: 'user', parts: [{ text: 'more' }] }] }]
      .map((r) => JSON.stringify(r))
      .join('\n');
    const report = checkTranscript(inputFromText('sig.jsonl', log), { ...OPTIONS, format: 'gemini' });
    assert.equal(report.steps.length, 1);
    assert.notEqual(report.steps[0]!.decision, 'patch');
  });
});
