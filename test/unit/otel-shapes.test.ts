/**
 * Shapes seen in real Langfuse / OpenTelemetry exports that once gave wrong
 * verdicts (issue 10), each in a fixture written here reproducing it:
 * LangChain message dicts (calls in `additional_kwargs.tool_calls`),
 * OpenInference observations whose input is a Gemini request, and
 * observations that are not requests (input null, a plain string, no tool list).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkTranscript } from '../../src/core/check';
import { lineAt } from '../../src/core/formats/common';
import { otelAdapter } from '../../src/core/formats/otel';
import { inputFromFile, inputFromText } from '../../src/core/io';
import type { ToolCall } from '../../src/core/model';
import { fileText, fixture, lineOf, readWith, textAt, unpaired } from './wild-helpers';

const OPTIONS = { tokens: false } as const;
const LANGCHAIN = fixture('otel', 'langchain-additional-kwargs.json');
const LANGCHAIN_BOTH = fixture('otel', 'langchain-both-copies.json');
const GEMINI_INPUT = fixture('otel', 'openinference-gemini-input.json');
const NOT_REQUESTS = fixture('otel', 'status-events-and-string-input.json');

const verdict = (file: string, text?: string) => {
  const report = checkTranscript(text === undefined ? inputFromFile(file) : inputFromText(file, text), OPTIONS);
  return { decisions: report.steps.map((s) => s.decision), rules: report.findings.map((f) => `${f.severity} ${f.rule}`), report };
};

describe('otel: LangChain message dicts (Langfuse LangChain integration)', () => {
  it('reads the calls kept only in additional_kwargs.tool_calls: the tool message pairs, patch, no finding', () => {
    assert.deepEqual(verdict(LANGCHAIN).rules, []);
    assert.deepEqual(verdict(LANGCHAIN).decisions, ['patch']);
    const final = readWith(otelAdapter, LANGCHAIN).final;
    const call = final.messages[2]!.blocks.find((b): b is ToolCall => b.kind === 'tool_call')!;
    assert.deepEqual([call.id, call.name], ['call_Wx81', 'get_weather']);
    assert.equal(textAt(LANGCHAIN, call.idSource), '"call_Wx81"');
    assert.deepEqual(unpaired(final), { calls: [], results: [] });
  });

  it('reads LangChain\'s own {name, args, id} calls once, not twice, when additional_kwargs holds the OpenAI copy', () => {
    const final = readWith(otelAdapter, LANGCHAIN_BOTH).final;
    const calls = final.messages[2]!.blocks.filter((b): b is ToolCall => b.kind === 'tool_call');
    assert.deepEqual(calls.map((c) => [c.id, c.name, c.input?.type]), [['call_Wx81', 'get_weather', 'object']]);
    assert.deepEqual(verdict(LANGCHAIN_BOTH).rules, []);
  });
});

describe('otel: an observation whose input is a Gemini request', () => {
  it('is read with the Gemini reader (config.tools, pairing by name and position): patch, no orphan with an empty id', () => {
    const { decisions, rules } = verdict(GEMINI_INPUT);
    assert.deepEqual(rules, []);
    assert.deepEqual(decisions, ['patch']);
    const final = readWith(otelAdapter, GEMINI_INPUT).final;
    assert.deepEqual(final.tools.map((t) => t.name), ['get_weather']);
    assert.deepEqual(final.messages.map((m) => m.role), ['system', 'user', 'assistant', 'user']);
    assert.deepEqual(unpaired(final), { calls: [], results: [] });
  });
});

describe('otel: an observation that is not a request is not a rewrite', () => {
  it('status events with input null and a plain-string input are skipped, one info per cause with the count and the first line', () => {
    const { decisions, report } = verdict(NOT_REQUESTS);
    assert.deepEqual(decisions, ['patch']);
    const nulls = report.findings[0]!;
    const text = fileText(NOT_REQUESTS);
    const obs = (id: string) => text.lastIndexOf('{', text.indexOf(`"id": "${id}"`));
    assert.deepEqual(
      report.findings.map((f) => [f.severity, f.rule, f.message]),
      [
        ['info', 'record-skipped', `Skipped 2 generations whose input is null (first at line ${lineOf(NOT_REQUESTS, obs('obs-2'))}): not a request; nothing is known of its context, so it is not compared`],
        ['info', 'record-skipped', `Skipped 1 generation whose input is a plain string (first at line ${lineOf(NOT_REQUESTS, obs('obs-5'))}): not a request; nothing is known of its context, so it is not compared`],
      ],
    );
    assert.match(textAt(NOT_REQUESTS, nulls.range), /^\{\s*"id": "obs-2"/);
    assert.deepEqual(nulls.related?.map((r) => r.range.start), [obs('obs-4')]);
  });

  it('observations of a type Langfuse does not define are one info per type with the count; spans, tools and agents are not said', () => {
    const data = JSON.parse(fileText(LANGCHAIN)) as { observations: object[] };
    const extra = (id: string, type?: string) => ({ id, traceId: 'trace-1', ...(type !== undefined && { type }), startTime: '2026-01-10T10:00:02.000Z', input: { q: 1 } });
    data.observations.push(extra('s1', 'SPAN'), extra('t1', 'TOOL'), extra('a1', 'AGENT'), extra('h1', 'HANDOFF'), extra('h2', 'HANDOFF'), extra('x1'));
    const text = JSON.stringify(data, null, 1);
    const { decisions, report } = verdict('trace.json', text);
    assert.deepEqual(decisions, ['patch']);
    const at = (id: string) => text.lastIndexOf('{', text.indexOf(`"id": "${id}"`));
    assert.deepEqual(
      report.findings.map((f) => [f.severity, f.message, f.range.start]),
      [
        ['info', `Skipped 2 observations of type "HANDOFF" (first at line ${lineAt(text, at('h1'))}): not part of the model's context as far as this reader knows`, at('h1')],
        ['info', `Skipped 1 observation without a type (first at line ${lineAt(text, at('x1'))}): not part of the model's context as far as this reader knows`, at('x1')],
      ],
    );
  });

  it('a generation that records no tool list keeps the registry before it (unknown, not empty), said in an info finding', () => {
    const data = JSON.parse(fileText(NOT_REQUESTS)) as { observations: { metadata: { attributes: Record<string, unknown> } }[] };
    data.observations[2]!.metadata.attributes = {};
    const { decisions, report } = verdict('no-tools.json', JSON.stringify(data, null, 1));
    assert.deepEqual(decisions, ['patch']);
    const carried = report.findings.filter((f) => /with no tool list/.test(f.message));
    assert.deepEqual(carried.map((f) => [f.severity, f.rule]), [['info', 'record-skipped']]);
    assert.match(carried[0]!.message, /^Kept the tool registry for 1 generation with no tool list \(first at line \d+\): a missing list is unknown, not empty, so the tools of the generation before are carried forward$/);
    assert.ok(!report.findings.some((f) => f.rule === 'schema-dropped' || f.rule === 'prefix-mutated'));
  });
});

describe('otel: OpenInference flattened messages the reader cannot fully see', () => {
  it('later contents are read (text) or named (other types); a legacy function_call is counted as a tool part it does not pair', () => {
    const attributes = {
      'llm.input_messages.0.message.role': 'user',
      'llm.input_messages.0.message.contents.0.message_content.type': 'text',
      'llm.input_messages.0.message.contents.0.message_content.text': 'Weather in Paris?',
      'llm.input_messages.0.message.contents.1.message_content.type': 'text',
      'llm.input_messages.0.message.contents.1.message_content.text': 'And in Rome?',
      'llm.input_messages.0.message.contents.2.message_content.type': 'hologram',
      'llm.input_messages.1.message.role': 'assistant',
      'llm.input_messages.1.message.function_call_name': 'get_weather',
      'llm.input_messages.1.message.function_call_arguments_json': '{"city":"Paris"}',
    };
    const data = { trace: { id: 't' }, observations: [{ id: 'g1', type: 'GENERATION', startTime: '2026-01-10T10:00:01.000Z', metadata: { attributes } }] };
    const text = JSON.stringify(data, null, 1);
    const report = checkTranscript({ file: 'trace.json', text }, OPTIONS);
    const final = readWith(otelAdapter, 'trace.json', text).final;
    assert.deepEqual(final.messages[0]!.blocks.map((b) => (b.kind === 'text' ? b.text : b.kind)), ['Weather in Paris?', 'And in Rome?', 'opaque']);
    const line = (needle: string) => lineAt(text, text.indexOf(needle));
    assert.deepEqual(
      report.findings.map((f) => [f.severity, f.rule, f.message]),
      [
        ['info', 'record-skipped', `1 part of a type the Langfuse / OpenTelemetry GenAI trace export reader does not know ("hologram"; first at line ${line('"hologram"')}): kept as raw bytes, what it holds is not checked`],
        ['info', 'record-skipped', `1 part holds a tool call or result in a shape the Langfuse / OpenTelemetry GenAI trace export reader does not read (first at line ${line('"get_weather"')}): its pairing is not checked`],
      ],
    );
  });
});

