/// <reference types="mocha" />
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { api, closeAll, example, fixture, openTranscript, repoPath, waitFor } from './helpers';

/** A real Inspect AI `.eval` (a zip) from the shared corpus, read in place. */
const EVAL = () => repoPath('..', 'shared', 'corpus', 'inspect-ai', 'inspect_log_message_deduplication.eval');

async function showing(what: string, probe: (s: { file?: string; step?: number; reason?: string }) => boolean) {
  const { inspector } = await api();
  return waitFor(`the inspector shows ${what}`, () => probe(inspector.showing) && inspector.showing);
}

suite('inspector panel', () => {
  teardown(async () => {
    await closeAll();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('"Open Inspector" on a zipped .eval never keeps showing the previous transcript', async () => {
    const { session } = await openTranscript(example('self-edit.trace.jsonl'));
    await vscode.commands.executeCommand('prefixLens.openInspector');
    await showing('self-edit', (s) => s.file === session.uri.fsPath && s.step === 1);
    await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(EVAL()));
    await waitFor('the .eval tab', () => vscode.window.tabGroups.activeTabGroup.activeTab?.label === path.basename(EVAL()));
    await vscode.commands.executeCommand('prefixLens.openInspector');
    const shown = await showing('the .eval file', (s) => s.file === undefined);
    assert.match(shown.reason ?? '', /inspect_log_message_deduplication\.eval is a zipped Inspect AI log/);
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
});
