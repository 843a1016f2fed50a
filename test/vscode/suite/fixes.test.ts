/// <reference types="mocha" />
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { FixOutcome } from '../../../src/extension/fixes';
import type { Session } from '../../../src/extension/sessions';
import { closeAll, codeOf, diagnosticsOf, example, fixture, openTranscript, settled, waitFor, waitForDisk } from './helpers';

async function quickFixes(session: Session, rule: string): Promise<{ actions: vscode.CodeAction[]; diagnostic: vscode.Diagnostic }> {
  const diagnostic = await waitFor(`a ${rule} diagnostic`, () => diagnosticsOf(session.uri).find((d) => codeOf(d).value === rule));
  const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
    'vscode.executeCodeActionProvider',
    session.uri,
    diagnostic.range,
    vscode.CodeActionKind.QuickFix.value,
  );
  return { actions, diagnostic };
}

/** Applies a code action's edit, waits for the re-check, and returns the changed lines. */
async function apply(session: Session, action: vscode.CodeAction): Promise<void> {
  assert.ok(action.edit, `${action.title} carries a WorkspaceEdit`);
  assert.equal(action.edit.entries().length, 1, 'one document in the edit');
  const before = session.document.version;
  assert.equal(await vscode.workspace.applyEdit(action.edit), true);
  assert.equal(session.document.version, before + 1, 'one edit, one version: one undo step');
  await settled(session);
}

/** Undo must restore the exact original bytes in one step. */
async function undoRestores(session: Session, original: string): Promise<void> {
  await vscode.window.showTextDocument(session.document);
  await vscode.commands.executeCommand('undo');
  await waitFor('undo', () => session.document.getText() === original);
  assert.equal(session.document.getText(), original);
}

/** Lines outside `changed` are byte-identical (line endings included). */
function otherLinesIdentical(before: string, after: string, changed: number[]): void {
  const a = before.split('\n');
  const b = after.split('\n');
  assert.equal(a.length, b.length, 'no lines added or removed');
  a.forEach((line, i) => {
    if (!changed.includes(i)) assert.equal(b[i], line, `line ${i + 1} unchanged`);
  });
}

