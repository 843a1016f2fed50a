/**
 * What a reader could not see is said once per cause per file: one info
 * `record-skipped` finding with the count, "first at line L" and the first
 * occurrence's range, the next ones (capped) as related locations. Texts are
 * written here, reproducing shapes of real files (a Codex rollout with record
 * types of a newer CLI, a Claude Code session with unknown records, a Gemini
 * CLI session with unknown message types).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { strToU8, zipSync } from 'fflate';
import { checkTranscript } from '../../src/core/check';
import type { Finding } from '../../src/core/findings';
import { lineAt } from '../../src/core/formats/common';
import { inputFromFile } from '../../src/core/io';
import { fileText, fixture, lineOf, textAt } from './wild-helpers';

const INSPECT = fixture('unread', 'inspect-content-types.json');
const OTEL = fixture('unread', 'otel-part-types.json');

const OPTIONS = { tokens: false } as const;

const codexLine = (type: string, payload: unknown) => JSON.stringify({ timestamp: '2026-02-23T12:30:00.000Z', type, payload });
const ccLine = (type: string, uuid: string, parentUuid: string | null, extra: object = {}) => JSON.stringify({ type, uuid, parentUuid, sessionId: 's', ...extra });

const skippedOf = (findings: readonly Finding[]) => findings.filter((f) => f.rule === 'record-skipped');
const lineStart = (lines: readonly string[], index: number) => lines.slice(0, index).join('\n').length + (index > 0 ? 1 : 0);

describe('unseen content: one info per cause, with the count and the first location', () => {
  it('Codex: three records of one unknown type and one of another are two findings, not four', () => {
    const lines = [
      codexLine('session_meta', { id: 's', base_instructions: { text: 'Be brief.' } }),
      codexLine('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }),
      codexLine('future_record', { n: 1 }),
      codexLine('future_record', { n: 2 }),
      codexLine('response_item', { type: 'future_item', x: 1 }),
      codexLine('future_record', { n: 3 }),
    ];
    const report = checkTranscript({ file: 'rollout.jsonl', text: `${lines.join('\n')}\n` }, { ...OPTIONS, format: 'codex' });
    const skipped = skippedOf(report.findings);
    assert.equal(skipped.length, 2, JSON.stringify(report.findings));
    const records = skipped.find((f) => /future_record/.test(f.message))!;
    assert.equal(records.severity, 'info');
    assert.equal(records.message, 'Skipped 3 records of Codex type "future_record" (first at line 3): not part of the model\'s context as far as this reader knows');
    assert.deepEqual(records.range, { start: lineStart(lines, 2), end: lineStart(lines, 2) + lines[2]!.length });
    assert.deepEqual(records.related?.map((r) => r.range.start), [lineStart(lines, 3), lineStart(lines, 5)]);
    const items = skipped.find((f) => /future_item/.test(f.message))!;
    assert.match(items.message, /^Skipped 1 record of Codex response_item type "future_item" \(first at line 5\)/);
    assert.equal(items.related, undefined);
  });

  it('related locations are capped; the count is not', () => {
    const lines = [codexLine('session_meta', { id: 's' }), ...Array.from({ length: 30 }, (_, i) => codexLine('future_record', { n: i }))];
    const report = checkTranscript({ file: 'rollout.jsonl', text: lines.join('\n') }, { ...OPTIONS, format: 'codex' });
    const [only, ...rest] = skippedOf(report.findings);
    assert.equal(rest.length, 0);
    assert.match(only!.message, /^Skipped 30 records of Codex type "future_record" \(first at line 2\)/);
    assert.equal(only!.related?.length, 20);
  });

  it('Claude Code: unknown records of one type are one finding with their count', () => {
    const lines = [
      ccLine('user', 'u1', null, { message: { role: 'user', content: 'hi' } }),
      ccLine('future-record', 'f1', 'u1'),
      ccLine('assistant', 'a1', 'u1', { message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: 'hello' }] } }),
      ccLine('future-record', 'f2', 'a1'),
    ];
    const report = checkTranscript({ file: 'session.jsonl', text: `${lines.join('\n')}\n` }, { ...OPTIONS, format: 'claude-code' });
    assert.deepEqual(
      report.findings.map((f) => [f.severity, f.message]),
      [['info', 'Skipped 2 records of Claude Code type "future-record" (first at line 2): not part of the model\'s context as far as this reader knows']],
    );
    assert.equal(report.findings[0]!.range.start, lineStart(lines, 1));
  });

  it('Gemini CLI (one JSON document): unknown messages are one finding, located by line', () => {
    const session = {
      sessionId: 's',
      messages: [
        { id: '1', type: 'user', content: 'hi' },
        { id: '2', type: 'compression', content: 'a' },
        { id: '3', type: 'gemini', content: 'hello' },
        { id: '4', type: 'compression', content: 'b' },
      ],
    };
    const text = JSON.stringify(session, null, 2);
    const report = checkTranscript({ file: 'session-x.json', text }, { ...OPTIONS, format: 'gemini-cli' });
    const skipped = skippedOf(report.findings);
    assert.equal(skipped.length, 1, JSON.stringify(report.findings));
    const first = text.lastIndexOf('{', text.indexOf('"id": "2"'));
    assert.equal(skipped[0]!.range.start, first);
    assert.equal(skipped[0]!.message, `Skipped 2 messages of Gemini CLI type "compression" (first at line ${lineAt(text, first)}): not part of the model's context as far as this reader knows`);
    assert.equal(skipped[0]!.related?.length, 1);
  });

  it('Anthropic: parts of an unknown type are one info (count, types, first line); known server-tool and thinking blocks are not said', () => {
    const body = {
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Search.' }, { type: 'future_block', x: 1 }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hm', signature: 'sig' },
            { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'q' } },
            { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
            { type: 'text', text: 'Found.' },
          ],
        },
        { role: 'user', content: [{ type: 'future_block', x: 2 }, { type: 'other_block' }] },
      ],
    };
    const text = JSON.stringify(body, null, 1);
    const report = checkTranscript({ file: 'request.json', text }, { ...OPTIONS, format: 'anthropic' });
    assert.equal(report.findings.length, 1, JSON.stringify(report.findings));
    const [only] = report.findings;
    const first = text.lastIndexOf('{', text.indexOf('"future_block"'));
    assert.equal(only!.range.start, first);
    assert.equal(
      only!.message,
      `3 parts of a type the Anthropic Messages request bodies reader does not know ("future_block", "other_block"; first at line ${lineAt(text, first)}): kept as raw bytes, what they hold is not checked`,
    );
  });

  /** Checks `body` as `format` and returns its only finding, which must be the unknown-parts info naming `types`, first at `firstNeedle`. */
  const onlyUnknown = (format: 'openai-chat' | 'openai-responses' | 'gemini' | 'bedrock', body: object, firstNeedle: string) => {
    const text = JSON.stringify(body, null, 1);
    const report = checkTranscript({ file: 'request.json', text }, { ...OPTIONS, format });
    assert.equal(report.findings.length, 1, JSON.stringify(report.findings));
    const [only] = report.findings;
    const first = text.lastIndexOf('{', text.indexOf(firstNeedle));
    assert.equal(only!.range.start, first);
    return { message: only!.message, line: lineAt(text, first) };
  };

  it('OpenAI Chat: content parts of an unknown type are one info; known part types and extra message fields are not said', () => {
    const body = {
      model: 'gpt-4o',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Look.' }, { type: 'image_url', image_url: { url: 'data:,' } }, { type: 'input_audio', input_audio: { data: '', format: 'wav' } }] },
        { role: 'assistant', content: [{ type: 'refusal', refusal: 'No.' }], name: 'bot' },
        { role: 'user', content: [{ type: 'future_part', x: 1 }, { type: 'file', file: { file_id: 'f' } }] },
      ],
    };
    const { message, line } = onlyUnknown('openai-chat', body, '"future_part"');
    assert.equal(message, `1 part of a type the OpenAI Chat Completions request bodies reader does not know ("future_part"; first at line ${line}): kept as raw bytes, what it holds is not checked`);
  });

  it('OpenAI Responses: input items and content parts of an unknown type are one info; reasoning, web search and output text are not said', () => {
    const body = {
      model: 'gpt-5',
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'Hi' }, { type: 'input_image', image_url: 'data:,' }] },
        { type: 'reasoning', id: 'rs_1', summary: [] },
        { type: 'web_search_call', id: 'ws_1', status: 'completed' },
        { type: 'future_item', id: 'x_1' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done' }, { type: 'future_part' }] },
      ],
    };
    const { message, line } = onlyUnknown('openai-responses', body, '"future_item"');
    assert.equal(message, `2 parts of a type the OpenAI Responses request bodies reader does not know ("future_item", "future_part"; first at line ${line}): kept as raw bytes, what they hold is not checked`);
  });

  it('Gemini: parts with a key the reader does not know are one info; inline data, thoughts and signatures are not said', () => {
    const body = {
      contents: [
        { role: 'user', parts: [{ text: 'Look.' }, { inlineData: { mimeType: 'image/png', data: '' } }, { fileData: { fileUri: 'gs://a', mimeType: 'text/plain' } }] },
        { role: 'model', parts: [{ thought: true, text: 'hm' }, { text: 'ok', thoughtSignature: 'c2ln' }, { executableCode: { language: 'PYTHON', code: '1' } }] },
        { role: 'user', parts: [{ futurePart: { x: 1 } }, { codeExecutionResult: { outcome: 'OUTCOME_OK' } }] },
      ],
    };
    const { message, line } = onlyUnknown('gemini', body, '"futurePart"');
    assert.equal(message, `1 part of a type the Gemini generateContent request bodies reader does not know ("futurePart"; first at line ${line}): kept as raw bytes, what it holds is not checked`);
  });

  it('Bedrock: Converse content blocks of an unknown member are one info; images, reasoning and cache points are not said', () => {
    const body = {
      modelId: 'anthropic.claude-3-5-sonnet',
      messages: [
        { role: 'user', content: [{ text: 'Look.' }, { image: { format: 'png', source: { bytes: '' } } }, { cachePoint: { type: 'default' } }] },
        { role: 'assistant', content: [{ reasoningContent: { reasoningText: { text: 'hm' } } }, { text: 'ok' }] },
        { role: 'user', content: [{ futureBlock: {} }] },
      ],
    };
    const { message, line } = onlyUnknown('bedrock', body, '"futureBlock"');
    assert.equal(message, `1 part of a type the Bedrock Converse request bodies reader does not know ("futureBlock"; first at line ${line}): kept as raw bytes, what it holds is not checked`);
  });

  it('Inspect AI (.json): content parts of a type Inspect does not define are one info; reasoning, media, data and server-side tool_use are not said', () => {
    const report = checkTranscript(inputFromFile(INSPECT), OPTIONS);
    assert.equal(report.format, 'inspect');
    assert.deepEqual(report.steps.map((s) => s.decision), ['patch']);
    assert.equal(report.findings.length, 1, JSON.stringify(report.findings));
    const [only] = report.findings;
    assert.equal(only!.severity, 'info');
    assert.match(textAt(INSPECT, only!.range), /^\{\s*"type": "future_content"/);
    assert.equal(
      only!.message,
      `2 parts of a type the Inspect AI eval log (.json / .eval) reader does not know ("future_content", no "type"; first at line ${lineOf(INSPECT, only!.range.start)}): kept as raw bytes, what they hold is not checked`,
    );
  });

  it('Inspect AI (.eval): the same parts inside the zip are counted one by one and said without a line (the bytes are compressed)', () => {
    const log = JSON.parse(fileText(INSPECT)) as { eval: unknown; samples: unknown[] };
    const zip = zipSync({ 'header.json': strToU8(JSON.stringify({ version: 2, eval: log.eval })), 'samples/1_epoch_1.json': strToU8(JSON.stringify(log.samples[0])) });
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pl-unseen-')), 'log.eval');
    fs.writeFileSync(file, zip);
    const report = checkTranscript(inputFromFile(file), OPTIONS);
    assert.equal(report.format, 'inspect');
    assert.deepEqual(
      report.findings.map((f) => f.message),
      ['2 parts of a type the Inspect AI eval log (.json / .eval) reader does not know ("future_content", no "type"; inside a compressed entry, no line to show): kept as raw bytes, what they hold is not checked'],
    );
    assert.equal(report.findings[0]!.related, undefined, 'no related location points into compressed bytes');
  });

  it('OTel / Langfuse: semconv, Chat and LangChain parts of an unknown type are one info; reasoning, blob, uri, image_url and a LangChain dict\'s extra fields are not said', () => {
    const report = checkTranscript(inputFromFile(OTEL), OPTIONS);
    assert.equal(report.format, 'otel');
    assert.deepEqual(report.steps.map((s) => s.decision), ['patch']);
    assert.equal(report.findings.length, 1, JSON.stringify(report.findings));
    const [only] = report.findings;
    assert.match(textAt(OTEL, only!.range), /^\{\s*"type": "future_part"/);
    // future_part is in both generations' inputs (two places in the file), hologram in the second.
    const text = fileText(OTEL);
    const partAt = (needle: string, from = 0) => text.lastIndexOf('{', text.indexOf(needle, from));
    const secondFuture = partAt('"future_part"', text.indexOf('"future_part"') + 1);
    const hologram = partAt('"hologram"');
    const expected = [
      [secondFuture, 'Also a part of a type this reader does not know: "future_part"'],
      [hologram, 'Also a part of a type this reader does not know: "hologram"'],
    ].sort((a, b) => (a[0] as number) - (b[0] as number));
    assert.deepEqual(only!.related?.map((r) => [r.range.start, r.message]), expected);
    assert.equal(
      only!.message,
      `3 parts of a type the Langfuse / OpenTelemetry GenAI trace export reader does not know ("future_part", "hologram"; first at line ${lineOf(OTEL, only!.range.start)}): kept as raw bytes, what they hold is not checked`,
    );
  });

  it('OTel: parts read out of one JSON string share its range but are counted one by one', () => {
    const data = JSON.parse(fileText(OTEL)) as { observations: { input?: unknown; metadata: { attributes: Record<string, unknown> } }[] };
    const last = data.observations[3]!;
    last.metadata.attributes['gen_ai.input.messages'] = JSON.stringify(last.input);
    delete last.input;
    const report = checkTranscript({ file: 'trace.json', text: JSON.stringify(data, null, 1) }, OPTIONS);
    assert.deepEqual(report.steps.map((s) => s.decision), ['patch']);
    assert.deepEqual(
      report.findings.map((f) => f.message.split(' (')[0]),
      ['3 parts of a type the Langfuse / OpenTelemetry GenAI trace export reader does not know'],
    );
  });

  it('Codex: content parts and compaction history items of a type the reader does not know are one info; reasoning and images are not said', () => {
    const lines = [
      codexLine('session_meta', { id: 's', base_instructions: { text: 'Be brief.' } }),
      codexLine('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Look.' }, { type: 'input_image', image_url: 'data:,' }, { type: 'future_part' }] }),
      codexLine('response_item', { type: 'reasoning', summary: [], encrypted_content: 'x' }),
      codexLine('compacted', { message: '', replacement_history: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Look.' }] }, { type: 'future_item', id: 'f1' }] }),
    ];
    const text = `${lines.join('\n')}\n`;
    const report = checkTranscript({ file: 'rollout.jsonl', text }, { ...OPTIONS, format: 'codex' });
    const skipped = skippedOf(report.findings);
    assert.equal(skipped.length, 1, JSON.stringify(report.findings));
    assert.equal(skipped[0]!.range.start, text.indexOf('{"type":"future_part"}'));
    assert.equal(skipped[0]!.message, '2 parts of a type the Codex CLI rollout JSONL reader does not know ("future_part", "future_item"; first at line 2): kept as raw bytes, what they hold is not checked');
  });

  it('Gemini CLI: parts with a key that is no Gemini Part field are one info; thoughts and inline data are not said', () => {
    const session = {
      sessionId: 's',
      projectHash: 'p',
      messages: [
        { id: '1', type: 'user', content: [{ text: 'Look.' }, { inlineData: { mimeType: 'image/png', data: '' } }, { futurePart: { x: 1 } }] },
        { id: '2', type: 'gemini', content: 'Seen.', thoughts: [{ subject: 'Looking', description: 'at the image', timestamp: '2026-01-10T10:00:00Z' }] },
      ],
    };
    const text = JSON.stringify(session, null, 2);
    const report = checkTranscript({ file: 'session-x.json', text }, { ...OPTIONS, format: 'gemini-cli' });
    assert.equal(report.findings.length, 1, JSON.stringify(report.findings));
    const first = text.lastIndexOf('{', text.indexOf('"futurePart"'));
    assert.equal(report.findings[0]!.range.start, first);
    assert.equal(report.findings[0]!.message, `1 part of a type the Gemini CLI chat session JSON reader does not know ("futurePart"; first at line ${lineAt(text, first)}): kept as raw bytes, what it holds is not checked`);
  });

  it('lineAt counts the lines before an offset', () => {
    assert.equal(lineAt('a\nb\nc', 0), 1);
    assert.equal(lineAt('a\nb\nc', 2), 2);
    assert.equal(lineAt('a\nb\nc', 4), 3);
  });
});
