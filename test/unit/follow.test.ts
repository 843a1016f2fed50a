/**
 * Following a growing file (src/core/follow.ts): the report after each append
 * equals `checkTranscript` of the same text, for random split points, on every
 * format a writer appends to (request logs of each provider, Claude Code
 * sessions, Codex rollouts, native traces), real corpus files included; a
 * truncated or replaced file starts over; only the new lines are read.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it, mock } from 'node:test';
import fc from 'fast-check';
import { checkTranscript, checkTranscriptWith, UnknownFormatError } from '../../src/core/check';
import { conversationEvents } from '../../src/core/formats/claude-code/events';
import { RecordReader } from '../../src/core/formats/claude-code/records';
import { splitSideChains } from '../../src/core/formats/claude-code/side-chains';
import { SessionWalk } from '../../src/core/formats/claude-code/tree';
import { findingEvent } from '../../src/core/formats/common';
import { Follower, type FollowOptions } from '../../src/core/follow';
import { adapterFor } from '../../src/core/formats/registry';
import type { SourceLine } from '../../src/core/text';
import type { FormatAdapter, LineReader } from '../../src/core/transcript';
import { CORPUS } from '../support/corpus';

const repo = (...parts: string[]) => path.resolve(__dirname, '..', '..', ...parts);
const corpus = (folder: string, name: string) => path.join(CORPUS, folder, name);

/** One file per format that grows by appends (the corpus has no Bedrock log: a fixture stands in). */
const GROWING: readonly { readonly format: string; readonly file: string }[] = [
  { format: 'anthropic', file: corpus('anthropic-messages', 'pydanticai_test_multiple_parallel_tool_calls.requests.jsonl') },
  { format: 'anthropic', file: corpus('anthropic-messages', 'pydanticai_test_anthropic_compaction_round_trip.requests.jsonl') },
  { format: 'anthropic', file: repo('test/fixtures/providers/anthropic-log-invalid-line.jsonl') },
  { format: 'anthropic', file: repo('test/fixtures/providers/anthropic-log-interleaved.jsonl') },
  { format: 'openai-chat', file: corpus('openai-chat', 'pydanticai_test_multiple_agent_tool_calls.requests.jsonl') },
  { format: 'openai-responses', file: corpus('openai-responses', 'pydanticai_test_openai_conversation_id_tool_call_continuation.requests.jsonl') },
  { format: 'openai-responses', file: repo('test/fixtures/providers/openai-responses-log-chain.jsonl') },
  { format: 'gemini', file: corpus('gemini-api', 'crewai_test_gemini_tool_returning_float.requests.jsonl') },
  { format: 'gemini', file: repo('test/fixtures/gemini/parallel-calls.requests.jsonl') },
  { format: 'bedrock', file: repo('test/fixtures/bedrock/tool-run.requests.jsonl') },
  { format: 'claude-code', file: corpus('claude-code', 'ccl_dag_compact_after_rewind_preserved.jsonl') },
  { format: 'claude-code', file: corpus('claude-code', 'spotter_agent-acompact-e1f845.jsonl') },
  { format: 'claude-code', file: corpus('claude-code', 'spotter_tool_heavy.jsonl') },
  { format: 'claude-code', file: repo('test/fixtures/claude-code/inline-side-chains.jsonl') },
  { format: 'claude-code', file: repo('test/fixtures/claude-code/compact-orphans-result.jsonl') },
  { format: 'codex', file: corpus('codex', 'localpush_rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl') },
  { format: 'codex', file: corpus('codex', 'ccl_rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl') },
  { format: 'native', file: repo('examples/seed-incident.trace.jsonl') },
  { format: 'native', file: repo('examples/whole-pair-compaction.trace.jsonl') },
  { format: 'native', file: repo('test/fixtures/native/ranges.trace.jsonl') },
];

/** What `checkTranscript` gives, or the error it throws (an unrecognised head). */
function full(file: string, text: string, options: FollowOptions): unknown {
  try {
    return checkTranscript({ file, text }, options);
  } catch (error) {
    if (error instanceof UnknownFormatError) return { unknown: error.message };
    throw error;
  }
}

function followed(follower: Follower, more: string): unknown {
  try {
    return follower.append(more);
  } catch (error) {
    if (error instanceof UnknownFormatError) return { unknown: error.message };
    throw error;
  }
}

