/**
 * The session registry: one Session per open transcript document, holding the
 * engine's report (checked with `keepRewrites: true`) and the selected step.
 * The one owner of checking: it opens sessions for documents the sniff
 * recognises, decides when a document is (re)checked (a large file's from disk
 * when its tab opens, on open, after edits pause for `prefixLens.debounceMs`,
 * from the line before the edit, when a checking setting changes) and hands
 * every check, "Compare with…" included, to the Checker, which decides where
 * (inline or in a worker). A file shown only in a session view is checked
 * by its `viewed` files (viewed-files.ts). Diagnostics, CodeLens, the tree,
 * the inspector and the session view only subscribe to its events. It also tracks the selected step both ways
 * (editor cursor ↔ step) and the active transcript.
 */
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { Checker } from './checker';
import { readSettings, RECHECK_KEYS } from './settings';
import { isTranscript } from './sniff';
import { DocumentFollower, type FileText, type Report, type SourceRange, type StepReport } from './engine';
import { DiskStarts, positionByLines } from './disk-start';
import { ViewedFiles } from './viewed-files';

export class Session {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private current: Report | undefined;
  private selected: number | undefined;
  /** The document version the report was computed for. */
  reportVersion = -1;
  /** The file changed on disk while open (a writer appends to it): fixes write a repaired copy. */
  grewOnDisk = false;
  /** What was read of the document, kept so a check after an append reads only the new lines (taken over from the check from disk, if any). */
  follower = new DocumentFollower();
  /** The document version of the last change that was not an append at its end (an edit, a replaced file). */
  editedAt = -1;
  /** Counts the checks started: only the latest one's result is kept (two setting changes in a row start two). */
  checksStarted = 0;
  /** Watches the file on disk, so an append is read at once, not when the editor reloads the document. */
  watcher: fs.FSWatcher | undefined;
  /** Why the last check failed (its error), until a check gives a report. */
  failure: string | undefined;

  constructor(readonly document: vscode.TextDocument) {}

  get uri(): vscode.Uri {
    return this.document.uri;
  }

  get report(): Report | undefined {
    return this.current;
  }

  get selectedStep(): number | undefined {
    return this.selected;
  }

  step(index: number): StepReport | undefined {
    return this.current?.steps.find((s) => s.index === index);
  }

  setReport(report: Report, version: number): void {
    this.current = report;
    this.reportVersion = version;
    this.failure = undefined;
    if (this.selected !== undefined && !this.step(this.selected)) this.selected = undefined;
    this.changed.fire();
  }

  /** Selection from the editor cursor: no editor movement. */
  followCursor(offset: number): void {
    const step = this.current?.steps.find((s) => s.range && s.range.start <= offset && offset <= s.range.end);
    if (step && step.index !== this.selected) {
      this.selected = step.index;
      this.changed.fire();
    }
  }

  selectStep(index: number): void {
    const step = this.step(index);
    if (!step) return;
    this.selected = index;
    this.changed.fire();
    if (step.range) void this.moveSelection({ start: step.range.start, end: step.range.start }, false);
  }

  revealRange(range: SourceRange): Promise<void> {
    return this.moveSelection(range, true);
  }

  range(range: SourceRange): vscode.Range {
    return new vscode.Range(this.position(range.start), this.position(range.end));
  }

  /** An offset of the report: past the document's end (lines read from the file before the reload), placed by the report's line starts. */
  private position(offset: number): vscode.Position {
    const end = documentLength(this.document);
    const starts = this.current?.lineStarts ?? [];
    return offset <= end || starts.length === 0 ? this.document.positionAt(offset) : positionByLines(starts, offset);
  }

