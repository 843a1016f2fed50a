/// <reference types="mocha" />
/**
 * The session view as a custom editor in the real VS Code (code-server): an
 * Inspect `.eval` (a zip) opens in it by default, a Claude Code session opens
 * in it through the command, and a file growing on disk appears as it grows.
 * Real files of the shared corpus, copied to a scratch folder first.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { api, closeAll, repoPath, waitFor, waitForDisk } from './helpers';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'prefix-lens-session-view-'));
const corpus = (name: string) => {
  const target = path.join(scratch, path.basename(name));
  fs.copyFileSync(repoPath('..', 'shared', 'corpus', name), target);
  return vscode.Uri.file(target);
};

async function lastView(uri: vscode.Uri, what: string, ready: (rows: number) => boolean = (n) => n > 0) {
  const { sessionViews } = await api();
  const probe = () => sessionViews.viewsOf(uri).map((e) => e.lastView).find((v) => v !== undefined && ready(v.rows.length));
  return uri.scheme === 'file' ? waitForDisk(uri.fsPath, what, probe) : waitFor(what, probe);
}

const activeTabViewType = () => {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  return input instanceof vscode.TabInputCustom ? input.viewType : undefined;
};

suite('session view', () => {
  suiteTeardown(closeAll);

  test('an Inspect .eval (a zip) opens in the session view by default', async () => {
    const uri = corpus('inspect-ai/inspect_log_message_deduplication.eval');
    await vscode.commands.executeCommand('vscode.open', uri);
    await waitFor('the custom editor tab', () => activeTabViewType() === 'prefixLens.session');
    const view = await lastView(uri, 'the .eval session snapshot');
    assert.equal(view.summary.format, 'inspect');
    assert.equal(view.textual, false, 'a zip cannot be revealed as text');
    assert.ok(view.rows.some((r) => r.kind === 'message' && r.role === 'user'));
  });

  test('a Claude Code session opens in it through the command, its pairs linked', async () => {
    const uri = corpus('claude-code/spotter_tool_heavy.jsonl');
    await vscode.commands.executeCommand('prefixLens.openSessionView', uri);
    await waitFor('the custom editor tab', () => activeTabViewType() === 'prefixLens.sessionText');
    const view = await lastView(uri, 'the Claude Code session snapshot');
    assert.equal(view.summary.format, 'claude-code');
    assert.deepEqual(view.summary.pairs, { paired: 6, pending: 0, orphaned: 0 });
    const calls = view.rows.flatMap((r) => (r.kind === 'message' ? r.tools.filter((t) => t.role === 'call') : []));
    assert.equal(calls.length, 6);
    assert.ok(calls.every((c) => c.partner !== undefined));
  });

  test('a file growing on disk appears as it grows', async () => {
    const source = fs.readFileSync(repoPath('..', 'shared', 'corpus', 'claude-code', 'spotter_tool_heavy.jsonl'), 'utf8').split('\n').filter((l) => l !== '');
    const file = path.join(scratch, 'growing.jsonl');
    fs.writeFileSync(file, source.slice(0, 12).join('\n') + '\n');
    const uri = vscode.Uri.file(file);
    await vscode.commands.executeCommand('prefixLens.openSessionView', uri);
    const first = await lastView(uri, 'the first snapshot');
    fs.appendFileSync(file, source.slice(12).join('\n') + '\n');
    const grown = await lastView(uri, 'the grown snapshot', (n) => n > first.rows.length);
    assert.ok(grown.summary.pairs.paired > first.summary.pairs.paired, `${first.summary.pairs.paired} → ${grown.summary.pairs.paired} pairs`);
  });
});
