/// <reference types="mocha" />
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Report } from '../../../src/core/results';
import type { InspectorShowing } from '../../../src/extension/inspector/panel';
import { api, closeAll, codeOf, diagnosticsOf, example, fixture, openTranscript, repoPath, waitFor } from './helpers';

/** A real Inspect AI `.eval` (a zip) from the shared corpus, read in place. */
const EVAL = () => repoPath('..', 'shared', 'corpus', 'inspect-ai', 'inspect_log_message_deduplication.eval');

async function showing(what: string, probe: (s: InspectorShowing) => boolean) {
  const { inspector } = await api();
  return waitFor(`the inspector shows ${what}`, () => probe(inspector.showing) && inspector.showing);
}

suite('inspector panel', () => {
  teardown(async () => {
    await closeAll();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('a zipped .eval: the inspector shows its steps, never the previous transcript, and follows its tab both ways', async () => {
    const { session } = await openTranscript(example('self-edit.trace.jsonl'));
    await vscode.commands.executeCommand('prefixLens.openInspector');
    await showing('self-edit', (s) => s.file === session.uri.fsPath && s.step === 1);
    const evalTab = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.label === path.basename(EVAL()));
    await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(EVAL()));
    await waitFor('the .eval tab', () => evalTab()?.isActive);
    // The panel was open: it follows the .eval's tab (the session view) to that file's report.
    const followed = await showing('the .eval file', (s) => s.file === EVAL());
    assert.equal(followed.step, 1, 'its first step (all five patch)');
    // Back to the transcript's tab: the panel follows it again.
    await vscode.window.showTextDocument(session.document, vscode.ViewColumn.One);
    await showing('self-edit again', (s) => s.file === session.uri.fsPath);
    // "Open Inspector" on the .eval's tab: its report, with the step picked in the panel.
    await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(EVAL()));
    await waitFor('the .eval tab', () => evalTab()?.isActive);
    await vscode.commands.executeCommand('prefixLens.openInspector');
    const shown = await showing('the .eval file', (s) => s.file === EVAL());
    assert.equal(shown.reason, undefined);
    const { sessions } = await api();
    assert.equal(sessions.viewed.get(vscode.Uri.file(EVAL()))?.report?.steps.length, 5, 'checked by Sessions, as the session view shows it');
  });

  test('switching to a transcript without steps shows that file, not the previous step', async () => {
    const { session } = await openTranscript(example('self-edit.trace.jsonl'));
    await vscode.commands.executeCommand('prefixLens.openInspector');
    await showing('self-edit', (s) => s.file === session.uri.fsPath);
    const plain = await openTranscript(fixture('anthropic-clean.json'));
    assert.equal(plain.session.report?.steps.length, 0, 'the request has no steps');
    const shown = await showing('anthropic-clean.json', (s) => s.file === plain.session.uri.fsPath);
    assert.equal(shown.step, undefined, 'no step selected');
  });

  test('"Compare with…" shows the snapshot step in the inspector; its findings are its own and go when the comparison closes', async () => {
    const before = vscode.Uri.file(fixture('compare-before.json'));
    const after = vscode.Uri.file(fixture('compare-after.json'));
    const report = await vscode.commands.executeCommand<Report>('prefixLens.compareWith', before, after);
    const snapshot = report.steps.at(-1);
    assert.equal(snapshot?.source, 'snapshot');
    const shown = await showing('the comparison', (s) => s.comparedWith === 'compare-before.json');
    assert.equal(shown.file, after.fsPath);
    assert.equal(shown.step, snapshot.index, 'the snapshot step (older left, newer right) is selected');
    const rules = () => comparedRules(after);
    await waitFor('the comparison\'s findings', () => rules().includes('prefix-mutated (compare)'));
    await waitFor('the file\'s own finding', () => rules().includes('tool-result-orphaned'));
    assert.equal(rules().filter((r) => r === 'tool-result-orphaned').length, 1, `the file's own finding is not repeated: ${rules().join(', ')}`);
    // Following another transcript closes the comparison and its diagnostics.
    const { session } = await openTranscript(example('self-edit.trace.jsonl'));
    await showing('self-edit', (s) => s.file === session.uri.fsPath && s.comparedWith === undefined);
    await waitFor('the comparison\'s findings cleared', () => !rules().includes('prefix-mutated (compare)'));
  });

  test('the fix the panel offers says where it goes: in place on a transcript, "in a repaired copy" on a request log', async () => {
    const log = await openTranscript(fixture('compacted.requests.jsonl'));
    await vscode.commands.executeCommand('prefixLens.openInspector');
    const onLog = await showing('the log\'s fix', (s) => s.file === log.session.uri.fsPath && s.fix !== undefined);
    assert.equal(onLog.fix, 'Compact in whole pairs in a repaired copy', 'as the quick fix says: a copy, the log left as written');
    // Opened beside the panel (its group keeps it visible), which follows it.
    await vscode.commands.executeCommand('workbench.action.focusFirstEditorGroup');
    const seed = await openTranscript(example('seed-incident.trace.jsonl'));
    const onSeed = await showing('the seed\'s fix', (s) => s.file === seed.session.uri.fsPath && s.fix !== undefined);
    assert.equal(onSeed.fix, 'Revert the rewrite');
  });

  test('closing the panel ends the comparison: its findings go, the file\'s own stay', async () => {
    const before = vscode.Uri.file(fixture('compare-before.json'));
    const after = vscode.Uri.file(fixture('compare-after.json'));
    await vscode.commands.executeCommand('prefixLens.compareWith', before, after);
    const rules = () => comparedRules(after);
    await waitFor('the comparison\'s findings', () => rules().includes('prefix-mutated (compare)'));
    await waitFor('the file\'s own finding', () => rules().includes('tool-result-orphaned'));
    const panel = await waitFor('the comparison in the inspector panel', () =>
      vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputWebview && t.label.startsWith('Compare:')),
    );
    await vscode.window.tabGroups.close(panel);
    await waitFor('the comparison\'s findings cleared', () => !rules().includes('prefix-mutated (compare)'));
    assert.deepEqual(rules(), ['tool-result-orphaned'], 'the file\'s own finding stays');
    const { inspector } = await api();
    assert.equal(inspector.showing.comparedWith, undefined);
  });

  test('"Compare with HEAD" never duplicates the file\'s own diagnostics', async () => {
    const file = vscode.Uri.file(repoPath('examples', 'seed-incident.trace.jsonl')); // read only
    const report = await vscode.commands.executeCommand<Report>('prefixLens.compareWithHead', file);
    assert.equal(report.steps.at(-1)?.decision, 'patch', 'unchanged since HEAD');
    const { sessions } = await api();
    const session = await waitFor('the seed session', () => sessions.get(file)?.report && sessions.get(file));
    await waitFor('its own diagnostics', () => diagnosticsOf(file).length >= (session.report?.findings.length ?? 1));
    await new Promise((r) => setTimeout(r, 200));
    const ours = vscode.languages.getDiagnostics(file).filter((d) => d.source?.startsWith('Prefix Lens'));
    const keys = ours.map((d) => `${codeOf(d).value} ${d.range.start.line}:${d.range.start.character} ${d.message}`);
    assert.equal(new Set(keys).size, keys.length, `no diagnostic twice:\n${keys.join('\n')}`);
    assert.equal(keys.length, session.report?.findings.length);
  });
});

/** The file's Prefix Lens diagnostics by rule, a comparison's marked by their source: `prefix-mutated (compare)`. */
function comparedRules(uri: vscode.Uri): string[] {
  const ours = vscode.languages.getDiagnostics(uri).filter((d) => d.source?.startsWith('Prefix Lens'));
  return ours.map((d) => `${codeOf(d).value}${d.source === 'Prefix Lens (compare)' ? ' (compare)' : ''}`);
}
