/**
 * The request-log reading shared by the provider formats: one `.json` request =
 * one window; JSONL of bare requests or `{request, response}` records = steps
 * against the previous request plus its response; bad lines located and
 * skipped, the next valid line judged against the last valid one; records of
 * other providers skipped as info; only two requests held at a time.
 */
import { inputFromText } from '../../src/core/io';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { checkTranscript } from '../../src/core/check';
import { anthropicAdapter, anthropicCodec } from '../../src/core/formats/anthropic';
import { openaiChatAdapter } from '../../src/core/formats/openai-chat';
import { openaiResponsesAdapter } from '../../src/core/formats/openai-responses';
import { readRequestLog } from '../../src/core/formats/request-log';
import { LineIndex } from '../../src/core/text';
import { PROVIDERS, corpusFiles, fileText, readEvents } from './provider-helpers';

const INVALID = path.join(PROVIDERS, 'anthropic-log-invalid-line.jsonl');

const request = (messages: unknown[], extra: Record<string, unknown> = {}) => ({ model: 'm', max_tokens: 10, system: 'S', messages, ...extra });
const user = (text: string) => ({ role: 'user', content: text });
const assistant = (text: string) => ({ role: 'assistant', content: [{ type: 'text', text }] });

describe('request-log: invalid lines', () => {
  const text = fileText(INVALID);
  const events = readEvents(anthropicAdapter, INVALID, text);

  it('locates invalid-json on its line, at the parse error', () => {
    assert.deepEqual(events.kinds, ['window', 'finding', 'step', 'window']);
    const bad = events.findings[0]!;
    assert.equal(bad.rule, 'invalid-json');
    assert.equal(bad.severity, 'error');
    const lines = LineIndex.of(text);
    assert.equal(lines.position(bad.range.start).line, 2);
    assert.match(bad.message, /Line 2/);
    const secondLine = text.split('\n')[1]!;
    assert.equal(lines.position(bad.range.start).column, secondLine.length + 1, 'the line ends before the JSON does');
  });

  it('judges the next valid line against the last valid one (patch: cache_control moved)', () => {
    const step = events.steps[0]!;
    const lines = LineIndex.of(text);
    assert.equal(lines.position(step.range!.start).line, 3);
    assert.equal(lines.position(step.before.source!.start).line, 1);
    const report = checkTranscript({ file: INVALID, text }, { tokens: false });
    assert.deepEqual(report.steps.map((s) => s.decision), ['patch']);
    assert.deepEqual(report.findings.map((f) => f.rule), ['invalid-json']);
  });

  it('survives garbage, blank lines, non-object lines and a truncated last line', () => {
    const lines = [JSON.stringify(request([user('a')])), '', 'not json', '42', '[1,2]', JSON.stringify(request([user('a'), user('b')])), '{"messages": [{"role"'];
    const got = readEvents(anthropicAdapter, 'garbage.jsonl', lines.join('\n'));
    assert.deepEqual(got.kinds, ['window', 'finding', 'step', 'window', 'finding', 'finding']);
    assert.deepEqual(got.findings.map((f) => f.rule), ['invalid-json', 'invalid-json', 'record-skipped']);
    // The two non-object lines are one cause: one finding with the count, the first line, the other as a related location.
    const skipped = got.findings[2]!;
    assert.equal(skipped.message, "Skipped 2 records holding no request body of Anthropic Messages (first at line 4): not part of the model's context as far as this reader knows");
    assert.equal(skipped.range.start, lines.slice(0, 3).join('\n').length + 1);
    assert.deepEqual(skipped.related?.map((r) => r.range.start), [lines.slice(0, 4).join('\n').length + 1]);
  });
});

