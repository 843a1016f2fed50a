/**
 * Codex CLI rollouts: response items as the model input (event_msg copies not
 * counted), pairing by call_id, the compacted replacement_history as a
 * compaction step, unknown records as info, and the abandoned call of the
 * localpush 13-19-38 rollout.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkAgainst, checkTranscript } from '../../src/core/check';
import { codexAdapter } from '../../src/core/formats/codex';
import { detectFormat } from '../../src/core/formats/registry';
import { inputFromFile, inputFromText } from '../../src/core/io';
import { corpus, countBlocks, fileText, lineOf, readWith, textAt, textOf, unpaired } from './wild-helpers';

const cx = (name: string) => corpus('codex', name);
const SYNTHETIC = cx('ccl_rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl');
const CODEMIE = cx('codemie_rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.excerpt-L1-L19.jsonl');
const ABANDONED = cx('localpush_rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl');
const STRESS = cx('localpush_rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl');
const COMPACTED = cx('localpush_rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.excerpt-L1+L1735-L1828.jsonl');
const MCP = cx('localpush_rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl');
const OPTIONS = { tokens: false } as const;
const ABANDONED_CALL = 'call_UtYwHmwWekzvq83m8Rb9K8jJ';

const line = (type: string, payload: unknown) => JSON.stringify({ timestamp: '2026-02-23T12:30:00.000Z', type, payload }) + '\n';

describe('codex: the synthetic rollout (every item kind)', () => {
  const events = readWith(codexAdapter, SYNTHETIC);

  it('skips the unknown future_synthetic_record with an info finding on its line', () => {
    assert.equal(events.findings.length, 1);
    const skipped = events.findings[0]!;
    assert.equal(skipped.rule, 'record-skipped');
    assert.equal(skipped.severity, 'info');
    assert.equal(lineOf(SYNTHETIC, skipped.range.start), 14);
  });

  it('pairs function_call, custom_tool_call and the MCP call by call_id', () => {
    assert.equal(countBlocks(events.final, 'tool_call'), 3);
    assert.deepEqual(unpaired(events.final), { calls: [], results: [] });
    const custom = events.final.messages.find((m) => m.blocks.some((b) => b.kind === 'tool_call' && b.name === 'apply_patch'))!;
    assert.equal(lineOf(SYNTHETIC, custom.source!.start), 8);
  });

  it('does not count event_msg UI copies: one user message, one final assistant text', () => {
    assert.equal(events.final.messages.filter((m) => m.role === 'user').length, 1);
    assert.equal(events.final.messages.filter((m) => m.blocks.some((b) => b.kind === 'text') && m.role === 'assistant').length, 1);
  });

  it('keeps the encrypted reasoning item as an opaque block', () => {
    assert.ok(events.final.messages.some((m) => m.blocks.some((b) => b.kind === 'opaque' && b.type === 'reasoning')));
  });
});

describe('codex: a real first turn (codemie excerpt)', () => {
  const events = readWith(codexAdapter, CODEMIE);

  it('base_instructions become the leading system message, developer messages system turns', () => {
    const system = events.final.messages[0]!;
    assert.equal(system.role, 'system');
    assert.match(textOf(system), /^You are Codex/);
    assert.equal(lineOf(CODEMIE, system.source!.start), 1);
    assert.equal(events.final.messages[1]!.role, 'system');
  });

  it('pairs exec_command and write_stdin with their outputs; the exec_command_end event is no message', () => {
    assert.equal(countBlocks(events.final, 'tool_call'), 2);
    assert.deepEqual(unpaired(events.final), { calls: [], results: [] });
    assert.ok(!events.final.messages.some((m) => m.source && lineOf(CODEMIE, m.source.start) === 12));
  });

  it('checks clean through the engine, and is detected by content', () => {
    assert.deepEqual(checkTranscript(inputFromFile(CODEMIE), OPTIONS).findings, []);
    for (const file of [SYNTHETIC, CODEMIE, ABANDONED, STRESS, COMPACTED, MCP]) {
      assert.equal(detectFormat(fileText(file).slice(0, 65536))?.id, 'codex', file);
    }
  });
});

describe('codex: the abandoned function_call (localpush 13-19-38)', () => {
  it('reports the call with no output in a turn that never completed, as a warning on its call_id', () => {
    const report = checkTranscript(inputFromFile(ABANDONED), OPTIONS);
    const orphans = report.findings.filter((f) => f.rule === 'tool-use-orphaned');
    assert.equal(orphans.length, 1);
    const orphan = orphans[0]!;
    assert.equal(orphan.toolCallId, ABANDONED_CALL);
    assert.equal(orphan.severity, 'warning');
    assert.match(orphan.message, /task_started without task_complete/);
    assert.equal(textAt(ABANDONED, orphan.range), JSON.stringify(ABANDONED_CALL));
    assert.equal(lineOf(ABANDONED, orphan.range.start), 18);
  });

  it('once a later turn follows it, the call is an error orphan', () => {
    const text = fileText(ABANDONED) + line('event_msg', { type: 'task_started', turn_id: 't2' }) +
      line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'try again' }] }) +
      line('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'ok' }] });
    const report = checkTranscript(inputFromText('later.jsonl', text), OPTIONS);
    const orphans = report.findings.filter((f) => f.rule === 'tool-use-orphaned');
    assert.equal(orphans.length, 1);
    assert.equal(orphans[0]!.toolCallId, ABANDONED_CALL);
    assert.equal(orphans[0]!.severity, 'error');
  });

  // The shape of a real resumed rollout: the turn is interrupted with a call unanswered, the
  // session is resumed (developer and user context injected again) and a new turn starts.
  const resumed = () =>
    fileText(ABANDONED) +
    line('session_meta', { id: 'resumed', cwd: '/x', originator: 'codex_cli_rs', cli_version: '0.104.0' }) +
    line('response_item', { type: 'message', role: 'developer', content: [{ type: 'input_text', text: '<permissions instructions>' }] }) +
    line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>' }] }) +
    line('event_msg', { type: 'task_started', turn_id: 't2' }) +
    line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'carry on' }] });

  it('an abandoned call, then the session resumed and a new turn started: an error, even before any answer', () => {
    const report = checkTranscript(inputFromText('resumed.jsonl', resumed()), OPTIONS);
    const orphans = report.findings.filter((f) => f.rule === 'tool-use-orphaned');
    assert.equal(orphans.length, 1);
    assert.equal(orphans[0]!.toolCallId, ABANDONED_CALL);
    assert.equal(orphans[0]!.severity, 'error');
    assert.match(orphans[0]!.message, /No tool output found for function call/);
    assert.equal(lineOf(ABANDONED, orphans[0]!.range.start), 18);
  });

  it('the resumed session answered by the model: still exactly one error for the call', () => {
    const text = resumed() + line('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'ok' }] });
    const orphans = checkTranscript(inputFromText('resumed-answered.jsonl', text), OPTIONS).findings.filter((f) => f.rule === 'tool-use-orphaned');
    assert.deepEqual(orphans.map((f) => [f.toolCallId, f.severity]), [[ABANDONED_CALL, 'error']]);
  });

  it('an aborted turn (turn_aborted) leaves the same warning', () => {
    const text = fileText(ABANDONED) + line('event_msg', { type: 'turn_aborted', turn_id: 't1', reason: 'interrupted' });
    const orphans = checkTranscript(inputFromText('aborted.jsonl', text), OPTIONS).findings.filter((f) => f.rule === 'tool-use-orphaned');
    assert.equal(orphans.length, 1);
    assert.equal(orphans[0]!.severity, 'warning');
    assert.match(orphans[0]!.message, /turn_aborted/);
  });

  it('a turn that completed without the output leaves an error orphan', () => {
    const text = fileText(ABANDONED) + line('event_msg', { type: 'task_complete', turn_id: 't1' });
    const orphans = checkTranscript(inputFromText('done.jsonl', text), OPTIONS).findings.filter((f) => f.rule === 'tool-use-orphaned');
    assert.equal(orphans.length, 1);
    assert.equal(orphans[0]!.severity, 'error');
  });
});

describe('codex: the compacted replacement_history (localpush 12-54-34 excerpt)', () => {
  const events = readWith(codexAdapter, COMPACTED);

  it('is one step, source compaction, on the compacted line', () => {
    assert.equal(events.steps.length, 1);
    const step = events.steps[0]!;
    assert.equal(step.source, 'compaction');
    assert.equal(lineOf(COMPACTED, step.range!.start), 55);
  });

  it('after = the system message plus the 40 replacement items, the compaction item last and marked', () => {
    const after = events.steps[0]!.after;
    assert.equal(after.messages.length, 41);
    assert.equal(after.messages[0]!.role, 'system');
    assert.equal(after.messages[40]!.elision, true);
    assert.equal(countBlocks(after, 'tool_call'), 0);
    assert.equal(countBlocks(events.steps[0]!.before, 'tool_call'), 10);
  });

  it('the engine reports the step with its decision: defer (whole pairs dropped, history rewritten, marker kept)', () => {
    const report = checkTranscript(inputFromFile(COMPACTED), OPTIONS);
    assert.equal(report.steps.length, 1);
    assert.equal(report.steps[0]!.source, 'compaction');
    assert.equal(report.steps[0]!.decision, 'defer');
    assert.ok(report.steps[0]!.rules.includes('prefix-mutated'));
    assert.deepEqual(report.findings.filter((f) => f.severity === 'error'), []);
  });

  it('the final window continues after the replacement and pairs the later calls', () => {
    assert.deepEqual(unpaired(events.final), { calls: [], results: [] });
    assert.equal(countBlocks(events.final, 'tool_call'), 7); // 10 before + 7 after = the 17 pairs of the excerpt
  });
});

describe('codex: large and MCP rollouts', () => {
  it('pairs the 118 calls of one turn', () => {
    const events = readWith(codexAdapter, STRESS);
    assert.equal(countBlocks(events.final, 'tool_call'), 118);
    assert.deepEqual(unpaired(events.final), { calls: [], results: [] });
  });

  it('an earlier capture of the same rollout checked against the full one is append-only: patch', () => {
    const full = fileText(STRESS);
    const earlier = full.split('\n').slice(0, 60).join('\n') + '\n';
    const report = checkAgainst(inputFromText('earlier.jsonl', earlier), inputFromText('full.jsonl', full), OPTIONS);
    const snapshot = report.steps[report.steps.length - 1]!;
    assert.equal(snapshot.source, 'snapshot');
    assert.equal(snapshot.decision, 'patch');
  });

  it('pairs the 5 MCP calls and checks clean', () => {
    const events = readWith(codexAdapter, MCP);
    assert.equal(countBlocks(events.final, 'tool_call'), 5);
    assert.deepEqual(checkTranscript(inputFromFile(MCP), OPTIONS).findings, []);
  });

  it('a line that is not JSON is located and the rest still read', () => {
    const text = fileText(SYNTHETIC).replace('"type":"event_msg"', '"type":event_msg');
    const events = readWith(codexAdapter, 'bad.jsonl', text);
    const invalid = events.findings.find((f) => f.rule === 'invalid-json')!;
    assert.equal(invalid.severity, 'error');
    assert.equal(text.slice(0, invalid.range.start).split('\n').length, 3);
    assert.equal(countBlocks(events.final, 'tool_call'), 3);
  });
});

describe('codex: ghost snapshots (the undo checkpoints Codex keeps and never sends)', () => {
  it('are neither skipped records nor unknown parts, and not in the window, on their own line or in a replacement_history', () => {
    const ghost = { type: 'ghost_snapshot', ghost_commit: { id: 'abc123', parent: null, preexisting_untracked_files: [], preexisting_untracked_dirs: [] } };
    const user = { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix the bug.' }] };
    const answer = { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Fixed.' }] };
    const text = [
      line('session_meta', { id: 's', base_instructions: { text: 'Be brief.' } }),
      line('response_item', ghost),
      line('response_item', user),
      line('response_item', answer),
      line('compacted', { message: '', replacement_history: [user, { type: 'compaction', encrypted_content: 'x' }, ghost] }),
      line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Thanks.' }] }),
    ].join('');
    const report = checkTranscript(inputFromText('rollout.jsonl', text), OPTIONS);
    assert.ok(!report.findings.some((f) => f.rule === 'record-skipped'), JSON.stringify(report.findings));
    assert.equal(report.steps.length, 1);
    const final = readWith(codexAdapter, 'rollout.jsonl', text).final;
    assert.deepEqual(final.messages.map((m) => m.blocks.map((b) => (b.kind === 'opaque' ? b.type : b.kind)).join()), ['text', 'text', 'compaction', 'text']);
  });
});