suite('quick fixes', () => {
  teardown(closeAll);

  test('"Revert the rewrite" fixes the seed incident (no abort), undo restores the bytes', async () => {
    const { session } = await openTranscript(example('seed-incident.trace.jsonl'));
    const original = session.document.getText();
    const { actions } = await quickFixes(session, 'tool-result-orphaned');
    const compact = actions.find((a) => a.title === 'Revert the rewrite (step 1)');
    assert.ok(compact, `offered: ${actions.map((a) => a.title).join(', ')}`);
    assert.equal(compact.isPreferred, true);
    assert.equal(session.report?.steps[0]?.decision, 'abort');
    await apply(session, compact);
    const step = session.report?.steps[0];
    assert.ok(step);
    assert.notEqual(step.decision, 'abort', `step 1 after the fix: ${step.decision} ${step.rules.join(',')}`);
    otherLinesIdentical(original, session.document.getText(), [4]);
    await undoRestores(session, original);
    await settled(session);
    assert.equal(session.report?.steps[0]?.decision, 'abort');
  });

  test('the same fix through the session (the inspector\'s "Apply")', async () => {
    const { session } = await openTranscript(example('seed-incident.trace.jsonl'));
    const original = session.document.getText();
    const { actions } = await quickFixes(session, 'schema-dropped');
    const compact = actions.find((a) => a.title === 'Revert the rewrite (step 1)');
    assert.ok(compact);
    await apply(session, compact);
    const viaQuickFix = session.document.getText();
    await undoRestores(session, original);
    await settled(session);
    assert.deepEqual(await vscode.commands.executeCommand('prefixLens.applyFix', session.uri, 1), { applied: true });
    await settled(session);
    assert.equal(session.document.getText(), viaQuickFix, 'applyFix applies exactly the quick fix edit');
    assert.notEqual(session.report?.steps[0]?.decision, 'abort');
    await undoRestores(session, original);
  });

  test('a multi-step trace: the aborting step 3 is fixed, steps 1–2 keep their verdicts', async () => {
    const { session } = await openTranscript(fixture('three-steps.trace.jsonl'));
    const original = session.document.getText();
    const { actions } = await quickFixes(session, 'tool-result-orphaned');
    const compact = actions.find((a) => a.title === 'Compact in whole pairs (step 3)');
    assert.ok(compact, `offered: ${actions.map((a) => a.title).join(', ')}`);
    await apply(session, compact);
    assert.deepEqual(
      session.report?.steps.map((s) => s.decision).slice(0, 2),
      ['patch', 'defer'],
    );
    assert.notEqual(session.report?.steps[2]?.decision, 'abort');
    otherLinesIdentical(original, session.document.getText(), [8]);
    await undoRestores(session, original);
  });

  test('"Remove orphaned tool result" (Anthropic request body)', async () => {
    const { session } = await openTranscript(fixture('anthropic-buried-orphan.json'));
    const original = session.document.getText();
    const { actions } = await quickFixes(session, 'tool-result-orphaned');
    const remove = actions.find((a) => a.title === 'Remove orphaned tool result');
    assert.ok(remove, `offered: ${actions.map((a) => a.title).join(', ')}`);
    assert.equal(remove.isPreferred, true);
    await apply(session, remove);
    assert.equal(session.report?.findings.filter((f) => f.rule === 'tool-result-orphaned').length, 0);
    assert.deepEqual(diagnosticsOf(session.uri).filter((d) => d.severity === vscode.DiagnosticSeverity.Error), []);
    const text = session.document.getText();
    assert.ok(!text.includes('toolu_01B'));
    assert.ok(text.includes('"And how many were returned?"'), 'the sibling text block stays');
    await undoRestores(session, original);
  });

  test('"Remove orphaned tool result" (OpenAI Responses, one line)', async () => {
    const { session } = await openTranscript(fixture('openai-responses-orphan-output.json'));
    const original = session.document.getText();
    const { actions } = await quickFixes(session, 'tool-result-orphaned');
    const remove = actions.find((a) => a.title === 'Remove orphaned tool result');
    assert.ok(remove);
    await apply(session, remove);
    assert.equal(session.report?.findings.filter((f) => f.severity === 'error').length, 0);
    assert.equal(session.document.lineCount, original.split('\n').length);
    await undoRestores(session, original);
  });

  test('"Add a placeholder result for the pending call" (OpenAI Chat, parallel calls)', async () => {
    const { session } = await openTranscript(fixture('openai-chat-pending-call.json'));
    const original = session.document.getText();
    const { actions } = await quickFixes(session, 'tool-use-orphaned');
    const add = actions.find((a) => a.title === 'Add a placeholder result for the pending call');
    assert.ok(add, `offered: ${actions.map((a) => a.title).join(', ')}`);
    assert.equal(add.isPreferred, true);
    await apply(session, add);
    assert.equal(session.report?.findings.filter((f) => f.severity === 'error').length, 0);
    const messages = JSON.parse(session.document.getText()).messages as { role: string; tool_call_id?: string }[];
    assert.deepEqual(
      messages.map((m) => m.tool_call_id ?? m.role),
      ['system', 'user', 'assistant', 'call_oslo', 'call_bergen', 'user'],
    );
    await undoRestores(session, original);
  });

  test('"Add a placeholder result for the pending call" (native trace, buried orphan)', async () => {
    const { session } = await openTranscript(example('buried-orphan.trace.jsonl'));
    const original = session.document.getText();
    const { actions } = await quickFixes(session, 'tool-use-orphaned');
    const add = actions.find((a) => a.title === 'Add a placeholder result for the pending call');
    assert.ok(add);
    await apply(session, add);
    assert.equal(session.report?.findings.filter((f) => f.rule === 'tool-use-orphaned').length, 0);
    assert.equal(session.document.lineCount, original.split('\n').length, 'JSONL stays one event per line');
    await undoRestores(session, original);
  });

  test('a request log is never edited: the whole-pair fix writes a repaired copy beside it', async () => {
    const { session } = await openTranscript(fixture('compacted.requests.jsonl'));
    const original = session.document.getText();
    const { actions } = await quickFixes(session, 'tool-result-orphaned');
    const fix = actions.find((a) => a.title === 'Compact in whole pairs (step 1) in a repaired copy');
    assert.ok(fix, `offered: ${actions.map((a) => a.title).join(', ')}`);
    assert.equal(fix.edit, undefined, 'no edit of the log itself');
    assert.equal(fix.command?.command, 'prefixLens.applyFix');
    const outcome = await vscode.commands.executeCommand<{ applied: boolean; copy?: vscode.Uri }>('prefixLens.applyFix', ...(fix.command?.arguments ?? []));
    assert.ok(outcome.applied && outcome.copy, 'a copy was written');
    assert.equal(path.basename(outcome.copy.fsPath), 'compacted.requests.repaired.jsonl');
    assert.doesNotMatch((outcome as FixOutcome).notice ?? '', /after it/, 'the last request: nothing after it to mention');
    assert.equal(session.document.getText(), original, 'the log is unchanged');
    assert.equal(session.document.isDirty, false, 'nothing to save, nothing to conflict');
    assert.equal(fs.readFileSync(session.uri.fsPath, 'utf8'), original);
    const repaired = await openTranscript(outcome.copy.fsPath);
    assert.notEqual(repaired.session.report?.steps[0]?.decision, 'abort', 'the copy is repaired');
    fs.rmSync(outcome.copy.fsPath);
  });

  test('a repaired copy of a log that went on after the rewrite says its later requests are as sent (and they are)', async () => {
    const { session } = await openTranscript(fixture('compacted-then-continued.requests.jsonl'));
    await settled(session);
    const outcome = await vscode.commands.executeCommand<FixOutcome>('prefixLens.applyFix', session.uri, 1);
    assert.ok(outcome.applied && outcome.copy && outcome.notice);
    assert.match(outcome.notice, /with the request of step 1 repaired\. The request after it is kept as the agent sent it, built on the rewrite: the copy may show it again at step 2\./);
    const repaired = await openTranscript(outcome.copy.fsPath);
    assert.deepEqual(repaired.session.report?.steps.map((s) => s.decision), ['defer', 'abort'], 'step 1 repaired; step 2 is the next request, built on the rewrite');
    fs.rmSync(outcome.copy.fsPath);
  });

  test('a transcript that grows on disk while open: the fix goes to a copy and the appended line stays', async () => {
    const file = path.join(os.tmpdir(), `prefix-lens-growing-${process.pid}.trace.jsonl`);
    fs.copyFileSync(fixture('three-steps.trace.jsonl'), file);
    const { session } = await openTranscript(file);
    const appended = '{"type":"append","messages":[{"role":"user","content":"written by the agent meanwhile"}]}\n';
    fs.appendFileSync(file, appended);
    await waitForDisk(file, 'the reload from disk', () => session.document.getText().includes('written by the agent meanwhile'));
    await settled(session);
    const outcome = await vscode.commands.executeCommand<{ applied: boolean; copy?: vscode.Uri }>('prefixLens.applyFix', session.uri, 3);
    assert.ok(outcome.applied && outcome.copy, 'a repaired copy instead of an edit');
    assert.equal(session.document.isDirty, false);
    assert.ok(fs.readFileSync(file, 'utf8').endsWith(appended), 'the appended line is on disk');
    assert.ok(fs.readFileSync(outcome.copy.fsPath, 'utf8').includes('written by the agent meanwhile'), 'and in the copy');
    fs.rmSync(outcome.copy.fsPath);
  });

  /** A private copy of the seed incident (written to), and its bad compaction line (appended again by the test's "agent"). */
  function seedCopy(name: string): { file: string; badRewrite: string } {
    const file = path.join(os.tmpdir(), `prefix-lens-${name}-${process.pid}.trace.jsonl`);
    fs.copyFileSync(example('seed-incident.trace.jsonl'), file);
    return { file, badRewrite: `${fs.readFileSync(file, 'utf8').trimEnd().split('\n').at(-1)!}\n` };
  }

  for (const [how, undo] of [['saved', false], ['undone', true]] as const) {
    test(`after a fix in place is ${how}, an append on disk is followed again (its step and diagnostics)`, async () => {
      const { file, badRewrite } = seedCopy(`fix-${how}`);
      const { session } = await openTranscript(file);
      const steps = () => session.report?.steps.map((s) => s.decision) ?? [];
      assert.deepEqual(await vscode.commands.executeCommand('prefixLens.applyFix', session.uri, 1), { applied: true });
      await settled(session);
      assert.deepEqual(steps(), ['patch'], 'step 1 fixed');
      assert.equal(session.document.isDirty, true, 'one edit, not saved yet');
      if (undo) {
        await vscode.window.showTextDocument(session.document);
        await vscode.commands.executeCommand('undo');
        await waitFor('undone', () => !session.document.isDirty);
      } else assert.equal(await session.document.save(), true);
      // The agent writes the same bad compaction again: a second step (after the fix an abort with its diagnostics; after the
      // undo the same window again, a patch).
      fs.appendFileSync(file, badRewrite);
      await waitForDisk(file, 'the append followed', () => steps().length === 2 && session.reportVersion === session.document.version);
      assert.deepEqual(steps(), undo ? ['abort', 'patch'] : ['patch', 'abort']);
      const aborting = undo ? 'Step 1' : 'Step 2';
      await waitFor(`the diagnostics of ${aborting}`, () => diagnosticsOf(session.uri).some((d) => d.message.startsWith(aborting)));
      // The editor reloads the file (VS Code notices the change on disk a while after the session read it).
      await waitForDisk(file, 'the editor holding the file as on disk', () => !session.document.isDirty && session.document.getText() === fs.readFileSync(file, 'utf8'));
      fs.rmSync(file);
    });
  }
});
