/// <reference types="mocha" />
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { api, closeAll, diagnosticsOf, example, extension, fixture, openTranscript } from './helpers';

suite('activation', () => {
  suiteTeardown(closeAll);

  test('is lazy: not active before a JSON document is opened (this file runs first)', () => {
    assert.equal(extension().isActive, false);
    const events = (extension().packageJSON as { activationEvents: string[] }).activationEvents;
    assert.ok(!events.includes('*') && !events.some((e) => e.startsWith('workspaceContains')), events.join(', '));
  });

  test('leaves ordinary JSON alone: no session, no diagnostics, no lenses', async () => {
    const document = await vscode.workspace.openTextDocument(fixture('plain.json'));
    await vscode.window.showTextDocument(document);
    const { sessions, checker } = await api();
    const checks = checker.stats.inline + checker.stats.worker + checker.stats.sliced;
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(sessions.get(document.uri), undefined);
    assert.deepEqual(diagnosticsOf(document.uri), []);
    assert.equal(checker.stats.inline + checker.stats.worker + checker.stats.sliced, checks, 'plain JSON is never checked');
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', document.uri);
    assert.equal(lenses.filter((l) => l.command?.title.startsWith('Step')).length, 0);
  });

  test('activates on a transcript and checks it', async () => {
    const { session } = await openTranscript(example('seed-incident.trace.jsonl'));
    assert.equal(extension().isActive, true);
    assert.equal(session.report?.format, 'native');
    assert.equal(session.report?.steps.length, 1);
    const { sessions } = await api();
    assert.equal(sessions.active(), session);
  });

  test('registers every contributed command', async () => {
    const commands = await vscode.commands.getCommands(true);
    const manifest = extension().packageJSON as { contributes: { commands: { command: string }[] } };
    for (const { command } of manifest.contributes.commands) assert.ok(commands.includes(command), command);
  });
});