  private async moveSelection(range: SourceRange, focus: boolean): Promise<void> {
    const target = this.range(range);
    const visible = vscode.window.visibleTextEditors.find((e) => e.document === this.document);
    const editor =
      visible && !focus
        ? visible
        : await vscode.window.showTextDocument(this.document, { viewColumn: visible?.viewColumn, preserveFocus: !focus });
    editor.selection = new vscode.Selection(target.start, target.end);
    editor.revealRange(target, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }

  dispose(): void {
    this.watcher?.close();
    this.changed.dispose();
  }
}

/** A document's length, without copying its text (as `getText()` would, on every keystroke). */
function documentLength(document: vscode.TextDocument): number {
  return document.offsetAt(document.lineAt(document.lineCount - 1).range.end);
}

function tabUris(tab: vscode.Tab): vscode.Uri[] {
  const input = tab.input;
  if (input instanceof vscode.TabInputText) return [input.uri];
  if (input instanceof vscode.TabInputTextDiff) return [input.original, input.modified];
  return [];
}

export class Sessions implements vscode.Disposable {
  private readonly byUri = new Map<string, Session>();
  private lastActive: Session | undefined;
  private readonly activeChanged = new vscode.EventEmitter<Session | undefined>();
  private readonly updated = new vscode.EventEmitter<Session>();
  private readonly closed = new vscode.EventEmitter<vscode.Uri>();
  private readonly failed = new vscode.EventEmitter<Session>();
  private readonly checkedOnDisk = new vscode.EventEmitter<{ readonly uri: vscode.Uri; readonly report: Report }>();
  private readonly droppedOnDisk = new vscode.EventEmitter<vscode.Uri>();
  /** Checks started from the file on disk when its tab opened, before VS Code loaded the document. */
  private readonly diskStarts: DiskStarts;
  /** Re-checks waiting for edits to pause, by document URI. */
  private readonly pending = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly subscriptions: vscode.Disposable[] = [];
  /** Files shown only in a session view, checked while shown. */
  readonly viewed: ViewedFiles;
  readonly onDidChangeActive = this.activeChanged.event;
  /** A session got a new report. */
  readonly onDidUpdate = this.updated.event;
  /** A session ended (document closed or no longer a transcript). */
  readonly onDidClose = this.closed.event;
  /** A session's check failed: its `failure` says why (its report, if any, is the last one that came). */
  readonly onDidFail = this.failed.event;
  /** A file whose tab opened was checked from disk before its document came (its session's report follows then). */
  readonly onDidCheckOnDisk = this.checkedOnDisk.event;
  /** The tab of a file checked from disk (`onDidCheckOnDisk`) closed before its document came: its report is void. */
  readonly onDidDropDiskCheck = this.droppedOnDisk.event;

  constructor(private readonly checker: Checker) {
    this.diskStarts = new DiskStarts(checker, (uri, report) => this.checkedOnDisk.fire({ uri, report }));
    this.viewed = new ViewedFiles(checker, (uri) => this.get(uri) !== undefined);
    this.subscriptions.push(
      vscode.workspace.onDidOpenTextDocument((d) => void this.open(d)),
      vscode.workspace.onDidChangeTextDocument((e) => e.contentChanges.length > 0 && this.changed(e)),
      vscode.workspace.onDidChangeConfiguration((e) => RECHECK_KEYS.some((k) => e.affectsConfiguration(k)) && void this.refreshAll()),
      vscode.workspace.onDidCloseTextDocument((d) => this.close(d.uri)),
      vscode.window.onDidChangeActiveTextEditor((e) => this.updateActive(e)),
      vscode.window.onDidChangeVisibleTextEditors((editors) => editors.forEach((e) => void this.open(e.document))),
      vscode.window.tabGroups.onDidChangeTabs((e) => {
        // A preview tab given another file is changed, not opened.
        this.diskStarts.start([...e.opened, ...e.changed], (uri) => this.get(uri) !== undefined);
        this.closeUntabbed(e.closed);
      }),
      vscode.window.onDidChangeTextEditorSelection((e) => this.get(e.textEditor.document.uri)?.followCursor(e.textEditor.document.offsetAt(e.selections[0]?.active ?? new vscode.Position(0, 0)))),
    );
  }

  /** Picks up the documents already open at activation. */
  start(): void {
    for (const document of vscode.workspace.textDocuments) void this.open(document);
    this.updateActive(vscode.window.activeTextEditor);
  }

  get(uri: vscode.Uri): Session | undefined {
    return this.byUri.get(uri.toString());
  }

  all(): Session[] {
    return [...this.byUri.values()];
  }

  active(): Session | undefined {
    const editor = vscode.window.activeTextEditor;
    return (editor && this.get(editor.document.uri)) ?? this.lastActive;
  }