/** Appends `text` in pieces cut at `cuts`, comparing each report with a full check of the text so far. */
function assertFollowsLikeFull(file: string, text: string, cuts: readonly number[], options: FollowOptions, everyStep = true): void {
  const follower = new Follower(file, options);
  const points = [...new Set(cuts.map((c) => Math.min(c, text.length)))].sort((a, b) => a - b);
  let at = 0;
  for (const [i, cut] of [...points, text.length].entries()) {
    const last = i === points.length;
    const report = followed(follower, text.slice(at, cut));
    at = cut;
    if (everyStep || last) assert.deepEqual(report, full(file, text.slice(0, cut), options), `after the append ending at ${cut} of ${text.length}`);
  }
  assert.equal(follower.position, text.length);
}

/**
 * The Claude Code reader as it was before it walked line by line: every record
 * read, then the whole file walked at the end. The line-by-line reader must
 * give the same report.
 */
const wholeWalk: FormatAdapter = {
  ...(adapterFor('claude-code') as FormatAdapter),
  *read(input) {
    const records = new RecordReader();
    for (const line of input.lines()) {
      const { finding } = records.line(line);
      if (finding) yield findingEvent(finding);
    }
    const read = records.end([]);
    yield* read.findings.map(findingEvent);
    const { main, sideChains } = splitSideChains(read.records);
    const messages = new WeakMap();
    yield* conversationEvents(main, undefined, messages);
    for (const chain of sideChains) yield* conversationEvents(chain.records, chain.thread, messages);
  },
};

/** A Claude Code text followed (cut at `cuts`) and checked whole both give the report of the whole-file walk. */
function assertWalksLikeWhole(file: string, text: string, cuts: readonly number[]): void {
  const options = { tokens: false as const, keepRewrites: true };
  for (const cut of cuts) assert.deepEqual(checkTranscript({ file, text: text.slice(0, cut) }, options), checkTranscriptWith(wholeWalk, { file, text: text.slice(0, cut) }, options), `the text up to ${cut}`);
  assertFollowsLikeFull(file, text, cuts, options);
}

/** The offset just past each line end. */
const lineEnds = (text: string) => [...text.matchAll(/\n/g)].map((m) => (m.index ?? 0) + 1);

/** Hand-made Claude Code lines (shapes of the corpus sessions). */
const line = (o: Record<string, unknown>) => `${JSON.stringify({ isSidechain: false, userType: 'external', sessionId: 's', ...o })}\n`;
const side = (o: Record<string, unknown>) => line({ ...o, isSidechain: true });
const user = (uuid: string, parentUuid: string | null, text: string, extra: Record<string, unknown> = {}) => line({ type: 'user', uuid, parentUuid, message: { role: 'user', content: text }, ...extra });
const assistant = (uuid: string, parentUuid: string, id: string, content: unknown[], extra: Record<string, unknown> = {}) => line({ type: 'assistant', uuid, parentUuid, message: { id, role: 'assistant', content }, ...extra });
const call = (id: string) => ({ type: 'tool_use', id, name: 'Read', input: { file_path: `/w/${id}` } });
const result = (id: string) => ({ type: 'tool_result', tool_use_id: id, content: 'ok' });

/** A compaction's preserved messages written after it (the main walk diverges at lines 7 and 8). */
const preservedLater = [
  user('u1', null, 'old question'),
  assistant('a1', 'u1', 'msg_1', [call('t1')]),
  line({ type: 'system', subtype: 'compact_boundary', uuid: 'cb', parentUuid: null, compactMetadata: { preservedMessages: { uuids: ['p1', 'p2'] } } }),
  user('cs', 'cb', 'Summary.', { isCompactSummary: true }),
  user('u2', 'cs', 'next question'),
  assistant('a2', 'u2', 'msg_2', [call('t2')]),
  user('p1', 'a2', 'preserved question'),
  assistant('p2', 'p1', 'msg_3', [{ type: 'text', text: 'preserved answer' }]),
  user('r2', 'a2', '', { message: { role: 'user', content: [result('t2')] } }),
  user('u3', 'r2', 'more'),
].join('');

/** A Task call, then its side chain with a parent written after its child (the keys are not exact at line 3). */
const sideParentLater = [
  user('m1', null, 'main question'),
  assistant('m2', 'm1', 'msg_m', [{ type: 'tool_use', id: 'task1', name: 'Task', input: { prompt: 'look around', subagent_type: 'explorer' } }]),
  side({ type: 'assistant', uuid: 's2', parentUuid: 's1', message: { id: 'msg_s', role: 'assistant', content: [call('t9')] } }),
  side({ type: 'user', uuid: 's1', parentUuid: null, message: { role: 'user', content: 'look around' } }),
  side({ type: 'user', uuid: 's3', parentUuid: 's2', message: { role: 'user', content: [result('t9')] } }),
].join('');

