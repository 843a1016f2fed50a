/**
 * Request logs that interleave conversations (a sub-agent, a second session
 * through one proxy) are threaded: each request is judged against the last
 * request of the thread it extends the furthest; a request that extends none
 * starts a thread. The thread shows in every output. A registry change is one
 * finding per cause, listing every tool.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { checkTranscript } from '../../src/core/check';
import { anthropicAdapter } from '../../src/core/formats/anthropic';
import { MAX_THREADS } from '../../src/core/formats/threads';
import { toJsonReport } from '../../src/core/report/json';
import { toMarkdown } from '../../src/core/report/markdown';
import { toSarif } from '../../src/core/report/sarif';
import { NO_COLOURS, plainReport } from '../../src/cli/plain';
import { PROVIDERS, fileText, readEvents } from './provider-helpers';

const INTERLEAVED = path.join(PROVIDERS, 'anthropic-log-interleaved.jsonl');

const tool = (name: string) => ({ name, description: `Tool ${name}.`, input_schema: { type: 'object', properties: {} } });
const user = (text: string) => ({ role: 'user', content: text });
const assistant = (text: string) => ({ role: 'assistant', content: [{ type: 'text', text }] });
const line = (system: string, tools: string[], messages: unknown[]) => JSON.stringify({ model: 'm', max_tokens: 10, system, tools: tools.map(tool), messages });

describe('request-log threads: an interleaved sub-agent', () => {
  const text = fileText(INTERLEAVED);
  const report = checkTranscript({ file: INTERLEAVED, text }, { tokens: false });

  it('judges each request within its own conversation: every step a patch, no finding', () => {
    assert.deepEqual(report.findings, []);
    assert.deepEqual(report.steps.map((s) => s.decision), ['patch', 'patch', 'patch', 'patch']);
  });

  it('numbers the threads in order of first appearance and judges each step against its thread', () => {
    assert.deepEqual(report.steps.map((s) => s.thread), [1, 2, 1, 1]);
    const events = readEvents(anthropicAdapter, INTERLEAVED, text);
    const lineOf = (offset: number) => text.slice(0, offset).split('\n').length;
    // The main agent's third request (line 5) is judged against its second (line 2), not the sub-agent's line 4.
    const resumed = events.steps[2]!;
    assert.equal(lineOf(resumed.range!.start), 5);
    assert.equal(lineOf(resumed.before.source!.start), 2);
    assert.equal(resumed.before.tools.length, 13);
  });

  it('shows the thread of each step in the plain, JSON, SARIF and Markdown outputs', () => {
    const plain = plainReport(report, NO_COLOURS);
    assert.ok(plain.includes('step 2/4 thread 2 PATCH request'), plain.join('\n'));
    assert.deepEqual(toJsonReport(report).steps.map((s) => s.thread), [1, 2, 1, 1]);
    const markdown = toMarkdown(report);
    assert.match(markdown, /\| step \| thread \| line \|/);
    assert.match(markdown, /\| 2 \| 2 \| 4 \|/);
    const sarif = toSarif([report], { toolVersion: '0', rulesDocUri: 'https://example.invalid/rules.md' }) as { runs: { properties: { reports: { steps: { thread?: number }[] }[] } }[] };
    assert.deepEqual(sarif.runs[0]!.properties.reports[0]!.steps.map((s) => s.thread), [1, 2, 1, 1]);
  });

  it('a single-conversation log shows no thread column or label', () => {
    const single = [line('S', ['a'], [user('q')]), line('S', ['a'], [user('q'), assistant('x'), user('r')])].join('\n');
    const one = checkTranscript({ file: 'one.jsonl', text: single }, { tokens: false });
    assert.deepEqual(one.steps.map((s) => s.thread), [1]);
    assert.ok(plainReport(one, NO_COLOURS).includes('step 1/1 PATCH request'));
    assert.doesNotMatch(toMarkdown(one), /thread/);
  });
});

describe('request-log threads: which thread a request continues', () => {
  it('a request that drops consumed history of its own thread is still judged (same first message)', () => {
    const lines = [line('S', ['a'], [user('q')]), line('S', ['a'], [user('q'), assistant('x'), user('r')]), line('S', ['a'], [user('q'), user('r2')])];
    const report = checkTranscript({ file: 'cut.jsonl', text: lines.join('\n') }, { tokens: false });
    assert.deepEqual(report.steps.map((s) => s.thread), [1, 1]);
    assert.notEqual(report.steps[1]!.decision, 'patch');
  });

  it('a patched system prompt continues its conversation and is judged (system messages do not decide the thread)', () => {
    const lines = [line('S1', ['a'], [user('q')]), line('S2', ['a'], [user('q'), assistant('x'), user('r')])];
    const report = checkTranscript({ file: 'system.jsonl', text: lines.join('\n') }, { tokens: false });
    assert.deepEqual(report.steps.map((s) => [s.thread, s.decision]), [[1, 'defer']]);
    assert.deepEqual(report.steps[0]!.rules, ['prefix-mutated']);
  });

  it('a new session with the same system prompt and tools starts a thread; so does a retry that adds nothing', () => {
    const lines = [line('S', ['a'], [user('q')]), line('S', ['a'], [user('another task')]), line('S', ['a'], [user('q')])];
    const report = checkTranscript({ file: 'sessions.jsonl', text: lines.join('\n') }, { tokens: false });
    assert.deepEqual(report.steps, []);
  });

  it('a request that shares neither its first message nor its tools starts a thread: no step', () => {
    const lines = [line('S1', ['a'], [user('q')]), line('S2', ['b'], [user('other')])];
    const report = checkTranscript({ file: 'two.jsonl', text: lines.join('\n') }, { tokens: false });
    assert.deepEqual(report.steps, []);
  });

  it('continues the thread it extends the furthest, among threads sharing its opening', () => {
    const a = [user('q'), assistant('a1'), user('a2')];
    const b = [user('q'), assistant('b1'), user('b2')];
    const lines = [line('S', ['t'], [user('q')]), line('S', ['t'], a), line('S', ['x'], b), line('S', ['t'], [...a, assistant('a3'), user('a4')])];
    const report = checkTranscript({ file: 'fork.jsonl', text: lines.join('\n') }, { tokens: false });
    // Line 3 forks from line 2 (shares 2 messages): same thread, judged; line 4 extends line 2's history, not line 3's.
    assert.deepEqual(report.steps.map((s) => s.thread), [1, 1, 1]);
    const events = readEvents(anthropicAdapter, 'fork.jsonl', lines.join('\n'));
    assert.equal(events.steps[2]!.before.messages.length, events.steps[1]!.after.messages.length);
  });

  it(`remembers at most ${MAX_THREADS} threads: a request of a forgotten one starts anew`, () => {
    const lines = Array.from({ length: MAX_THREADS + 1 }, (_, i) => line(`S${i}`, [`t${i}`], [user(`q${i}`)]));
    lines.push(line('S0', ['t0'], [user('q0'), assistant('x'), user('r')]), line(`S${MAX_THREADS}`, [`t${MAX_THREADS}`], [user(`q${MAX_THREADS}`), assistant('y'), user('z')]));
    const report = checkTranscript({ file: 'many.jsonl', text: lines.join('\n') }, { tokens: false });
    assert.deepEqual(report.steps.map((s) => s.thread), [MAX_THREADS + 1]);
  });
});

describe('prefix-mutated: one finding per cause', () => {
  it('twelve tools removed at once are one finding that names them all', () => {
    const names = Array.from({ length: 13 }, (_, i) => `tool_${i + 1}`);
    const lines = [line('S', names, [user('q')]), line('S', ['tool_1'], [user('q'), assistant('x'), user('r')])];
    const report = checkTranscript({ file: 'tools.jsonl', text: lines.join('\n') }, { tokens: false });
    const removed = report.findings.filter((f) => f.rule === 'prefix-mutated');
    assert.equal(removed.length, 1);
    assert.match(removed[0]!.message, /^12 tools were removed from the registry/);
    for (const name of names.slice(1)) assert.ok(removed[0]!.message.includes(`"${name}"`), name);
    assert.equal(removed[0]!.related?.length, 12);
  });

  it('one tool removed keeps the singular message', () => {
    const lines = [line('S', ['a', 'b'], [user('q')]), line('S', ['a'], [user('q'), assistant('x'), user('r')])];
    const report = checkTranscript({ file: 'tool.jsonl', text: lines.join('\n') }, { tokens: false });
    assert.deepEqual(report.findings.map((f) => f.message), ['Tool "b" was removed from the registry the model has read (tools render first)']);
  });
});
