/**
 * Langfuse exports of OTel GenAI / OpenInference traces: generations in
 * startTime order as request steps, the Microsoft agent's dropped prefix
 * located, array call ids, tool responses inside a user message, Responses
 * input arrays, and the OpenInference flattened attributes as a fallback.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkTranscript } from '../../src/core/check';
import { otelAdapter } from '../../src/core/formats/otel';
import { detectFormat } from '../../src/core/formats/registry';
import { inputFromFile, inputFromText } from '../../src/core/io';
import type { ToolCall } from '../../src/core/model';
import { corpus, countBlocks, fileText, readWith, textAt, textOf, unpaired } from './wild-helpers';

const MICROSOFT = corpus('langfuse', 'langfuse_microsoft-agent-2025-10-14.json');
const PYDANTIC = corpus('langfuse', 'langfuse_pydantic-ai-tools-2025-12-04.json');
const AGENTS = corpus('langfuse', 'langfuse_openai-agents-2025-09-30.json');
const OPTIONS = { tokens: false } as const;

describe('otel: Microsoft Agent Framework (semconv parts, server-side thread)', () => {
  const events = readWith(otelAdapter, MICROSOFT);

  it('orders the two generations by startTime: the user question first', () => {
    assert.equal(events.windows.length, 2);
    assert.equal(events.windows[0]!.messages[0]!.role, 'user');
    assert.equal(events.steps.length, 1);
    assert.equal(events.steps[0]!.source, 'request');
  });

  it('takes the call id from the [run_id, call_id] array and pairs call and response with it', () => {
    const call = events.final.messages[0]!.blocks[0] as ToolCall;
    assert.equal(call.id, 'call_Sz1QP8T7fuJkIECGDLFWOorq');
    assert.equal(textAt(MICROSOFT, call.idSource), '"call_Sz1QP8T7fuJkIECGDLFWOorq"');
    assert.deepEqual(unpaired(events.final), { calls: [], results: [] });
  });

  it('reads inputs and outputs stored as JSON strings, locating them on the string literal', () => {
    const data = JSON.parse(fileText(MICROSOFT)) as { observations: { type: string; input?: unknown; output?: unknown }[] };
    for (const o of data.observations) if (o.type === 'GENERATION') [o.input, o.output] = [JSON.stringify(o.input), JSON.stringify(o.output)];
    const text = JSON.stringify(data, null, 1);
    const strung = readWith(otelAdapter, 'strung.json', text);
    assert.equal(strung.steps.length, 1);
    assert.deepEqual(unpaired(strung.final), { calls: [], results: [] });
    const call = strung.final.messages[0]!.blocks[0] as ToolCall;
    assert.equal(call.id, 'call_Sz1QP8T7fuJkIECGDLFWOorq');
    assert.ok(text.slice(call.idSource!.start, call.idSource!.end).startsWith('"[{\\"role\\"'));
  });

  it('records gen_ai.conversation.id as server-side state', () => {
    assert.deepEqual({ kind: events.final.serverState?.kind, id: events.final.serverState?.id }, { kind: 'conversation', id: 'thread_G78qCSLpzn0YQwFwrvK5OivI' });
  });

  it('the 2nd generation drops the prefix: located, not patch', () => {
    const report = checkTranscript(inputFromFile(MICROSOFT), OPTIONS);
    assert.equal(report.format, 'otel');
    assert.equal(report.steps.length, 1);
    assert.notEqual(report.steps[0]!.decision, 'patch');
    assert.ok(report.steps[0]!.rules.includes('prefix-mutated'));
    const second = events.final.source!;
    const located = report.findings.filter((f) => f.step === 1);
    assert.ok(located.length > 0);
    for (const f of located) assert.ok(f.range.start >= second.start && f.range.end <= second.end, f.message);
  });
});

describe('otel: pydantic-ai (3 parallel calls, responses in a user message, two agents)', () => {
  const events = readWith(otelAdapter, PYDANTIC);

  it('reads the 4 generations; the joke agent is 3 generations (2 steps), the evaluator its own conversation', () => {
    assert.equal(events.windows.length, 4);
    assert.equal(events.steps.length, 2);
    assert.match(textOf(events.final.messages[0]), /joke critic/);
  });

  it('pairs the 3 parallel tool_call parts with the 3 tool_call_response parts of the user message', () => {
    const second = events.windows[1]!;
    assert.equal(countBlocks(second, 'tool_call'), 3);
    const answers = second.messages[3]!;
    assert.equal(answers.role, 'user');
    assert.equal(answers.blocks.filter((b) => b.kind === 'tool_result').length, 3);
    assert.deepEqual(unpaired(second), { calls: [], results: [] });
  });

  it('reads the tool declarations from model_request_parameters', () => {
    assert.deepEqual(events.windows[0]!.tools.map((t) => t.name).slice(0, 3), ['get_pun_suggestion', 'get_dad_joke_suggestion', 'get_one_liner_suggestion']);
  });

  it('both steps (tool round trip, second run re-sending the history) are append-only: patch', () => {
    const report = checkTranscript(inputFromFile(PYDANTIC), OPTIONS);
    assert.deepEqual(report.steps.map((s) => s.decision), ['patch', 'patch']);
    assert.deepEqual(report.findings.filter((f) => f.severity === 'error'), []);
  });
});

describe('otel: OpenAI Agents SDK (Responses input arrays, OpenInference attributes)', () => {
  it('reads the Responses input array, with the instructions as the system message; the step is patch', () => {
    const events = readWith(otelAdapter, AGENTS);
    assert.equal(events.steps.length, 1);
    assert.equal(events.final.messages[0]!.role, 'system');
    assert.equal(textOf(events.final.messages[0]), 'You are a helpful agent.');
    assert.deepEqual(unpaired(events.final), { calls: [], results: [] });
    assert.deepEqual(checkTranscript(inputFromFile(AGENTS), OPTIONS).steps.map((s) => s.decision), ['patch']);
  });

  it('falls back to the flattened llm.input_messages attributes when a generation has no input', () => {
    const data = JSON.parse(fileText(AGENTS)) as { observations: { type: string; input?: unknown; metadata: { attributes: Record<string, unknown> } }[] };
    for (const o of data.observations) if (o.type === 'GENERATION') delete o.input;
    const text = JSON.stringify(data, null, 1);
    const events = readWith(otelAdapter, 'flattened.json', text);
    const last = events.final;
    assert.deepEqual(last.messages.map((m) => m.role), ['system', 'user', 'assistant', 'tool']);
    const call = last.messages[2]!.blocks.find((b) => b.kind === 'tool_call') as ToolCall;
    assert.equal(call.name, 'get_weather');
    assert.equal(textAt2(text, call.idSource), JSON.stringify(call.id));
    assert.deepEqual(unpaired(last), { calls: [], results: [] });
  });

  it('all three exports are detected by content', () => {
    for (const file of [MICROSOFT, PYDANTIC, AGENTS]) assert.equal(detectFormat(fileText(file).slice(0, 65536))?.id, 'otel', file);
  });

  it('a broken export is an invalid-json finding, never a throw', () => {
    const report = checkTranscript(inputFromText('bad.json', '{"trace": {"id": "x"}, "observations": [ {"type": "GENERATION",'), OPTIONS);
    assert.ok(report.findings.some((f) => f.rule === 'invalid-json'));
  });
});

function textAt2(text: string, range: { start: number; end: number } | undefined): string {
  if (!range) throw new Error('no range');
  return text.slice(range.start, range.end);
}