  /**
   * The report of a document as it is now: at once, or when the re-check of
   * its last edit is done. Undefined for a document with no session (or whose
   * session ends meanwhile), or once `token` is cancelled (edited again).
   */
  reportOf(document: vscode.TextDocument, token: vscode.CancellationToken): Promise<Report | undefined> {
    const current = () => {
      const session = this.get(document.uri);
      return session?.report && session.reportVersion === document.version ? session.report : undefined;
    };
    if (!this.get(document.uri) || current() || token.isCancellationRequested) return Promise.resolve(current());
    return new Promise((resolve) => {
      const done = (report: Report | undefined) => {
        listeners.forEach((l) => l.dispose());
        resolve(report);
      };
      const listeners = [
        this.updated.event((s) => s.document === document && current() !== undefined && done(current())),
        this.closed.event((uri) => uri.toString() === document.uri.toString() && done(undefined)),
        token.onCancellationRequested(() => done(undefined)),
      ];
    });
  }

  /** Opens (and checks) a session when the document is a transcript; undefined otherwise. */
  async open(document: vscode.TextDocument): Promise<Session | undefined> {
    const existing = this.get(document.uri);
    if (existing) return existing;
    if (!isTranscript(document, readSettings(document.uri))) return undefined;
    const session = new Session(document);
    this.byUri.set(document.uri.toString(), session);
    this.watch(session);
    session.follower = (await this.diskStarts.take(document.uri)) ?? session.follower;
    await this.check(session);
    if (vscode.window.activeTextEditor?.document === document) this.updateActive(vscode.window.activeTextEditor);
    return session;
  }

  /** Checks a session's document as it is now; a stale result (document edited, or a later check started meanwhile) is dropped. */
  private async check(session: Session): Promise<void> {
    const started = ++session.checksStarted;
    const settings = readSettings(session.uri);
    const version = session.document.version;
    const file = session.uri.fsPath || session.uri.toString();
    try {
      const request = { kind: 'transcript', file, text: session.document.getText(), tokens: settings.tokens, limits: settings.limits } as const;
      const follow = { follower: session.follower, version, editedAt: session.editedAt };
      const report = await this.checker.follow(request, settings.workerThresholdBytes, follow);
      if (!report || session.checksStarted !== started || session.document.version !== version || this.get(session.uri) !== session) return;
      // A check that read nothing new (a setting that changed nothing for this file) gives the report published: not published again.
      if (report === session.report && version === session.reportVersion) return;
      session.setReport(report, version);
      this.updated.fire(session);
    } catch (error) {
      // Edited into something that is no longer a transcript: end the session quietly.
      if (!isTranscript(session.document, settings)) return this.close(session.uri);
      if (session.checksStarted === started && this.get(session.uri) === session) {
        session.failure = error instanceof Error ? error.message : String(error);
        this.failed.fire(session);
      }
      void vscode.window.showWarningMessage(`Prefix Lens could not check ${file}: ${String(error)}`);
    }
  }

  /** Watches a session's file (VS Code notices a change on disk only after a while, up to half a second). */
  private watch(session: Session): void {
    if (session.uri.scheme !== 'file') return;
    try {
      session.watcher = fs.watch(session.uri.fsPath, () => this.fileChanged(session));
      session.watcher.on('error', () => session.watcher?.close());
    } catch {
      // No watcher (a file system without one): the document's reload still brings each append.
    }
  }

  /**
   * The file changed on disk: whole lines appended to a clean document are
   * read from the file at once and reported (the document's reload comes
   * later; its check finds them read). Anything else waits for the reload.
   */
  private fileChanged(session: Session): void {
    if (this.get(session.uri) !== session || session.document.isDirty || this.pending.has(session.uri.toString())) return;
    const report = session.follower.readAppended(session.uri.fsPath);
    if (!report) return;
    // A check started before (a worker's) is older than this report: its result is dropped.
    session.checksStarted++;
    session.grewOnDisk = true;
    session.setReport(report, session.reportVersion);
    this.updated.fire(session);
  }

