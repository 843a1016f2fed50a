/// <reference types="mocha" />
/** Shared helpers of the extension-host suite (bundled into each test file). */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { PrefixLensApi } from '../../../src/extension/extension';
import type { Session } from '../../../src/extension/sessions';

export const EXTENSION_ID = 'prefix-lens.prefix-lens';

export function extension(): vscode.Extension<PrefixLensApi> {
  const ext = vscode.extensions.getExtension<PrefixLensApi>(EXTENSION_ID);
  assert.ok(ext, `${EXTENSION_ID} is loaded`);
  return ext;
}

export async function api(): Promise<PrefixLensApi> {
  const ext = extension();
  return ext.isActive ? ext.exports : ext.activate();
}

export function repoPath(...parts: string[]): string {
  return path.join(extension().extensionPath, ...parts);
}

/**
 * A private copy of a repository file: quick fixes and undo run on copies, so
 * nothing the suite does (VS Code may auto-save refactorings) touches the repo.
 */
function scratchCopy(source: string): string {
  const dir = path.join(os.tmpdir(), `prefix-lens-suite-${process.pid}`);
  const target = path.join(dir, path.basename(source));
  if (!fs.existsSync(target)) {
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(source, target);
  }
  return target;
}

export const fixture = (name: string) => scratchCopy(repoPath('test', 'fixtures', 'vscode', name));
export const example = (name: string) => scratchCopy(repoPath('examples', name));

export async function waitFor<T>(what: string, probe: () => T | undefined | false, timeoutMs = 40_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Waits for what a change on disk brings. VS Code sees a file outside the
 * workspace change only once its watcher for the open editor is up, which is
 * asynchronous: a change made right after opening can go unseen. While
 * waiting, the file's mtime is re-stamped every 2 s (its bytes stay as they
 * are), so the change is seen as soon as the watcher is there.
 */
export async function waitForDisk<T>(file: string, what: string, probe: () => T | undefined | false): Promise<T> {
  let stamped = Date.now();
  return waitFor(what, () => {
    const value = probe();
    if ((value === undefined || value === false) && Date.now() - stamped > 2_000) {
      stamped = Date.now();
      const now = new Date();
      fs.utimesSync(file, now, now);
    }
    return value;
  });
}

/** Opens a file in an editor and waits until its session has a report for the current text. */
export async function openTranscript(file: string): Promise<{ session: Session; editor: vscode.TextEditor }> {
  const { sessions } = await api();
  const document = await vscode.workspace.openTextDocument(file);
  const editor = await vscode.window.showTextDocument(document, { preview: false });
  const session = await waitFor(`a checked session for ${path.basename(file)}`, () => {
    const s = sessions.get(document.uri);
    return s?.report && s.reportVersion === document.version ? s : undefined;
  });
  return { session, editor };
}

/** Waits for the session's report of the document's current version. */
export async function settled(session: Session): Promise<Session> {
  return waitFor('a fresh report', () => (session.report && session.reportVersion === session.document.version ? session : undefined));
}

export function diagnosticsOf(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'Prefix Lens');
}

export async function waitForDiagnostics(uri: vscode.Uri, version: number, session: Session): Promise<vscode.Diagnostic[]> {
  await waitFor('diagnostics of the current version', () => session.reportVersion === version);
  // diagnostics are published in the same tick as the report; give the event loop one turn.
  await new Promise((r) => setTimeout(r, 20));
  return diagnosticsOf(uri);
}

export function codeOf(d: vscode.Diagnostic): { value: string; target: vscode.Uri } {
  const code = d.code as { value: string | number; target: vscode.Uri } | undefined;
  assert.ok(code && typeof code === 'object', 'diagnostic code carries a link target');
  return { value: String(code.value), target: code.target };
}

/** The range of the n-th (0-based) occurrence of `needle` after `anchor` on a line. */
export function rangeOf(document: vscode.TextDocument, line: number, needle: string, anchor = ''): vscode.Range {
  const text = document.lineAt(line).text;
  const from = anchor ? text.indexOf(anchor) : 0;
  assert.ok(from >= 0, `anchor ${anchor} on line ${line}`);
  const at = text.indexOf(needle, from + anchor.length);
  assert.ok(at >= 0, `${needle} on line ${line}`);
  return new vscode.Range(line, at, line, at + needle.length);
}

export function sameRange(actual: vscode.Range, expected: vscode.Range, what: string): void {
  assert.deepEqual(
    [actual.start.line, actual.start.character, actual.end.line, actual.end.character],
    [expected.start.line, expected.start.character, expected.end.line, expected.end.character],
    what,
  );
}

/** Reverts and closes every editor, so each test starts from the files on disk. */
export async function closeAll(): Promise<void> {
  for (const document of vscode.workspace.textDocuments) {
    if (document.isDirty) {
      await vscode.window.showTextDocument(document);
      await vscode.commands.executeCommand('workbench.action.files.revert');
    }
  }
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
}

export async function setSetting(key: string, value: unknown): Promise<void> {
  await vscode.workspace.getConfiguration('prefixLens').update(key, value, vscode.ConfigurationTarget.Global);
}
