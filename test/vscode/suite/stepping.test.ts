/// <reference types="mocha" />
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RewriteNode } from '../../../src/extension/tree';
import { api, closeAll, example, fixture, openTranscript, setSetting, waitFor } from './helpers';

const lineOf = (editor: vscode.TextEditor) => editor.selection.active.line;

suite('stepping, CodeLens, tree', () => {
  teardown(closeAll);

  test('Next / Previous Rewrite and Next Violation move the selection and the selected step', async () => {
    const { session, editor } = await openTranscript(fixture('three-steps.trace.jsonl'));
    editor.selection = new vscode.Selection(0, 0, 0, 0);
    await vscode.commands.executeCommand('prefixLens.nextRewrite');
    await waitFor('step 1', () => lineOf(editor) === 6);
    assert.equal(session.selectedStep, 1);
    await vscode.commands.executeCommand('prefixLens.nextRewrite');
    await waitFor('step 2', () => lineOf(editor) === 7);
    assert.equal(session.selectedStep, 2);
    await vscode.commands.executeCommand('prefixLens.nextRewrite');
    await waitFor('step 3', () => lineOf(editor) === 8);
    await vscode.commands.executeCommand('prefixLens.previousRewrite');
    await waitFor('back to step 2', () => lineOf(editor) === 7);
    assert.equal(session.selectedStep, 2);

    editor.selection = new vscode.Selection(0, 0, 0, 0);
    await vscode.commands.executeCommand('prefixLens.nextViolation');
    const first = session.report?.findings.filter((f) => f.severity !== 'info').sort((a, b) => a.range.start - b.range.start)[0];
    assert.ok(first);
    await waitFor('the first violation selected', () => editor.document.offsetAt(editor.selection.start) === first.range.start);
    assert.equal(editor.document.offsetAt(editor.selection.end), first.range.end);
    assert.equal(session.selectedStep, first.step);
  });

  test('the cursor selects the step it is in; selectStep moves the cursor', async () => {
    const { session, editor } = await openTranscript(fixture('three-steps.trace.jsonl'));
    editor.selection = new vscode.Selection(8, 5, 8, 5);
    await waitFor('cursor → step 3', () => session.selectedStep === 3);
    let changes = 0;
    const sub = session.onDidChange(() => changes++);
    session.selectStep(1);
    sub.dispose();
    assert.equal(session.selectedStep, 1);
    assert.ok(changes >= 1, 'onDidChange fired');
    await waitFor('step 1 → cursor', () => lineOf(editor) === 6);
  });

  test('keybindings are contributed for a focused transcript', () => {
    const manifest = vscode.extensions.getExtension('prefix-lens.prefix-lens')?.packageJSON as {
      contributes: { keybindings: { command: string; key: string; when: string }[] };
    };
    const keys = Object.fromEntries(manifest.contributes.keybindings.map((k) => [k.command, k]));
    assert.equal(keys['prefixLens.nextRewrite']?.key, 'alt+]');
    assert.equal(keys['prefixLens.previousRewrite']?.key, 'alt+[');
    assert.equal(keys['prefixLens.nextViolation']?.key, 'alt+n');
    for (const k of Object.values(keys)) assert.match(k.when, /prefixLens\.isTranscript/);
  });

  test('a CodeLens above each step names the decision, the reason and the cache impact', async () => {
    const { session } = await openTranscript(example('seed-incident.trace.jsonl'));
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', session.uri);
    const ours = lenses.filter((l) => l.command?.command === 'prefixLens.inspectStep');
    assert.equal(ours.length, 1);
    const [lens] = ours;
    assert.ok(lens?.command);
    const step = session.report?.steps[0];
    assert.ok(step && step.cacheImpact.invalidatedTokens > 0);
    const tokens = step.cacheImpact.invalidatedTokens.toLocaleString('en-US');
    assert.equal(lens.command.title, `Step 1/1 · ABORT · tool-result-orphaned toolu_01 · cache −${tokens} tokens · Inspect`);
    assert.equal(lens.range.start.line, 4);

    const three = await openTranscript(fixture('three-steps.trace.jsonl'));
    const threeLenses = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', three.session.uri)).filter(
      (l) => l.command?.command === 'prefixLens.inspectStep',
    );
    assert.deepEqual(
      threeLenses.map((l) => [l.range.start.line, l.command?.title.split(' · ').slice(0, 2).join(' · ')]),
      [
        [6, 'Step 1/3 · PATCH'],
        [7, 'Step 2/3 · DEFER'],
        [8, 'Step 3/3 · ABORT'],
      ],
    );
  });

  test('an edit waiting for its re-check keeps the CodeLens: asked meanwhile, the lenses come with the re-check, never none', async () => {
    // Answering none while an edit waits for its re-check made VS Code remove every lens as the user typed (the text
    // jumped up a line at each, and back down after the re-check).
    await setSetting('debounceMs', 1500);
    try {
      // A copy of its own: the edit may be auto-saved, and the other tests read the fixture's shared copy.
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'prefix-lens-lens-')), 'three-steps.trace.jsonl');
      fs.copyFileSync(fixture('three-steps.trace.jsonl'), file);
      const { session, editor } = await openTranscript(file);
      const at = editor.document.lineAt(2).text.indexOf('Reading a.txt.') + 'Reading a.txt'.length;
      await editor.edit((b) => b.replace(new vscode.Range(2, at, 2, at + 1), '!'));
      assert.ok(session.reportVersion < editor.document.version, 'asked before the re-check');
      const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', session.uri);
      assert.equal(session.reportVersion, editor.document.version, 'answered with the report of the edited text');
      const ours = lenses.filter((l) => l.command?.command === 'prefixLens.inspectStep');
      assert.deepEqual(ours.map((l) => l.range.start.line), [6, 7, 8]);
    } finally {
      await setSetting('debounceMs', undefined);
    }
  });

  test('an interleaved request log: the CodeLens and the tree name the thread of each step', async () => {
    const { session } = await openTranscript(fixture('../providers/anthropic-log-interleaved.jsonl'));
    const lenses = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', session.uri)).filter(
      (l) => l.command?.command === 'prefixLens.inspectStep',
    );
    assert.deepEqual(
      lenses.map((l) => l.command?.title.split(' · ').slice(0, 2).join(' · ')),
      ['Step 1/4 (thread 1) · PATCH', 'Step 2/4 (thread 2) · PATCH', 'Step 3/4 (thread 1) · PATCH', 'Step 4/4 (thread 1) · PATCH'],
    );
    const { tree } = await api();
    const labels = tree
      .getChildren()
      .filter((n): n is Extract<RewriteNode, { kind: 'step' }> => n.kind === 'step' && n.session === session)
      .map((n) => tree.getTreeItem(n).label);
    assert.deepEqual(labels, ['Step 1 (thread 1) · PATCH', 'Step 2 (thread 2) · PATCH', 'Step 3 (thread 1) · PATCH', 'Step 4 (thread 1) · PATCH']);
  });

  test('the Rewrites tree lists the steps with decision icons and their findings; click reveals', async () => {
    const { session, editor } = await openTranscript(fixture('three-steps.trace.jsonl'));
    const { tree } = await api();
    const roots = tree.getChildren();
    const steps = roots.filter((n): n is Extract<RewriteNode, { kind: 'step' }> => n.kind === 'step');
    assert.deepEqual(
      steps.map((n) => tree.getTreeItem(n).label),
      ['Step 1 · PATCH', 'Step 2 · DEFER', 'Step 3 · ABORT'],
    );
    assert.deepEqual(
      steps.map((n) => (tree.getTreeItem(n).iconPath as vscode.ThemeIcon).id),
      ['pass', 'warning', 'error'],
    );
    const step3 = steps[2];
    assert.ok(step3);
    const findings = tree.getChildren(step3);
    assert.deepEqual(
      findings.map((n) => tree.getTreeItem(n).label).sort(),
      ['prefix-mutated', 'tool-result-orphaned'],
    );
    const orphan = findings.find((n) => tree.getTreeItem(n).label === 'tool-result-orphaned');
    assert.ok(orphan && orphan.kind === 'finding');
    const command = tree.getTreeItem(orphan).command;
    assert.ok(command);
    editor.selection = new vscode.Selection(0, 0, 0, 0);
    await vscode.commands.executeCommand(command.command, ...(command.arguments ?? []));
    await waitFor('the finding revealed', () => editor.document.offsetAt(editor.selection.start) === orphan.finding.range.start);
    assert.equal(session.document.getText(editor.selection), '"call_b"');
  });

  test('the Rewrites view opened after a step was selected shows that step selected', async () => {
    const { session } = await openTranscript(fixture('three-steps.trace.jsonl'));
    const { tree } = await api();
    await waitFor('the steps', () => (session.report?.steps.length ?? 0) >= 3);
    await vscode.commands.executeCommand('workbench.view.explorer');
    await waitFor('the view hidden', () => !tree.view.visible);
    const last = session.report!.steps.at(-1)!;
    session.selectStep(last.index);
    await vscode.commands.executeCommand('prefixLens.rewrites.focus');
    await waitFor(`step ${last.index} selected in the view once it shows`, () => {
      const node = tree.view.selection[0];
      return node?.kind === 'step' && node.step.index === last.index;
    });
  });

  test('the Rewrites view follows the selected step and has a "problems only" filter', async () => {
    const { session } = await openTranscript(fixture('three-steps.trace.jsonl'));
    const { tree } = await api();
    const steps = () => tree.getChildren().flatMap((n: RewriteNode) => (n.kind === 'step' ? [n.step] : []));
    await waitFor('the steps listed', () => steps().length === session.report?.steps.length);
    const all = steps();
    assert.ok(all.some((s) => s.decision === 'patch') && all.some((s) => s.decision !== 'patch'), 'the fixture mixes patches and problems');
    await vscode.commands.executeCommand('prefixLens.toggleProblemsOnly');
    assert.deepEqual(steps().map((s) => s.index), all.filter((s) => s.decision !== 'patch').map((s) => s.index));
    assert.equal(tree.view.description, 'problems only');
    await vscode.commands.executeCommand('prefixLens.toggleProblemsOnly');
    assert.equal(steps().length, all.length);

    await vscode.commands.executeCommand('prefixLens.rewrites.focus');
    await waitFor('the view visible', () => tree.view.visible);
    for (const step of [all.at(-1)!, all[0]!]) {
      session.selectStep(step.index);
      await waitFor(`step ${step.index} selected in the view`, () => {
        const node = tree.view.selection[0];
        return node?.kind === 'step' && node.step.index === step.index;
      });
    }
  });
});