  private changed(e: vscode.TextDocumentChangeEvent): void {
    const session = this.get(e.document.uri);
    const length = documentLength(e.document);
    const appended = e.contentChanges.every((c) => c.rangeLength === 0 && c.rangeOffset + c.text.length === length);
    if (session && !appended) {
      session.editedAt = e.document.version;
      const [one, more] = e.contentChanges;
      const change = one && !more ? { from: one.rangeOffset, removed: one.rangeLength, inserted: one.text } : undefined;
      session.follower.edited(e.document.version, Math.min(...e.contentChanges.map((c) => c.rangeOffset)), change);
    }
    // A clean document that gained text at its end by no edit, undo or redo: a writer appended to the file.
    const onDisk = e.reason === undefined && !e.document.isDirty && appended;
    if (session && onDisk) session.grewOnDisk = true;
    this.schedule(e.document, onDisk);
  }

  /**
   * Re-checks a transcript once edits pause for `prefixLens.debounceMs`, or
   * at once after a writer appended to the file (only the new lines are read);
   * a document that was not one (an empty log an agent starts writing) is
   * sniffed again then.
   */
  private schedule(document: vscode.TextDocument, appendedOnDisk = false): void {
    const key = document.uri.toString();
    clearTimeout(this.pending.get(key));
    const recheck = () => {
      this.pending.delete(key);
      const session = this.get(document.uri);
      if (session) void this.check(session);
      else if (!document.isClosed) void this.open(document);
    };
    this.pending.set(key, setTimeout(recheck, appendedOnDisk ? 0 : readSettings(document.uri).debounceMs));
  }

  /** "Compare with…": `newer` judged as a rewrite of `older`, checked where the Checker decides. */
  compare(older: FileText, newer: FileText, scope: vscode.Uri): Promise<Report> {
    const settings = readSettings(scope);
    return this.checker.check({ kind: 'against', older, newer, tokens: settings.tokens, limits: settings.limits }, settings.workerThresholdBytes);
  }

  /** Re-evaluates every open document (settings changed): opens, re-checks or closes sessions; re-checks the viewed files. */
  private async refreshAll(): Promise<void> {
    this.viewed.recheckAll();
    await Promise.all(
      vscode.workspace.textDocuments.map(async (document) => {
        const session = this.get(document.uri);
        if (!session) return void (await this.open(document));
        if (!isTranscript(document, readSettings(document.uri))) return this.close(document.uri);
        await this.check(session);
      }),
    );
  }

  close(uri: vscode.Uri): void {
    if (this.diskStarts.drop(uri)) this.droppedOnDisk.fire(uri);
    const session = this.get(uri);
    if (!session) return;
    this.byUri.delete(uri.toString());
    clearTimeout(this.pending.get(uri.toString()));
    this.pending.delete(uri.toString());
    session.dispose();
    this.closed.fire(uri);
    // Still shown in a view: checked from disk from now on.
    this.viewed.recheck(uri);
    if (this.lastActive === session) {
      this.lastActive = undefined;
      this.activeChanged.fire(this.active());
    }
  }

  /**
   * A document stays open in the extension host for a while after its last
   * editor closes; the user closed the file, so end its session (and its
   * diagnostics) when its last tab goes. Showing it again reopens the session.
   */
  private closeUntabbed(closed: readonly vscode.Tab[]): void {
    const open = new Set(vscode.window.tabGroups.all.flatMap((g) => g.tabs.flatMap(tabUris)).map((u) => u.toString()));
    for (const uri of closed.flatMap(tabUris)) if (!open.has(uri.toString())) this.close(uri);
  }

  private updateActive(editor: vscode.TextEditor | undefined): void {
    const session = editor ? this.get(editor.document.uri) : undefined;
    void vscode.commands.executeCommand('setContext', 'prefixLens.isTranscript', session !== undefined);
    if (!session || session === this.lastActive) return;
    this.lastActive = session;
    this.activeChanged.fire(session);
  }

  dispose(): void {
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
    for (const session of this.byUri.values()) session.dispose();
    this.byUri.clear();
    for (const d of this.subscriptions) d.dispose();
    this.viewed.dispose();
    this.activeChanged.dispose();
    this.updated.dispose();
    this.closed.dispose();
    this.failed.dispose();
    this.checkedOnDisk.dispose();
    this.droppedOnDisk.dispose();
  }
}
