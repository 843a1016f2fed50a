/**
 * The session view's logic: the snapshot built from a report (timeline in
 * file order, steps where they happen, pairs linked both ways, findings at
 * their message) and the webview's filters and keys, on real corpus files.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { checkTranscript } from '../../src/core/check';
import { inputFromFile } from '../../src/core/io';
import { sessionView, TOOL_CAP } from '../../src/extension/session-view/view';
import { parseSessionWebviewMessage, type TimelineRow } from '../../src/shared/session-protocol';
import { keyTarget, nextPosition, sizeText, visibleRows, windowOf } from '../../webview/session/navigate';
import { CORPUS } from '../support/corpus';

const viewOf = (file: string) => sessionView(checkTranscript(inputFromFile(path.join(CORPUS, file)), { keepRewrites: true, tokens: false }), true);
type MessageRow = Extract<TimelineRow, { kind: 'message' }>;
const messages = (rows: readonly TimelineRow[]) => rows.filter((r): r is MessageRow => r.kind === 'message');

describe('session view snapshot', () => {
  it('a clean Claude Code session: every call linked to its result and back, no step, text with real line breaks', () => {
    const view = viewOf('claude-code/spotter_tool_heavy.jsonl');
    assert.equal(view.rows.filter((r) => r.kind === 'step').length, 0);
    const calls = messages(view.rows).flatMap((r, i) => r.tools.filter((t) => t.role === 'call').map((t) => ({ t, i })));
    assert.equal(calls.length, 6);
    for (const { t } of calls) {
      assert.equal(t.state, 'paired');
      const partner = view.rows[t.partner!];
      assert.ok(partner?.kind === 'message');
      const result = partner.tools.find((x) => x.id === t.id && x.role === 'result');
      assert.ok(result, `the result of ${t.id} is at its partner row`);
      assert.equal(view.rows[result.partner!], view.rows.find((r) => r.kind === 'message' && r.tools.includes(t)), 'and links back to the call');
    }
    assert.deepEqual(view.tools, ['Bash', 'Glob', 'Read', 'WebFetch', 'WebSearch']);
    assert.equal(view.problems, 0);
    assert.ok(messages(view.rows).some((r) => r.text.includes('\n')), 'line breaks are real characters, not \\n escapes');
    const starts = view.rows.map((r) => r.range?.start ?? -1);
    assert.deepEqual(starts, [...starts].sort((a, b) => a - b), 'file order');
  });

  it('a compaction: the step sits before the summary, the history it dropped stays in the timeline, its finding at the step', () => {
    const view = viewOf('claude-code/spotter_4d5611e5-241a-462a-8d15-5122611a9569.excerpt-L742-L790.jsonl');
    const stepAt = view.rows.findIndex((r) => r.kind === 'step');
    assert.ok(stepAt > 0);
    const step = view.rows[stepAt]!;
    assert.ok(step.kind === 'step' && step.decision === 'defer' && step.rules.includes('prefix-mutated'));
    assert.ok(step.findings.some((f) => f.rule === 'prefix-mutated'));
    const before = messages(view.rows.slice(0, stepAt));
    assert.ok(before.length > 0 && before.every((r) => r.dropped), 'the history before the compaction is shown, marked dropped');
    const after = messages(view.rows.slice(stepAt + 1));
    assert.ok(after[0]?.elision, 'the summary (the elision marker) follows the step');
    assert.ok(after.every((r) => !r.dropped));
  });

  it('caps long texts and says how long they were', () => {
    const view = viewOf('claude-code/spotter_4d5611e5-241a-462a-8d15-5122611a9569.excerpt-L742-L790.jsonl');
    const big = messages(view.rows).flatMap((r) => r.tools).find((t) => t.size > t.text.length);
    assert.ok(big, 'the 9 KB tool result is capped');
    assert.equal(big.text.length, TOOL_CAP);
    const summary = messages(view.rows).find((r) => r.elision);
    assert.equal(summary?.size, 15_743, 'the 16 KB compaction summary is sent whole (under the text cap)');
  });
});

describe('session view of requests: each request in its own order, each step before what its request added', () => {
  it('a request log: the conversation once, every step just before the messages its request added', () => {
    const view = viewOf('openai-chat/pydanticai_test_multiple_agent_tool_calls.requests.jsonl');
    const kinds = view.rows.map((r) => (r.kind === 'message' ? r.role : r.kind));
    assert.deepEqual(kinds, ['user', 'assistant', 'tool', 'assistant', 'user', 'assistant', 'step', 'tool']);
    const call = messages(view.rows)[5]!.tools[0]!;
    assert.equal(view.rows[call.partner!]!.kind, 'message', 'pairs still link across the step');
  });

  it('an Inspect .eval: every message of the sample (its ranges are all empty, none is merged away), each model event before its tool result', () => {
    const view = viewOf('inspect-ai/inspect_log_message_deduplication.eval');
    const shown = messages(view.rows);
    assert.equal(shown.length, 12);
    assert.equal(view.rows.filter((r) => r.kind === 'step').length, 5);
    view.rows.forEach((r, i) => {
      if (r.kind === 'step') assert.equal(messages([view.rows[i + 1]!])[0]?.role, 'tool', 'a step is followed by the result its request added');
    });
  });

  it("a request body is shown in the request's order: Anthropic's system first, though the JSON has it last", () => {
    const view = viewOf('anthropic-messages/pydanticai_test_anthropic_compaction_round_trip.requests.jsonl');
    assert.deepEqual(messages(view.rows).map((r) => r.role), ['system', 'user', 'assistant', 'user']);
  });
});

describe('session view: each request’s cache figures at its row', () => {
  it('Claude Code: every request’s usage at the assistant message that reports it, once each', () => {
    const view = viewOf('claude-code/spotter_tool_heavy.jsonl');
    const placed = view.rows.flatMap((r) => (r.kind !== 'thread' && r.cache !== undefined ? [r] : []));
    assert.deepEqual(placed.map((r) => r.cache), [1, 2, 3, 4], 'all four requests, in order');
    assert.ok(placed.every((r) => r.kind === 'message' && r.role === 'assistant'));
    const c = view.summary.cache[0]!;
    const row = placed[0]!;
    assert.ok(row.range && row.range.start <= c.offset && c.offset < row.range.end, 'the row holds the line that reports it');
  });

  it('a request log: the usage of each request at its step; the compaction drop at the compaction', () => {
    const view = viewOf('anthropic-messages/pydanticai_test_multiple_parallel_tool_calls.requests.jsonl');
    const step = view.rows.find((r) => r.kind === 'step');
    assert.ok(step?.kind === 'step' && step.cache === 2, 'the second request at its step');
    const compaction = viewOf('claude-code/spotter_4d5611e5-241a-462a-8d15-5122611a9569.excerpt-L742-L790.jsonl');
    const drop = compaction.summary.cache.find((c) => c.agreement === 'drop')!;
    assert.ok(compaction.rows.some((r) => r.kind === 'message' && r.cache === drop.index));
  });
});

describe('session view filters and keys', () => {
  const view = viewOf('claude-code/spotter_4d5611e5-241a-462a-8d15-5122611a9569.excerpt-L742-L790.jsonl');
  const all = visibleRows(view.rows, { problems: false });

  it('problems only keeps the non-patch step; one tool keeps the messages with it', () => {
    const problems = visibleRows(view.rows, { problems: true });
    assert.ok(problems.length >= 1 && problems.every((i) => view.rows[i]!.kind === 'step' || view.rows[i]!.findings.length > 0));
    const edits = visibleRows(view.rows, { problems: false, tool: 'Edit' });
    assert.ok(edits.length > 0 && edits.every((i) => messages([view.rows[i]!])[0]?.tools.some((t) => t.name === 'Edit')));
  });

  it('keys: next step, next turn, next problem, and back', () => {
    assert.deepEqual(keyTarget('s'), { target: 'step', direction: 1 });
    assert.deepEqual(keyTarget('E'), { target: 'problem', direction: -1 });
    assert.equal(keyTarget('x'), undefined);
    const step = nextPosition(view.rows, all, 0, 'step', 1);
    assert.equal(view.rows[all[step]!]!.kind, 'step');
    assert.equal(nextPosition(view.rows, all, step, 'step', 1), step, 'no further step: stays');
    assert.equal(nextPosition(view.rows, all, step, 'problem', -1), step, 'no earlier problem');
  });

  it('virtualisation renders only the rows in view', () => {
    assert.deepEqual(windowOf(64 * 5000, 640, 64, 10_000, 8), { first: 4992, last: 5018 });
    assert.deepEqual(windowOf(0, 640, 64, 3), { first: 0, last: 2 });
    assert.equal(sizeText(28_500), '28.5 KB');
  });

  it('messages from the webview are validated', () => {
    assert.deepEqual(parseSessionWebviewMessage({ type: 'openStep', step: 2 }), { type: 'openStep', step: 2 });
    assert.equal(parseSessionWebviewMessage({ type: 'openStep', step: -1 }), undefined);
    assert.equal(parseSessionWebviewMessage({ type: 'reveal', range: { start: 5, end: 1 } }), undefined);
    assert.equal(parseSessionWebviewMessage({ type: 'run', command: 'x' }), undefined);
  });
});
