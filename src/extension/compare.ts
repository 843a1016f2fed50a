/**
 * "Compare with…": judges a second transcript file as a rewrite of the first
 * (the engine's `checkAgainst`, run where Sessions' Checker decides), and "Compare with HEAD": the file as a
 * rewrite of its committed version (the git extension's API when available,
 * else `git show HEAD:<path>`; not in untrusted workspaces). Findings land in
 * a separate "Prefix Lens (compare)" diagnostic collection on the newer file while the inspector shows the comparison.
 */
import { execFile } from 'node:child_process';
import { dirname, basename } from 'node:path';
import * as vscode from 'vscode';
import type { Ctx } from './ctx';
import { COMPARE_SOURCE, toDiagnostics } from './diagnostics';
import { readSettings } from './settings';
import type { FileText, Report } from './engine';

function targetUri(ctx: Ctx, uri: unknown): vscode.Uri | undefined {
  if (uri instanceof vscode.Uri) return uri;
  return vscode.window.activeTextEditor?.document.uri ?? ctx.sessions.active()?.uri;
}

async function fileTextOf(uri: vscode.Uri): Promise<{ fileText: FileText; document: vscode.TextDocument }> {
  const document = await vscode.workspace.openTextDocument(uri);
  return { fileText: { file: uri.fsPath || uri.toString(), text: document.getText() }, document };
}

/**
 * Judges `newer` against `older` (through Sessions, inline or in a worker) and shows the comparison
 * in the inspector (older left). Its own findings (the snapshot step's, not the file's own steps')
 * go to the compare collection on `newer` until the inspector stops showing the comparison.
 */
async function judge(ctx: Ctx, older: FileText, newer: FileText, document: vscode.TextDocument, label: string): Promise<Report> {
  const settings = readSettings(document.uri);
  const report = await ctx.sessions.compare(older, newer, document.uri);
  const snapshot = report.steps.at(-1)?.index;
  const own = { ...report, findings: report.findings.filter((f) => snapshot !== undefined && f.step === snapshot) };
  const range = (r: { start: number; end: number }) => new vscode.Range(document.positionAt(r.start), document.positionAt(r.end));
  ctx.compareDiagnostics.clear();
  const diagnostics = ctx.compareDiagnostics;
  ctx.inspector.showComparison({ report, newer: document.uri, olderName: label, onClose: () => diagnostics.clear() });
  diagnostics.set(document.uri, toDiagnostics(own, { uri: document.uri, range }, settings.severity, ctx.rulesDoc, COMPARE_SOURCE));
  return report;
}

export function compareWith(ctx: Ctx): (uri?: unknown, other?: unknown) => Promise<Report | undefined> {
  return async (uri, other) => {
    const base = targetUri(ctx, uri);
    if (!base) return undefined;
    const picked =
      other instanceof vscode.Uri
        ? other
        : (
            await vscode.window.showOpenDialog({
              title: 'Prefix Lens: pick the rewritten transcript to judge against this one',
              defaultUri: base,
              canSelectMany: false,
              filters: { Transcripts: ['json', 'jsonl', 'eval'], 'All files': ['*'] },
            })
          )?.[0];
    if (!picked) return undefined;
    const older = await fileTextOf(base);
    const newer = await fileTextOf(picked);
    return judge(ctx, older.fileText, newer.fileText, newer.document, basename(older.fileText.file));
  };
}

export function compareWithHead(ctx: Ctx): (uri?: unknown) => Promise<Report | undefined> {
  return async (uri) => {
    const target = targetUri(ctx, uri);
    if (!target || target.scheme !== 'file') return undefined;
    const head = await headText(target);
    if (head === undefined) {
      void vscode.window.showWarningMessage(`Prefix Lens: no committed version of ${basename(target.fsPath)} in git HEAD.`);
      return undefined;
    }
    const current = await fileTextOf(target);
    return judge(ctx, { file: `${target.fsPath}@HEAD`, text: head }, current.fileText, current.document, 'HEAD');
  };
}

interface GitApi {
  getRepository(uri: vscode.Uri): { show(ref: string, path: string): Promise<string> } | null;
}

/** The file's text at HEAD: the git extension first, then `git show` (trusted workspaces only). */
async function headText(uri: vscode.Uri): Promise<string | undefined> {
  const viaExtension = await headFromGitExtension(uri).catch(() => undefined);
  if (viaExtension !== undefined) return viaExtension;
  if (!vscode.workspace.isTrusted) return undefined;
  return headFromGitCli(uri.fsPath);
}

async function headFromGitExtension(uri: vscode.Uri): Promise<string | undefined> {
  const extension = vscode.extensions.getExtension<{ getAPI(version: 1): GitApi }>('vscode.git');
  if (!extension) return undefined;
  const exports = extension.isActive ? extension.exports : await extension.activate();
  const repository = exports?.getAPI(1).getRepository(uri);
  return repository ? repository.show('HEAD', uri.fsPath) : undefined;
}

function headFromGitCli(path: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(
      'git',
      ['show', `HEAD:./${basename(path)}`],
      { cwd: dirname(path), maxBuffer: 512 * 1024 * 1024, encoding: 'utf8' },
      (error, stdout) => resolve(error ? undefined : stdout),
    );
  });
}
