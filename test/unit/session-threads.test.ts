/**
 * Conversations of one file (`ThreadInfo`, core/file-threads.ts) and how the
 * session view nests them: Claude Code side-chains written into a session
 * (the shape older Claude Code versions write: `isSidechain` lines, with or
 * without `agentId`, after a Task call), a request log's threads, Inspect
 * samples; and the one-thread filter. Fixtures written here in those shapes;
 * real corpus files for the cases the corpus holds.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { checkTranscript } from '../../src/core/check';
import { MAX_KEPT, ThreadTally } from '../../src/core/file-threads';
import { inputFromFile, inputFromText } from '../../src/core/io';
import type { ContextWindow } from '../../src/core/model';
import { toJsonReport } from '../../src/core/report/json';
import { sessionView } from '../../src/extension/session-view/view';
import type { TimelineRow } from '../../src/shared/session-protocol';
import { nextPosition, visibleRows } from '../../webview/session/navigate';
import { CORPUS } from '../support/corpus';

const FIXTURES = path.join(__dirname, '..', 'fixtures');
const check = (file: string) => checkTranscript(inputFromFile(file), { tokens: false, keepRewrites: true });
type Row = TimelineRow;
const text = (r: Row) => (r.kind === 'message' ? r.text : '');

describe('Claude Code side-chains in the session file', () => {
  const file = path.join(FIXTURES, 'claude-code/inline-side-chains.jsonl');

  it('each side-chain is a conversation of its own, checked on its own, linked to the Task call that started it', () => {
    const report = check(file);
    assert.deepEqual(report.findings, [], 'a clean session with two sub-agents stays clean');
    const s = report.session!;
    assert.deepEqual(
      s.threads?.map((t) => [t.id, t.kind, t.label, t.parentCall, t.messages, t.pairs.paired]),
      [
        [1, 'main', 'main', undefined, 4, 2],
        [2, 'side-chain', 'sub-agent Explore', 'toolu_task_1', 4, 1],
        [3, 'side-chain', 'sub-agent general-purpose (a7f3c21)', 'toolu_task_2', 4, 1],
      ],
    );
    assert.deepEqual(s.pairs, { paired: 4, pending: 0, orphaned: 0 }, 'the header counts every conversation');
    assert.equal(s.messages, 12);
    assert.equal(report.finalWindow?.messages.length, 4, 'the main conversation stays the file’s last window (inspector, fixes)');
    assert.deepEqual(toJsonReport(report).session?.threads?.map((t) => t.label), ['main', 'sub-agent Explore', 'sub-agent general-purpose (a7f3c21)']);
  });

  it('before: side-chain lines were dropped unread; a side-chain that breaks its pairing is now a finding at its own line', () => {
    const lines = (inputFromFile(file).text()).split('\n');
    // Drop the side-chain's tool result line (uuid s3) and re-chain s4 to s2: its Grep call is answered by nothing.
    const broken = lines.filter((l) => !l.includes('"uuid":"s3"')).map((l) => l.replace('"parentUuid":"s3"', '"parentUuid":"s2"')).join('\n');
    const report = checkTranscript(inputFromText('broken.jsonl', broken), { tokens: false });
    const orphan = report.findings.find((f) => f.rule === 'tool-use-orphaned');
    assert.ok(orphan, JSON.stringify(report.findings.map((f) => f.rule)));
    assert.equal(orphan.toolCallId, 'toolu_grep_1');
    assert.ok(broken.slice(orphan.range.start, orphan.range.end).includes('toolu_grep_1'));
  });

  it('the view nests each side-chain under the call that started it, linked both ways', () => {
    const view = sessionView(check(file), true);
    assert.deepEqual(view.threads.map((t) => t.label), ['main', 'sub-agent Explore', 'sub-agent general-purpose (a7f3c21)']);
    const headers = view.rows.flatMap((r, i) => (r.kind === 'thread' ? [i] : []));
    assert.equal(headers.length, 2);
    const callRow = view.rows.findIndex((r) => r.kind === 'message' && r.tools.some((t) => t.id === 'toolu_task_1'));
    assert.equal(headers[0], callRow + 1, 'the first sub-agent right after the call that started it');
    for (const h of headers) {
      const header = view.rows[h]!;
      assert.ok(header.kind === 'thread' && header.parentRow === callRow);
      const call = view.rows[callRow]!;
      assert.ok(call.kind === 'message' && call.tools.some((t) => t.threadRow === h), 'the call links to its thread');
    }
    const nested = view.rows.slice(headers[0]! + 1, headers[1]);
    assert.ok(nested.length === 4 && nested.every((r) => r.thread === 2));
    assert.equal(text(nested[0]!), 'Find where the config file is read and report the function name.');
    const grep = nested.find((r) => r.kind === 'message' && r.tools.some((t) => t.role === 'call' && t.id === 'toolu_grep_1'))!;
    assert.ok(grep.kind === 'message' && view.rows[grep.tools[0]!.partner!]?.thread === 2, 'a side-chain’s pairs link within it');
    const last = view.rows[view.rows.length - 1]!;
    assert.ok(last.kind === 'message' && last.thread === undefined && /readConfig/.test(last.text), 'the main conversation continues after them');
  });

  it('the one-thread filter keeps one conversation (its header included); next turn stays inside it', () => {
    const view = sessionView(check(file), true);
    const only = visibleRows(view.rows, { problems: false, thread: 3 });
    assert.equal(only.length, 5);
    assert.ok(only.every((i) => (view.rows[i]!.thread ?? 1) === 3));
    assert.equal(view.rows[only[0]!]!.kind, 'thread');
    const main = visibleRows(view.rows, { problems: false, thread: 1 });
    assert.equal(main.length, 4);
    assert.ok(main.every((i) => view.rows[i]!.thread === undefined));
    const turn = nextPosition(view.rows, only, 0, 'turn', 1);
    assert.equal(text(view.rows[only[turn]!]!), 'List the test files.');
    assert.deepEqual(visibleRows(view.rows, { problems: false, thread: 3, tool: 'Grep' }), [], 'filters combine');
  });

  it('a file of side-chain lines only (a sub-agent file) is its own main conversation: not threaded', () => {
    const report = check(path.join(CORPUS, 'claude-code/spotter_agent-acompact-e1f845.jsonl'));
    assert.equal(report.session?.threads, undefined);
    assert.equal(report.threadWindows, undefined);
    assert.deepEqual(sessionView(report, true).threads, []);
  });
});

describe("a request log's threads", () => {
  it('each thread is a conversation: its rows nested, its steps with it, counted in the header', () => {
    const report = check(path.join(FIXTURES, 'providers/anthropic-log-interleaved.jsonl'));
    const s = report.session!;
    assert.deepEqual(s.threads?.map((t) => [t.id, t.label]), [[1, 'thread 1'], [2, 'thread 2']]);
    assert.equal(s.pairs.paired, s.threads!.reduce((n, t) => n + t.pairs.paired, 0));
    const view = sessionView(report, true);
    const header = view.rows.findIndex((r) => r.kind === 'thread');
    assert.ok(header >= 0);
    const second = view.rows.filter((r) => r.thread === 2);
    assert.ok(second.some((r) => r.kind === 'message' && /sub-agent/.test(r.text)), 'the sub-agent thread’s own messages');
    assert.deepEqual(report.steps.map((x) => [x.index, x.thread]), [[1, 1], [2, 2], [3, 1], [4, 1]], 'the sub-agent’s step is thread 2');
    const steps = view.rows.filter((r): r is Extract<Row, { kind: 'step' }> => r.kind === 'step');
    assert.deepEqual(steps.map((x) => [x.index, x.thread ?? 1]), [[1, 1], [2, 2], [3, 1], [4, 1]], 'each step row nested with its thread');
    assert.deepEqual(view.threads.map((t) => t.id), [1, 2]);
  });

  it('a single conversation is not threaded: no thread rows, no filter', () => {
    const view = sessionView(check(path.join(CORPUS, 'claude-code/spotter_tool_heavy.jsonl')), true);
    assert.deepEqual(view.threads, []);
    assert.ok(view.rows.every((r) => r.kind !== 'thread' && r.thread === undefined));
  });
});

describe('ThreadTally is bounded', () => {
  it(`holds the last windows of at most ${MAX_KEPT} threads; older ones keep their counts`, () => {
    const tally = new ThreadTally();
    const window = (n: number): ContextWindow => ({ format: 'anthropic', tools: [], messages: Array.from({ length: n }, () => ({ role: 'user' as const, blocks: [{ kind: 'text' as const, text: 'x' }] })), boundary: n, live: false });
    for (let id = 1; id <= MAX_KEPT + 10; id++) tally.see(window(id % 3 + 1), { id, kind: id === 1 ? 'main' : 'thread', label: `thread ${id}` });
    assert.equal(tally.windows().length, MAX_KEPT);
    const summaries = tally.summaries();
    assert.equal(summaries.length, MAX_KEPT + 10);
    assert.equal(summaries[0]!.messages, 2, 'an evicted thread keeps its counts');
    assert.equal(summaries[0]!.turns, 2);
  });
});
