/**
 * Files shown only in a session view, not open as text (a custom document is
 * not a TextDocument, one over VS Code's 50 MB limit never is one, and a zip
 * cannot be): `Sessions`, the one owner of checking, checks them here while a
 * view shows them, read from disk through the Checker (a large file or zip in
 * the worker), again when the file changes on disk (once changes pause) and when
 * a checking setting changes. Not while the file is open as text: its
 * Session is checked then.
 */
import * as vscode from 'vscode';
import type { Checker } from './checker';
import { fileTooLarge, resolveLimits, type Report } from './engine';
import { readSettings } from './settings';

/** Re-checks of a file changing on disk wait this long after its last change. */
const SETTLE_MS = 250;

/** A file shown only in views: its last report and the text it was read from ('' for a zip), or why its last check failed. */
export class ViewedFile {
  report: Report | undefined;
  text = '';
  failure: string | undefined;
  /** Counts the checks started: only the latest one's result is kept. */
  checksStarted = 0;
  /** Views showing it. */
  views = 0;
  timer: ReturnType<typeof setTimeout> | undefined;
  watcher: vscode.Disposable | undefined;

  constructor(readonly uri: vscode.Uri) {}
}

/** Zips (`.eval`) are read as bytes and cannot be shown as text. */
export const isZip = (uri: vscode.Uri) => uri.path.toLowerCase().endsWith('.eval');

export class ViewedFiles implements vscode.Disposable {
  private readonly files = new Map<string, ViewedFile>();
  private readonly updated = new vscode.EventEmitter<ViewedFile>();
  /** A viewed file got a new report, or its check failed. */
  readonly onDidUpdate = this.updated.event;

  constructor(
    private readonly checker: Checker,
    /** True while the file is open as text (its Session is checked instead). */
    private readonly openAsText: (uri: vscode.Uri) => boolean,
  ) {}

  get(uri: vscode.Uri): ViewedFile | undefined {
    return this.files.get(uri.toString());
  }

  /** A view shows `uri`: it is checked (and followed on disk) until every view showing it disposes what this returns. */
  show(uri: vscode.Uri): vscode.Disposable {
    let file = this.get(uri);
    if (!file) {
      const added = (file = new ViewedFile(uri));
      this.files.set(uri.toString(), added);
      added.watcher = this.watch(added);
      void this.check(added);
    }
    file.views++;
    const shown = file;
    return new vscode.Disposable(() => --shown.views === 0 && this.drop(shown));
  }

  /**
   * Follows the file on disk. The pattern is every file of its folder, filtered
   * here by URI: its name as a pattern would be read as a glob (`log[1].jsonl`,
   * `{a}.jsonl` never match themselves).
   */
  private watch(file: ViewedFile): vscode.Disposable {
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.joinPath(file.uri, '..'), '*'));
    const on = (event: vscode.Event<vscode.Uri>, then: (file: ViewedFile) => void) => event((uri) => uri.toString() === file.uri.toString() && then(file));
    return vscode.Disposable.from(
      watcher,
      on(watcher.onDidChange, (f) => this.schedule(f)),
      on(watcher.onDidCreate, (f) => this.schedule(f)),
      on(watcher.onDidDelete, (f) => this.deleted(f)),
    );
  }

  /** The file was deleted: its report is dropped (a check under way is not kept) and the views say so; it is checked again if it comes back. */
  private deleted(file: ViewedFile): void {
    clearTimeout(file.timer);
    file.checksStarted++;
    Object.assign(file, { report: undefined, text: '', failure: 'the file was deleted' });
    this.updated.fire(file);
  }

  /** Checks a viewed file again (its text document closed, a checking setting changed). */
  recheck(uri: vscode.Uri): void {
    const file = this.get(uri);
    if (file) void this.check(file);
  }

  recheckAll(): void {
    for (const file of this.files.values()) void this.check(file);
  }

  private schedule(file: ViewedFile): void {
    clearTimeout(file.timer);
    file.timer = setTimeout(() => void this.check(file), SETTLE_MS);
  }

  private async check(file: ViewedFile): Promise<void> {
    if (this.openAsText(file.uri)) return;
    const started = ++file.checksStarted;
    const settings = readSettings(file.uri);
    try {
      const read = await this.read(file.uri, settings);
      if (file.checksStarted !== started || this.get(file.uri) !== file) return;
      Object.assign(file, read, { failure: undefined });
    } catch (error) {
      if (file.checksStarted !== started || this.get(file.uri) !== file) return;
      file.failure = error instanceof Error ? error.message : String(error);
    }
    this.updated.fire(file);
  }

  private async read(uri: vscode.Uri, settings: ReturnType<typeof readSettings>): Promise<{ report: Report; text: string }> {
    const { size } = await vscode.workspace.fs.stat(uri);
    // A zip is read by the thread that checks it (the worker, over the threshold), as the engine reads files.
    if (isZip(uri) && uri.scheme === 'file') {
      const request = { kind: 'zip', file: uri.fsPath, bytes: size, tokens: settings.tokens, limits: settings.limits } as const;
      return { report: await this.checker.check(request, settings.workerThresholdBytes), text: '' };
    }
    // A file over the limit is refused as the editor's check refuses a document over it, never read whole.
    const { maxFileBytes } = resolveLimits(settings.limits);
    if (size > maxFileBytes) throw fileTooLarge(maxFileBytes);
    const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
    const file = uri.scheme === 'file' ? uri.fsPath : uri.toString();
    return { report: await this.checker.check({ kind: 'transcript', file, text, tokens: settings.tokens, limits: settings.limits }, settings.workerThresholdBytes), text };
  }

  private drop(file: ViewedFile): void {
    clearTimeout(file.timer);
    file.watcher?.dispose();
    this.files.delete(file.uri.toString());
  }

  dispose(): void {
    for (const file of [...this.files.values()]) this.drop(file);
    this.updated.dispose();
  }
}
