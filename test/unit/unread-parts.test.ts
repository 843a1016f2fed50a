/**
 * A check that cannot see a file's tool parts never looks clean: parts a
 * reader keeps opaque although they hold a call or result in a shape it does
 * not read are counted, and said once in an info finding with the count and
 * the first location. Fixtures written here reproduce the shapes: Gemini-style
 * `functionCall` / `functionResponse` parts inside a Claude Code line's
 * `content` (a converted session), and a Chat request using the legacy
 * `function_call` field. (Lines whose message has `parts` instead of
 * `content`, Qwen Code's envelope, are the Claude Code reader's own finding.)
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkTranscript } from '../../src/core/check';
import { inputFromFile } from '../../src/core/io';
import { fixture, lineOf, textAt } from './wild-helpers';
import { unreadParts } from '../../src/core/unread-parts';

const OPTIONS = { tokens: false } as const;
const ENVELOPE = fixture('unread', 'gemini-parts-in-content.jsonl');
const LEGACY = fixture('unread', 'chat-legacy-function-call.json');

describe('parts a reader cannot see', () => {
  it('Gemini-style functionCall/functionResponse parts in Claude Code content: one info with the count and the first part; the typeless text parts are a second cause', () => {
    const report = checkTranscript(inputFromFile(ENVELOPE), { ...OPTIONS, format: 'claude-code' });
    const unread = report.findings.filter((f) => /in a shape the/.test(f.message));
    assert.equal(report.findings.length, 2, 'one finding per cause');
    const unknown = report.findings.find((f) => /of a type the/.test(f.message))!;
    assert.equal(unknown.severity, 'info');
    assert.equal(unknown.message, '2 parts of a type the Claude Code session JSONL reader does not know (no "type"; first at line 1): kept as raw bytes, what they hold is not checked');
    assert.match(textAt(ENVELOPE, unknown.range), /^\{"text": "List the files."\}$/);
    assert.equal(unread.length, 1);
    assert.equal(unread[0]!.severity, 'info');
    assert.equal(unread[0]!.rule, 'record-skipped');
    assert.equal(unread[0]!.message, '2 parts hold a tool call or result in a shape the Claude Code session JSONL reader does not read (first at line 2): their pairing is not checked');
    assert.equal(lineOf(ENVELOPE, unread[0]!.range.start), 2);
    assert.match(textAt(ENVELOPE, unread[0]!.range), /^\{"functionCall"/);
  });

  it('a Chat request with the legacy function_call field: counted once, located on the field', () => {
    const report = checkTranscript(inputFromFile(LEGACY), OPTIONS);
    assert.equal(report.format, 'openai-chat');
    assert.deepEqual(report.findings.map((f) => [f.severity, f.rule]), [['info', 'record-skipped']]);
    assert.match(report.findings[0]!.message, /^1 part holds a tool call or result in a shape the OpenAI Chat/);
    assert.match(textAt(LEGACY, report.findings[0]!.range), /^"function_call": \{/);
  });

  it('a request log repeating the same part in every request counts it once (the carried history is not walked again)', () => {
    const history = [
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: null, function_call: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      { role: 'function', name: 'get_weather', content: '21' },
    ];
    const lines = [1, 2, 3].map((k) => JSON.stringify({ model: 'gpt-3.5-turbo', messages: [...history, ...Array.from({ length: k }, (_, i) => ({ role: 'user', content: `more ${i}` }))] }));
    const report = checkTranscript({ file: 'legacy.jsonl', text: `${lines.join('\n')}\n` }, OPTIONS);
    assert.deepEqual(report.steps.map((s) => s.decision), ['patch', 'patch']);
    assert.deepEqual(report.findings.map((f) => f.message.split(' in a shape')[0]), ['1 part holds a tool call or result']);
  });

  it('files whose tool parts the reader does read get no such finding (the whole corpus, by its verdict table)', () => {
    // corpus.test.ts asserts every corpus file's findings exactly; none of them has this info.
    const report = checkTranscript(inputFromFile(fixture('gemini', 'parallel-calls.requests.jsonl')), OPTIONS);
    assert.deepEqual(report.findings, []);
  });
});

describe('messages walked before: the sets looked up are capped', () => {
  /** Sets that count how often they are looked up. */
  const spies = (n: number) => Array.from({ length: n }, () => ({ lookups: 0, has(this: { lookups: number }) { this.lookups++; return false; } }));
  const message = {} as Parameters<ReturnType<typeof unreadParts>['walked']['has']>[0];

  it('inherited sets (a followed file hands one over at every window): at most eight, the first kept, one handed over again not added', () => {
    const { walked } = unreadParts();
    const sets = spies(50);
    for (const set of sets) {
      walked.inherit(set);
      walked.inherit(set);
    }
    walked.has(message);
    assert.deepEqual(sets.map((s, i) => (s.lookups > 0 ? i : -1)).filter((i) => i >= 0), [0, 43, 44, 45, 46, 47, 48, 49]);
    assert.ok(sets.every((s) => s.lookups <= 1));
  });

  it('a fork of a fork of …: at most eight', () => {
    let { walked } = unreadParts();
    const [first] = spies(1);
    walked.inherit(first!);
    for (let i = 0; i < 30; i++) {
      walked.add({} as typeof message);
      walked = walked.fork();
    }
    walked.has(message);
    assert.equal(first!.lookups, 1, 'the first kept');
  });
});