const cutsOf = (length: number, max: number) => fc.array(fc.integer({ min: 0, max: length }), { minLength: 1, maxLength: max });

describe('following a growing file reads only what is new and reports what a full check reports', () => {
  for (const { format, file } of GROWING) {
    const name = `${format}: ${path.relative(repo(), file).replace(/^\.\.\/shared\//, '')}`;
    it(`${name}, cut at random points`, () => {
      const text = fs.readFileSync(file, 'utf8');
      assert.equal(checkTranscript({ file, text }).format, format, 'the file is of the format it stands for');
      const small = text.length < 40_000;
      fc.assert(
        fc.property(cutsOf(text.length, small ? 6 : 3), (cuts) => assertFollowsLikeFull(file, text, cuts, { tokens: small ? 'o200k_base' : false }, small)),
        { numRuns: small ? 12 : 3, seed: 15 },
      );
    });
  }

  // An agent appends whole lines: cut at line ends, each append is walked on from the last (no half-written line to read again).
  const claudeCode = [...fs.readdirSync(path.join(CORPUS, 'claude-code')).map((name) => corpus('claude-code', name)), ...GROWING.filter((g) => g.format === 'claude-code' && !g.file.startsWith(CORPUS)).map((g) => g.file)];
  for (const file of claudeCode) {
    it(`claude-code: ${path.basename(file)}, cut at random line ends`, () => {
      const text = fs.readFileSync(file, 'utf8');
      const ends = lineEnds(text);
      fc.assert(
        fc.property(fc.array(fc.constantFrom(...ends), { minLength: 1, maxLength: 8 }), (cuts) => assertWalksLikeWhole(file, text, cuts)),
        { numRuns: 4, seed: 15 },
      );
    });
  }

  it('claude-code: lines that change what was walked before them (a preserved message written after its compaction, a side-chain parent written after its child, a uuid written twice), cut at every line end', () => {
    const sideChains = [
      sideParentLater,
      side({ type: 'user', uuid: 'k1', parentUuid: null, message: { role: 'user', content: 'other agent' } }),
      side({ type: 'user', uuid: 'k1', parentUuid: null, message: { role: 'user', content: 'other agent again' } }),
      user('m3', 'm2', '', { message: { role: 'user', content: [result('task1')] } }),
      user('m4', 'm3', 'thanks'),
    ].join('');
    // Preserved messages written before the boundary and again after the summary; a model output's second line after its first call's result.
    const preservedAgain = [
      user('u1', null, 'old question'),
      assistant('a1', 'u1', 'msg_1', [{ type: 'text', text: 'old answer' }]),
      user('u2', 'a1', 'recent question'),
      assistant('a2', 'u2', 'msg_2', [{ type: 'text', text: 'recent answer' }]),
      line({ type: 'system', subtype: 'compact_boundary', uuid: 'cb', parentUuid: null, compactMetadata: { preservedMessages: { uuids: ['u2', 'a2'] } } }),
      user('cs', 'cb', 'Summary.', { isCompactSummary: true }),
      user('u2', 'cs', 'recent question'),
      assistant('a2', 'u2', 'msg_2', [{ type: 'text', text: 'recent answer' }]),
      user('u3', 'a2', 'next question'),
      assistant('a3', 'u3', 'msg_3', [call('t3')]),
      user('r3', 'a3', '', { message: { role: 'user', content: [result('t3')] } }),
      assistant('a4', 'a3', 'msg_3', [call('t4')]),
      user('r4', 'a4', '', { message: { role: 'user', content: [result('t4')] } }),
      user('m4', 'r4', 'reminder', { isMeta: true }),
      user('u5', 'm4', 'last question'),
    ].join('');
    for (const [name, text] of [['preserved-later.jsonl', preservedLater], ['side-chains.jsonl', sideChains], ['preserved-again.jsonl', preservedAgain]] as const) {
      const ends = lineEnds(text);
      assertWalksLikeWhole(name, text, ends);
      for (let i = 0; i < ends.length; i++) assertWalksLikeWhole(name, text, [ends[i]!, ends[(i * 5 + 3) % ends.length]!]);
    }
  });

  it('claude-code: once a line changed what was walked before it, the walks go on from the whole-file walk: each later append walks only its own line', () => {
    /** `n` plain turns after `parent` (a call, its result, a prompt), uuids prefixed by `tag`. */
    const turns = (n: number, parent: string, tag: string, extra: Record<string, unknown> = {}) =>
      Array.from({ length: n }, (_, i) => {
        const [a, r, u] = [`${tag}a${i}`, `${tag}r${i}`, `${tag}u${i}`];
        const prompt = i === 0 ? parent : `${tag}u${i - 1}`;
        return [assistant(a, prompt, `msg_${a}`, [call(`${tag}c${i}`)], extra), user(r, a, '', { message: { role: 'user', content: [result(`${tag}c${i}`)] }, ...extra }), user(u, r, `question ${i}`, extra)].join('');
      }).join('');
    const sideLine = { isSidechain: true };
    const texts = {
      'preserved-later.jsonl': preservedLater + turns(40, 'u3', 'm'),
      // The side chain of sideParentLater goes on, then the main conversation.
      'side-parent-later.jsonl': [
        sideParentLater,
        turns(20, 's3', 's', sideLine),
        user('m3', 'm2', '', { message: { role: 'user', content: [result('task1')] } }),
        user('m4', 'm3', 'thanks'),
        turns(20, 'm4', 'm'),
      ].join(''),
      // A sub-agent's own file (side-chain lines only) with a parent written again after its child (line 3).
      'agent-parent-again.jsonl': [
        side({ type: 'user', uuid: 'k1', parentUuid: null, message: { role: 'user', content: 'look around' } }),
        side({ type: 'user', uuid: 'k2', parentUuid: 'k1', message: { role: 'user', content: 'and here' } }),
        side({ type: 'user', uuid: 'k1', parentUuid: null, message: { role: 'user', content: 'look around again' } }),
        turns(40, 'k2', 'k', sideLine),
      ].join(''),
    };
    const options = { tokens: false as const, keepRewrites: true };
    for (const [name, text] of Object.entries(texts)) {
      const lines = text.split(/(?<=\n)/);
      const follower = new Follower(name, options);
      const walked: number[] = [];
      const reports: unknown[] = [];
      const add = mock.method(SessionWalk.prototype, 'add');
      try {
        for (const next of lines) {
          const before = add.mock.callCount();
          reports.push(follower.append(next));
          walked.push(add.mock.callCount() - before);
        }
      } finally {
        add.mock.restore();
      }
      // The append of a line that changes what was walked walks it and every line before it again (once); from the tenth line on, only the appended line is walked.
      const head = walked.slice(0, 10);
      assert.ok(head.some((count, i) => count === i + 2), `${name}: a line among the first ten is walked with all before it again (${head.join(' ')})`);
      assert.deepEqual(walked.slice(10), Array(lines.length - 10).fill(1), `${name}: each append after them walks its own line only`);
      for (const [i, report] of reports.entries()) {
        const prefix = lines.slice(0, i + 1).join('');
        assert.deepEqual(report, checkTranscriptWith(wholeWalk, { file: name, text: prefix }, options), `${name}: the report after line ${i + 1}`);
      }
    }
  });

  it('claude-code: random side-chain and main lines (parents written before or after, uuids written twice, agent ids, cycles), cut at every line end', () => {
    const uuid = fc.constantFrom('x0', 'x1', 'x2', 'x3');
    const record = fc.record({
      sidechain: fc.boolean(),
      uuid: fc.option(uuid, { nil: undefined }),
      parent: fc.option(uuid, { nil: null }),
      agent: fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: fc.constantFrom('ag1', 'ag2'), weight: 1 }),
      role: fc.constantFrom('user', 'assistant'),
      id: fc.constantFrom('msg_a', 'msg_b', 'msg_c'),
    });
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 10 }), (records) => {
        const text = records
          .map((r, i) => {
            const message = r.role === 'user' ? { role: 'user', content: `text ${i}` } : { id: r.id, role: 'assistant', content: [{ type: 'text', text: `answer ${i}` }] };
            return line({ type: r.role, uuid: r.uuid, parentUuid: r.parent, isSidechain: r.sidechain, ...(r.agent && { agentId: r.agent }), message });
          })
          .join('');
        assertWalksLikeWhole('random.jsonl', text, lineEnds(text));
      }),
      { numRuns: 100, seed: 15 },
    );
  });

  it('every format that grows by appends has a line reader; whole-document formats have none', () => {
    for (const id of ['anthropic', 'openai-chat', 'openai-responses', 'gemini', 'bedrock', 'claude-code', 'codex', 'native']) {
      assert.ok(adapterFor(id)?.lineReader, id);
    }
    for (const id of ['gemini-cli', 'otel', 'inspect']) assert.equal(adapterFor(id)?.lineReader, undefined, id);
  });

  it('hostile shapes: CRLF, a byte order mark, blank lines, a half-written last line, bad JSON, a cut inside a line', () => {
    const lines = fs.readFileSync(repo('examples/seed-incident.trace.jsonl'), 'utf8').split(/(?<=\n)/);
    const text = `\uFEFF${lines[0]}\r\n\n${lines.slice(1).join('').replace(/\n/g, '\r\n')}{"type":"append","mess\n{"type":"append","messages":[]}`;
    fc.assert(
      fc.property(cutsOf(text.length, 8), (cuts) => assertFollowsLikeFull('hostile.trace.jsonl', text, cuts, {})),
      { numRuns: 40, seed: 15 },
    );
  });

  it('limits: a line over maxLineChars and a text over maxTextBytes stop the read where a full check stops', () => {
    const text = fs.readFileSync(repo('examples/seed-incident.trace.jsonl'), 'utf8');
    const longest = Math.max(...text.split('\n').map((l) => l.length));
    assertFollowsLikeFull('a.trace.jsonl', text, [10, 200, 500], { limits: { maxLineChars: longest - 1 } });
    const follower = new Follower('a.trace.jsonl', { maxTextBytes: 600 });
    const report = follower.append(text.slice(0, 300));
    assert.equal(report.stopped, undefined);
    const stopped = follower.append(text.slice(300));
    assert.match(stopped.stopped?.reason ?? '', /larger than the maxFileBytes limit/);
    assert.ok(stopped.findings.some((f) => f.rule === 'record-skipped' && f.severity === 'error'));
  });

  it('a file whose format shows only once its head grows starts over as that format', () => {
    const session = fs.readFileSync(corpus('claude-code', 'ccl_dag_compact_after_rewind_preserved.jsonl'), 'utf8');
    const text = `${'\n'.repeat(3)}${session}`;
    fc.assert(
      fc.property(cutsOf(text.length, 6), (cuts) => assertFollowsLikeFull('session.jsonl', text, cuts, {})),
      { numRuns: 15, seed: 15 },
    );
  });

  it('a request log read as one JSON document (a .json name) is checked whole each time', () => {
    const file = repo('test/fixtures/providers/anthropic-log-interleaved.jsonl');
    const text = fs.readFileSync(file, 'utf8');
    assertFollowsLikeFull('log.json', text, [text.length >> 1], {});
  });

  it('restart: a truncated or replaced file is read again from the start', () => {
    const trace = fs.readFileSync(repo('examples/seed-incident.trace.jsonl'), 'utf8');
    const other = fs.readFileSync(repo('examples/whole-pair-compaction.trace.jsonl'), 'utf8');
    const follower = new Follower('f.trace.jsonl');
    follower.append(trace);
    follower.restart();
    assert.equal(follower.position, 0);
    assert.deepEqual(follower.append(other), checkTranscript({ file: 'f.trace.jsonl', text: other }));
  });

  it('each line is read once, however many appends: the reader never sees a line again', () => {
    const file = corpus('claude-code', 'spotter_tool_heavy.jsonl');
    const text = fs.readFileSync(file, 'utf8');
    const adapter = adapterFor('claude-code');
    const lineReader = adapter?.lineReader;
    assert.ok(adapter && lineReader);
    const seen: number[] = [];
    // Forks read only the half-written last line and the end: count the lines the followed reader itself reads.
    const counting = (reader: LineReader): LineReader => ({ line: (line: SourceLine) => (seen.push(line.offset), reader.line(line)), end: () => reader.end(), fork: () => reader.fork() });
    const follower = new Follower(file, { tokens: false, adapter: { ...adapter, lineReader: (f, first) => counting(lineReader(f, first) as LineReader) } });
    const lines = text.split(/(?<=\n)/);
    for (let i = 0; i < lines.length; i += 7) follower.append(lines.slice(i, i + 7).join(''));
    assert.equal(seen.length, new Set(seen).size, 'no line read twice');
    assert.equal(seen.length, text.split('\n').filter((l) => l !== '').length);
  });
});