describe('request-log: records and bare requests', () => {
  it('a .json file holding one request is one window and no step', () => {
    const got = readEvents(anthropicAdapter, 'one.json', JSON.stringify(request([user('a')]), null, 2));
    assert.deepEqual(got.kinds, ['window']);
    assert.equal(got.windows[0]!.boundary, 2);
  });

  it('a .json file holding one {request, response} record is one window', () => {
    const got = readEvents(anthropicAdapter, 'one.json', JSON.stringify({ request: request([user('a')]), response: { content: [] } }, null, 2));
    assert.deepEqual(got.kinds, ['window']);
  });

  it('a pretty-printed request without a telling extension is read whole', () => {
    const got = readEvents(anthropicAdapter, 'body.txt', JSON.stringify(request([user('a')]), null, 2));
    assert.deepEqual(got.kinds, ['window']);
  });

  it('bare requests: each is judged against the previous request alone', () => {
    const lines = [request([user('a')]), request([user('a'), assistant('b'), user('c')])].map((r) => JSON.stringify(r));
    const got = readEvents(anthropicAdapter, 'bare.jsonl', lines.join('\n'));
    assert.deepEqual(got.kinds, ['window', 'step', 'window']);
    assert.equal(got.steps[0]!.before.messages.length, 2);
    assert.equal(got.steps[0]!.before.boundary, 2);
    const report = checkTranscript({ file: 'bare.jsonl', text: lines.join('\n') }, { tokens: false });
    assert.deepEqual(report.steps.map((s) => s.decision), ['patch']);
  });

  it('records: the logged response is appended to the previous request, all consumed', () => {
    const lines = [
      { request: request([user('a')]), response: { type: 'message', role: 'assistant', content: [{ type: 'text', text: 'b' }] } },
      { request: request([user('a'), assistant('b'), user('c')]), response: null },
    ].map((r) => JSON.stringify(r));
    const got = readEvents(anthropicAdapter, 'records.jsonl', lines.join('\n'));
    const before = got.steps[0]!.before;
    assert.deepEqual(before.messages.map((m) => m.role), ['system', 'user', 'assistant']);
    assert.equal(before.boundary, 3);
    const report = checkTranscript({ file: 'records.jsonl', text: lines.join('\n') }, { tokens: false });
    assert.deepEqual(report.steps.map((s) => s.decision), ['patch']);
  });

  it('a replay that rewrites the logged response is not a patch', () => {
    const lines = [
      { request: request([user('a')]), response: { role: 'assistant', content: [{ type: 'text', text: 'b' }] } },
      { request: request([user('a'), assistant('B!'), user('c')]) },
    ].map((r) => JSON.stringify(r));
    const report = checkTranscript({ file: 'rewritten.jsonl', text: lines.join('\n') }, { tokens: false });
    assert.notEqual(report.steps[0]!.decision, 'patch');
    assert.ok(report.steps[0]!.rules.includes('prefix-mutated'));
  });

  it('an error status means no response was consumed', () => {
    const lines = [
      { method: 'POST', uri: 'u', request: request([user('a')]), status: 529, response: { role: 'assistant', content: [{ type: 'text', text: 'x' }] } },
      { method: 'POST', uri: 'u', request: request([user('a'), user('again')]), status: 200, response: null },
    ].map((r) => JSON.stringify(r));
    const got = readEvents(anthropicAdapter, 'retry.jsonl', lines.join('\n'));
    assert.equal(got.steps[0]!.before.messages.length, 2);
  });

  it('skips a record of another provider or method as info, never as a crash', () => {
    const lines = [
      { method: 'POST', uri: 'https://x/v1beta/models/g:generateContent', request: { contents: [] }, response: {} },
      { method: 'GET', uri: 'https://x/v1/models', request: '', response: {} },
      { request: request([user('a')]) },
    ].map((r) => JSON.stringify(r));
    const got = readEvents(anthropicAdapter, 'mixed.jsonl', lines.join('\n'));
    assert.deepEqual(got.kinds, ['window', 'finding', 'finding']);
    assert.deepEqual(got.findings.map((f) => [f.rule, f.severity]), [['record-skipped', 'info'], ['record-skipped', 'info']]);
    assert.match(got.findings[0]!.message, /^Skipped 1 record holding no request body of Anthropic Messages \(first at line 1\): .*\(the first: POST https:\/\/x\/v1beta/);
    assert.match(got.findings[1]!.message, /^Skipped 1 record with method GET \(first at line 2\): not a request body \(the first: GET https:\/\/x\/v1\/models\)$/);
  });

  it('reads a .json array of records as a log', () => {
    const records = [{ request: request([user('a')]) }, { request: request([user('a'), assistant('b'), user('c')]) }];
    const got = readEvents(anthropicAdapter, 'array.json', JSON.stringify(records, null, 1));
    assert.deepEqual(got.kinds, ['window', 'step', 'window']);
  });

  it('reads past a byte-order mark, offsets as when the file is read (the BOM dropped, issue 11)', () => {
    const line = JSON.stringify(request([user('a')]));
    const got = readEvents(anthropicAdapter, 'bom.jsonl', '\ufeff' + line);
    assert.deepEqual(got.kinds, ['window']);
    assert.equal(got.windows[0]!.source!.start, 0);
  });

  it('reads a request wrapped in a {body} envelope', () => {
    const line = JSON.stringify({ request: { url: 'u', body: request([user('a')]) }, response: { body: { content: [] } } });
    assert.deepEqual(readEvents(anthropicAdapter, 'env.jsonl', line).kinds, ['window']);
  });
});

describe('request-log: streaming', () => {
  it('holds no more than the previous and the current request', () => {
    const count = 50;
    const lines = Array.from({ length: count }, (_, i) => JSON.stringify(request(Array.from({ length: 2 * i + 1 }, (_, j) => (j % 2 ? assistant(`a${j}`) : user(`u${j}`))))));
    let pulled = 0;
    const input = inputFromText('big.jsonl', lines.join('\n'));
    const counted = {
      ...input,
      lines: function* () {
        for (const line of input.lines()) {
          pulled++;
          yield line;
        }
      },
    };
    let steps = 0;
    for (const event of readRequestLog(counted, anthropicCodec)) {
      if (event.kind === 'step') {
        steps++;
        // Lazily consumed: when step k is handed out, only lines up to k+1 have been read.
        assert.ok(pulled <= steps + 1, `pulled ${pulled} lines at step ${steps}`);
      }
    }
    assert.equal(steps, count - 1);
  });

  it('chat logs too: a long append-only log is all patch', () => {
    const messages: unknown[] = [{ role: 'system', content: 'S' }];
    const lines: string[] = [];
    for (let i = 0; i < 20; i++) {
      messages.push({ role: 'user', content: `q${i}` });
      lines.push(JSON.stringify({ request: { model: 'gpt-4o', messages: [...messages] }, response: { choices: [{ message: { role: 'assistant', content: `a${i}`, refusal: null } }] } }));
      messages.push({ role: 'assistant', content: `a${i}` });
    }
    const report = checkTranscript({ file: 'chat.jsonl', text: lines.join('\n') }, { tokens: false });
    assert.equal(report.format, 'openai-chat');
    assert.equal(openaiChatAdapter.sniff(lines.join('\n')), true);
    assert.equal(report.steps.length, 19);
    assert.ok(report.steps.every((s) => s.decision === 'patch'));
  });
});

describe('request-log: no input crashes an adapter', () => {
  const adapters = [anthropicAdapter, openaiChatAdapter, openaiResponsesAdapter];
  const corpusLines = ['anthropic-messages', 'openai-chat', 'openai-responses'].flatMap((folder) =>
    corpusFiles(folder).flatMap((file) => fileText(file).split('\n').filter(Boolean)),
  );
  /** Lines that are nearly right: corpus lines cut short, or with a span replaced. */
  const lineArb = fc.oneof(
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc.string(),
    fc.tuple(fc.constantFrom(...corpusLines), fc.nat(), fc.nat(), fc.string({ maxLength: 5 })).map(([line, a, b, junk]) => {
      const i = a % (line.length + 1);
      const j = Math.min(line.length, i + (b % 40));
      return line.slice(0, i) + junk + line.slice(j);
    }),
  );

  it('reads any lines into events without throwing, every range inside the file', () => {
    fc.assert(
      fc.property(fc.array(lineArb, { maxLength: 6 }), fc.constantFrom('log.jsonl', 'one.json', 'noext'), (lines, file) => {
        const text = lines.join('\n');
        for (const adapter of adapters) {
          for (const event of adapter.read(inputFromText(file, text))) {
            const range =
              event.kind === 'finding' ? event.finding.range : event.kind === 'window' ? event.window.source : event.kind === 'usage' ? { start: event.usage.offset, end: event.usage.end } : event.rewrite.range;
            if (range) assert.ok(range.start >= 0 && range.end <= text.length && range.start <= range.end, JSON.stringify(range));
          }
          const report = checkTranscript({ file, text }, { tokens: false, format: adapter.id });
          assert.equal(report.format, adapter.id);
        }
      }),
      { numRuns: 150 },
    );
  });
});
