/**
 * Claude Code session JSONL: the active branch of the uuid tree, model outputs
 * grouped by message.id, parallel results written as sibling lines, skipped
 * UI records, compactions and rewinds as steps, side-chain files on their own,
 * and the known facts of the corpus (SOURCES.md).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkAgainst, checkTranscript } from '../../src/core/check';
import { claudeCodeAdapter } from '../../src/core/formats/claude-code';
import { detectFormat } from '../../src/core/formats/registry';
import { inputFromFile, inputFromText } from '../../src/core/io';
import type { ToolCall } from '../../src/core/model';
import { corpus, countBlocks, fileText, fixture, lineOf, readWith, textAt, textOf, unpaired } from './wild-helpers';

const cc = (name: string) => corpus('claude-code', name);
const TOOL_HEAVY = cc('spotter_tool_heavy.jsonl');
const TURN1 = cc('codemie_incremental-subagents_turn-1.jsonl');
const TURN2 = cc('codemie_incremental-subagents_turn-2.jsonl');
const SESSION = cc('codemie_session-9eda1058.jsonl');
const EXCERPT = cc('spotter_4d5611e5-241a-462a-8d15-5122611a9569.excerpt-L742-L790.jsonl');
const ACOMPACT = cc('spotter_agent-acompact-e1f845.jsonl');
const DAG = cc('ccl_dag_compact_after_rewind_preserved.jsonl');
const OPTIONS = { tokens: false } as const;

describe('claude-code: one session, no rewrites (spotter tool_heavy)', () => {
  const events = readWith(claudeCodeAdapter, TOOL_HEAVY);

  it('yields one live window and no steps', () => {
    assert.deepEqual(events.kinds, ['window']);
    assert.equal(events.final.format, 'claude-code');
    assert.equal(events.final.live, true);
  });

  it('groups the 9 assistant lines into the 4 model outputs (one per message.id)', () => {
    assert.equal(events.final.messages.filter((m) => m.role === 'assistant').length, 4);
  });

  it('pairs all 6 tool_use with their 6 tool_result', () => {
    assert.equal(countBlocks(events.final, 'tool_call'), 6);
    assert.equal(countBlocks(events.final, 'tool_result'), 6);
    assert.deepEqual(unpaired(events.final), { calls: [], results: [] });
  });

  it('locates a model output on its own lines: one block per line, the call id on its literal', () => {
    const output = events.final.messages.find((m) => m.blocks.length === 4)!;
    assert.deepEqual(output.blocks.map((b) => b.kind), ['text', 'opaque', 'tool_call', 'tool_call']);
    assert.equal(lineOf(TOOL_HEAVY, output.source!.start), 27);
    assert.equal(lineOf(TOOL_HEAVY, output.source!.end - 1), 30);
    const call = output.blocks[2] as ToolCall;
    assert.equal(textAt(TOOL_HEAVY, call.idSource), JSON.stringify(call.id));
    assert.equal(lineOf(TOOL_HEAVY, call.idSource!.start), 29);
  });

  it('skips progress, file-history-snapshot, queue-operation and system lines without a finding', () => {
    assert.deepEqual(events.findings, []);
    const report = checkTranscript(inputFromFile(TOOL_HEAVY), OPTIONS);
    assert.deepEqual(report.findings, []);
    assert.deepEqual(report.steps, []);
  });

  it('keeps the isMeta local-command caveat as context (the model reads it)', () => {
    const texts = events.final.messages.map(textOf).join('\n');
    assert.match(texts, /<local-command-caveat>/);
  });

  it('is detected by content', () => {
    for (const name of [TOOL_HEAVY, TURN1, SESSION, EXCERPT, ACOMPACT, DAG]) {
      assert.equal(detectFormat(fileText(name).slice(0, 65536))?.id, 'claude-code', name);
    }
  });
});

describe('claude-code: the codemie snapshots of one session', () => {
  it('turn-1 alone: its unanswered Bash call is pending at the frontier, not an orphan', () => {
    const events = readWith(claudeCodeAdapter, TURN1);
    assert.deepEqual(unpaired(events.final).calls, ['toolu_bdrk_01NNGBKLENmr7j3TfUKZW7rz']);
    const report = checkTranscript(inputFromFile(TURN1), OPTIONS);
    assert.deepEqual(report.findings.filter((f) => f.rule === 'tool-use-orphaned'), []);
    assert.equal(report.findings.filter((f) => f.severity === 'error').length, 0);
  });

  it('turn-2: all 14 calls answered, parallel results written as sibling lines included', () => {
    const events = readWith(claudeCodeAdapter, TURN2);
    assert.equal(countBlocks(events.final, 'tool_call'), 14);
    assert.deepEqual(unpaired(events.final), { calls: [], results: [] });
    const parallel = events.final.messages.findIndex((m) => m.blocks.filter((b) => b.kind === 'tool_call').length === 3);
    const results = events.final.messages[parallel + 1]!;
    assert.equal(results.role, 'user');
    assert.equal(results.blocks.filter((b) => b.kind === 'tool_result').length, 3);
    assert.deepEqual(checkTranscript(inputFromFile(TURN2), OPTIONS).findings, []);
  });

  it('turn-1 checked against turn-2 as two snapshots: append-only, patch', () => {
    const report = checkAgainst(inputFromFile(TURN1), inputFromFile(TURN2), OPTIONS);
    const snapshot = report.steps[report.steps.length - 1]!;
    assert.equal(snapshot.source, 'snapshot');
    assert.equal(snapshot.decision, 'patch');
    assert.deepEqual(snapshot.rules, []);
  });

  it('turn-2 checked against turn-1 (history lost): located, not patch', () => {
    const report = checkAgainst(inputFromFile(TURN2), inputFromFile(TURN1), OPTIONS);
    const snapshot = report.steps[report.steps.length - 1]!;
    assert.notEqual(snapshot.decision, 'patch');
    assert.ok(report.findings.some((f) => f.step === snapshot.index && f.range.end > 0));
  });
});

describe('claude-code: legacy summaries and rejected tool use (codemie session-9eda1058)', () => {
  const events = readWith(claudeCodeAdapter, SESSION);

  it('drops the 16 legacy summary lines silently (UI titles, not context)', () => {
    assert.deepEqual(events.findings, []);
    assert.ok(!events.final.messages.some((m) => /Metrics|summary/i.test(textOf(m)) && m.role === 'system'));
  });

  it('reads 5 model outputs and 3 paired calls, the rejected one as an error result', () => {
    assert.equal(events.final.messages.filter((m) => m.role === 'assistant').length, 5);
    assert.deepEqual(unpaired(events.final), { calls: [], results: [] });
    const errors = events.final.messages.flatMap((m) => m.blocks.filter((b) => b.kind === 'tool_result' && b.isError));
    assert.equal(errors.length, 1);
  });
});

describe('claude-code: compaction in the middle of a tool loop (spotter excerpt)', () => {
  const events = readWith(claudeCodeAdapter, EXCERPT);

  it('is one step, source compaction, over the boundary and summary lines', () => {
    assert.equal(events.steps.length, 1);
    const step = events.steps[0]!;
    assert.equal(step.source, 'compaction');
    assert.equal(lineOf(EXCERPT, step.range!.start), 13);
    assert.equal(lineOf(EXCERPT, step.range!.end - 1), 14);
  });

  it('before = the context up to the boundary (the Write pair); after = the summary, marked as elision', () => {
    const step = events.steps[0]!;
    assert.ok(step.before.messages.some((m) => m.blocks.some((b) => b.kind === 'tool_call' && b.name === 'Write')));
    assert.equal(step.after.messages.length, 1);
    assert.equal(step.after.messages[0]!.elision, true);
    assert.match(textOf(step.after.messages[0]), /^This session is being continued/);
  });

  it('the final window starts at the summary and holds the 3 later pairs, progress lines not counted', () => {
    assert.equal(events.final.messages[0]!.elision, true);
    assert.equal(countBlocks(events.final, 'tool_call'), 3);
    assert.deepEqual(unpaired(events.final), { calls: [], results: [] });
    assert.equal(events.final.messages.length, 8);
  });

  it('gets a decision for the compaction step through the engine', () => {
    const report = checkTranscript(inputFromFile(EXCERPT), OPTIONS);
    assert.equal(report.steps.length, 1);
    assert.equal(report.steps[0]!.source, 'compaction');
    assert.ok(['patch', 'defer', 'abort'].includes(report.steps[0]!.decision));
    assert.ok(report.steps[0]!.rules.includes('prefix-mutated'));
  });
});

describe('claude-code: rewind, compaction with a preserved segment (ccl dag)', () => {
  const events = readWith(claudeCodeAdapter, DAG);

  it('the rewind to a1 starts a branch: the step goes from the branch point, the old branch is checked as a window', () => {
    const rewind = events.steps[0]!;
    assert.equal(rewind.source, 'runtime');
    assert.deepEqual(events.windows[0]!.messages.map(textOf), ['Start', 'Ready', 'First attempt', 'First answer']);
    assert.deepEqual(rewind.before.messages.map(textOf), ['Start', 'Ready']);
    assert.deepEqual(rewind.after.messages.map(textOf), ['Start', 'Ready', 'Second attempt']);
    const branch = events.findings.filter((f) => f.rule === 'branch-started');
    assert.deepEqual(branch.map((f) => [f.severity, lineOf(DAG, f.range.start)]), [['info', 5]]);
    assert.equal(
      branch[0]!.message,
      'A rewind started a branch from message 2 of the context (line 2): the 2 messages after it on the previous branch left the context; the 2 shared messages are intact, so the prompt cache is reused',
    );
  });

  it('the compaction keeps the preserved messages after the summary', () => {
    const compaction = events.steps[1]!;
    assert.equal(compaction.source, 'compaction');
    assert.deepEqual(compaction.before.messages.map(textOf), ['Start', 'Ready', 'Second attempt', 'Second answer', 'Keep going']);
    assert.equal(compaction.after.messages[0]!.elision, true);
    assert.deepEqual(compaction.after.messages.slice(1).map(textOf), ['Second answer', 'Keep going', 'Kept going']);
  });

  it('the final window follows the newest leaf', () => {
    assert.deepEqual(events.final.messages.slice(1).map(textOf), ['Second answer', 'Keep going', 'Kept going', 'After compaction', 'Final answer']);
    assert.equal(events.final.boundary, events.final.messages.length);
  });

  it('the rewind is a branch (patch, info); the compaction loses the cache (defer) and its isCompactSummary line is the elision marker', () => {
    const report = checkTranscript(inputFromFile(DAG), OPTIONS);
    assert.deepEqual(report.steps.map((s) => [s.source, s.decision]), [['runtime', 'patch'], ['compaction', 'defer']]);
    assert.deepEqual(report.findings.map((f) => `${f.severity} ${f.rule}`), ['info branch-started', 'warning prefix-mutated']);
    assert.equal(report.findings[1]!.message, '3 consumed messages were removed here (lines 1–5 of the context before)');
  });
});

describe('claude-code: a side-chain file alone (spotter acompact)', () => {
  it('is read as its own conversation: the hook reminders, the prompt, the summary answer', () => {
    const events = readWith(claudeCodeAdapter, ACOMPACT);
    assert.deepEqual(events.final.messages.map((m) => m.role), ['user', 'assistant']);
    assert.equal(events.final.messages[0]!.blocks.length, 4);
    assert.match(textOf(events.final.messages[0]), /Your task is to create a detailed summary/);
  });
});

describe('claude-code: bad lines and compactions that cut a pair (hand-made)', () => {
  const BROKEN = fixture('claude-code', 'broken.jsonl');
  const ORPHAN = fixture('claude-code', 'compact-orphans-result.jsonl');

  it('a line that is not JSON is located, an unknown record is info, the rest is still read', () => {
    const events = readWith(claudeCodeAdapter, BROKEN);
    const invalid = events.findings.find((f) => f.rule === 'invalid-json')!;
    assert.equal(lineOf(BROKEN, invalid.range.start), 5);
    const skipped = events.findings.find((f) => f.rule === 'record-skipped')!;
    assert.equal(skipped.severity, 'info');
    assert.equal(lineOf(BROKEN, skipped.range.start), 7);
    assert.equal(events.findings.length, 2);
    assert.deepEqual(events.final.messages.map((m) => m.role), ['user', 'assistant', 'user', 'assistant']);
    assert.deepEqual(unpaired(events.final), { calls: [], results: [] });
  });

  it('a tool result after the boundary whose call was compacted away is reported', () => {
    const report = checkTranscript(inputFromFile(ORPHAN), OPTIONS);
    assert.equal(report.steps[0]?.source, 'compaction');
    const orphan = report.findings.find((f) => f.rule === 'tool-result-orphaned')!;
    assert.equal(orphan.toolCallId, 'toolu_LIST');
    assert.equal(lineOf(ORPHAN, orphan.range.start), 5);
  });
});

describe('claude-code: an interruption notice parented to the tool_use line', () => {
  const line = (o: Record<string, unknown>) => JSON.stringify({ isSidechain: false, userType: 'external', sessionId: 's', ...o });
  const text = [
    line({ type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'run it' } }),
    line({ type: 'assistant', uuid: 'a1', parentUuid: 'u1', message: { id: 'msg_1', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_X', name: 'Bash', input: {} }] } }),
    line({ type: 'user', uuid: 'r1', parentUuid: 'a1', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_X', content: 'interrupted', is_error: true }] } }),
    line({ type: 'user', uuid: 'u2', parentUuid: 'a1', message: { role: 'user', content: [{ type: 'text', text: '[Request interrupted by user for tool use]' }] } }),
    line({ type: 'assistant', uuid: 'a2', parentUuid: 'u2', message: { id: 'msg_2', role: 'assistant', content: [{ type: 'text', text: 'Stopped.' }] } }),
  ].join('\n');

  it('continues after the results: no rewind step, the notice joins the results message', () => {
    const events = readWith(claudeCodeAdapter, 'interrupt.jsonl', text);
    assert.deepEqual(events.steps, []);
    assert.deepEqual(events.final.messages.map((m) => m.role), ['user', 'assistant', 'user', 'assistant']);
    assert.deepEqual(events.final.messages[2]!.blocks.map((b) => b.kind), ['tool_result', 'text']);
  });
});

describe('claude-code: preserved messages written again after the summary', () => {
  const line = (o: Record<string, unknown>) => JSON.stringify({ isSidechain: false, userType: 'external', sessionId: 's', ...o });
  const user = (uuid: string, parentUuid: string | null, text: string, extra: Record<string, unknown> = {}) =>
    line({ type: 'user', uuid, parentUuid, message: { role: 'user', content: text }, ...extra });
  const assistant = (uuid: string, parentUuid: string, id: string, text: string) =>
    line({ type: 'assistant', uuid, parentUuid, message: { id, role: 'assistant', content: [{ type: 'text', text }] } });
  const text = [
    user('u1', null, 'old question'),
    assistant('a1', 'u1', 'msg_1', 'old answer'),
    user('u2', 'a1', 'recent question'),
    assistant('a2', 'u2', 'msg_2', 'recent answer'),
    line({ type: 'system', subtype: 'compact_boundary', uuid: 'cb', parentUuid: null, compactMetadata: { trigger: 'manual', preservedMessages: { anchorUuid: 'cs', uuids: ['u2', 'a2'] } } }),
    user('cs', 'cb', 'Summary of the old part.', { isCompactSummary: true }),
    user('u2', 'cs', 'recent question'),
    assistant('a2', 'u2', 'msg_2', 'recent answer'),
    user('u3', 'a2', 'next question'),
  ].join('\n');

  it('the step keeps each preserved message once after the summary, and the final context continues from them', () => {
    const events = readWith(claudeCodeAdapter, 'preserved.jsonl', text);
    assert.equal(events.steps.length, 1);
    const after = events.steps[0]!.after;
    assert.deepEqual(after.messages.map(textOf), ['Summary of the old part.', 'recent question', 'recent answer']);
    assert.deepEqual(events.final.messages.map(textOf), ['Summary of the old part.', 'recent question', 'recent answer', 'next question']);
    const report = checkTranscript(inputFromText('preserved.jsonl', text), OPTIONS);
    assert.equal(report.steps[0]!.source, 'compaction');
  });
});

describe('claude-code: hook output lines', () => {
  it('an attachment line in the parent chain is walked through without a finding', () => {
    const line = (o: Record<string, unknown>) => JSON.stringify({ isSidechain: false, userType: 'external', sessionId: 's', ...o });
    const text = [
      line({ type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'hi' } }),
      line({ type: 'attachment', uuid: 'h1', parentUuid: 'u1', attachment: { type: 'hook_additional_context', content: ['ctx'] } }),
      line({ type: 'assistant', uuid: 'a1', parentUuid: 'h1', message: { id: 'msg_1', role: 'assistant', content: [{ type: 'text', text: 'hello' }] } }),
    ].join('\n');
    const events = readWith(claudeCodeAdapter, 'hook.jsonl', text);
    assert.deepEqual(events.findings, []);
    assert.deepEqual(events.steps, []);
    assert.deepEqual(events.final.messages.map(textOf), ['hi', 'hello']);
  });
});

describe('claude-code: a hook reminder written before the tool result, both against the tool_use line', () => {
  const line = (o: Record<string, unknown>) => JSON.stringify({ isSidechain: false, userType: 'external', sessionId: 's', ...o });
  const text = [
    line({ type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'edit it' } }),
    line({ type: 'assistant', uuid: 'a1', parentUuid: 'u1', message: { id: 'msg_1', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_E', name: 'Edit', input: {} }] } }),
    line({ type: 'user', uuid: 'm1', parentUuid: 'a1', isMeta: true, message: { role: 'user', content: '<system-reminder>PreToolUse hook ran</system-reminder>' } }),
    line({ type: 'user', uuid: 'r1', parentUuid: 'a1', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_E', content: 'ok' }] } }),
    line({ type: 'assistant', uuid: 'a2', parentUuid: 'r1', message: { id: 'msg_2', role: 'assistant', content: [{ type: 'text', text: 'Edited.' }] } }),
    line({ type: 'user', uuid: 'u2', parentUuid: 'a1', message: { role: 'user', content: 'no, do it differently' } }),
  ].join('\n');

  it('is one user turn with the result first; a prompt written against the old output later is a real rewind', () => {
    const events = readWith(claudeCodeAdapter, 'hooks.jsonl', text);
    assert.equal(events.steps.length, 1);
    const left = events.windows[0]!;
    assert.deepEqual(left.messages.map((m) => m.role), ['user', 'assistant', 'user', 'assistant']);
    assert.deepEqual(left.messages[2]!.blocks.map((b) => b.kind), ['tool_result', 'text']);
    assert.equal(events.steps[0]!.source, 'runtime');
    assert.deepEqual(events.steps[0]!.before.messages.map((m) => m.role), ['user', 'assistant']);
    assert.deepEqual(events.final.messages.map(textOf), ['edit it', '', 'no, do it differently']);
    const report = checkTranscript(inputFromText('hooks.jsonl', text), OPTIONS);
    assert.deepEqual(report.findings.filter((f) => f.rule === 'tool-result-misplaced'), []);
  });
});
