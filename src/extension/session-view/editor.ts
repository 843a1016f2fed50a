/**
 * The session view as a custom editor: the default editor for `.eval` (a zip
 * VS Code refuses as binary), *Open With…* and the editor-title button for
 * `.json` / `.jsonl`. Its report is always `Sessions`' (the one owner of
 * checking; the view only follows its updates, and says why when a check
 * failed): its Session's while the file is open as a text document, else its
 * viewed file's (viewed-files.ts: a file open only in views, a zip), checked
 * again when the file changes on disk: a growing file appears as it grows.
 * A Claude Code session's sub-agent files
 * (`<session-id>/subagents/agent-<id>.jsonl`) are read and checked by the
 * view, each nested under the call that started it, followed the same way,
 * and each read and checked again only when it changed; the session's text is
 * scanned for what links them once a version of it.
 */
import * as vscode from 'vscode';
import { fileOfMessage, parseSessionWebviewMessage, SESSION_PROTOCOL_VERSION, type SessionHostMessage, type SessionWebviewMessage } from '../../shared/session-protocol';
import type { Checker } from '../checker';
import { scanLinks, type Report } from '../engine';
import type { SessionView } from '../../shared/session-protocol';
import type { Sessions } from '../sessions';
import { readSettings } from '../settings';
import { isZip } from '../viewed-files';
import { SESSION_PAGE, makeNonce, webviewHtml } from '../webview-html';
import { SubAgentFiles, subAgentFolder, withSubAgents, type SessionLinks } from './sub-agent-files';
import { sessionView } from './view';

/** The default editor for `.eval`; an option for `.json` / `.jsonl`. */
export const SESSION_EDITOR = 'prefixLens.session';
export const SESSION_TEXT_EDITOR = 'prefixLens.sessionText';
export const OPEN_SESSION_VIEW_COMMAND = 'prefixLens.openSessionView';


/** Re-checks of a growing file wait this long after the last change. */
const SETTLE_MS = 250;

/** A file's report and what its text says of its sub-agents (asked only when it has some). */
interface MainReport {
  readonly report: Report;
  links(): SessionLinks;
  /** Why the latest check failed, when it did after this report (kept and shown with it). */
  readonly failure: string | undefined;
}

class SessionEditor implements vscode.Disposable {
  private readonly subscriptions: vscode.Disposable[] = [];
  /** What the webview was last sent (for the extension-host tests): a view, or why there is none. */
  lastView: SessionView | undefined;
  lastNotice: string | undefined;
  private ready = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private checking: Promise<void> = Promise.resolve();
  /** The snapshot last sent and its sub-agent files, in the order of its `files` (a message names one by index). */
  private sent: { readonly generation: number; readonly files: readonly vscode.Uri[] } = { generation: 0, files: [] };
  /** The session's sub-agent files as last read. */
  private readonly agents = new SubAgentFiles();
  /** The session text's links as last scanned, and the text they were scanned from: a document at a version, or the file as read. */
  private scanned: { readonly of: object; readonly version: number | string; readonly links: SessionLinks } | undefined;
  /** Scans of the session's text for its links (for the extension-host tests: one a version of the text). */
  linkScans = 0;

  constructor(
    readonly uri: vscode.Uri,
    private readonly panel: vscode.WebviewPanel,
    private readonly checker: Checker,
    private readonly sessions: Sessions,
    root: vscode.Uri,
    private readonly onDispose: (editor: SessionEditor) => void,
  ) {
    const webview = panel.webview;
    webview.options = { enableScripts: true, localResourceRoots: [root] };
    webview.html = webviewHtml(SESSION_PAGE, { cspSource: webview.cspSource, nonce: makeNonce(), assetBase: webview.asWebviewUri(root).toString() });
    const agents = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(subAgentFolder(uri), '*'));
    const mine = (other: vscode.Uri) => other.toString() === uri.toString();
    this.subscriptions.push(
      agents,
      agents.onDidChange(() => this.schedule()),
      agents.onDidCreate(() => this.schedule()),
      agents.onDidDelete(() => this.schedule()),
      sessions.onDidUpdate((session) => mine(session.uri) && this.schedule()),
      sessions.onDidFail((session) => mine(session.uri) && this.schedule()),
      sessions.viewed.onDidUpdate((file) => mine(file.uri) && this.schedule()),
      // Checked by Sessions while shown here and not open as text.
      sessions.viewed.show(uri),
      webview.onDidReceiveMessage((raw) => {
        const message = parseSessionWebviewMessage(raw);
        if (message) void this.receive(message);
      }),
      panel.onDidDispose(() => this.dispose()),
    );
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.checking = this.checking.then(() => this.push());
    }, SETTLE_MS);
  }

  /**
   * The file's report, Sessions' (undefined until its first check ends; its
   * failure thrown, or kept with the last report): its Session's while it is open as text, else its viewed
   * file's (read from disk).
   */
  private main(): MainReport | undefined {
    const session = this.sessions.get(this.uri);
    const viewed = session ? undefined : this.sessions.viewed.get(this.uri);
    if (session?.report) {
      const { document } = session;
      return { report: session.report, links: () => this.linksOf(document, document.version, () => document.getText()), failure: session.failure };
    }
    if (viewed?.report) {
      const { report, text } = viewed;
      return { report, links: () => this.linksOf(viewed, text, () => text), failure: viewed.failure };
    }
    const failure = session ? session.failure : viewed?.failure;
    if (failure !== undefined) throw new Error(failure);
    return undefined;
  }

  /** The links of the session's text, scanned again only when it is another text (`of` at another `version`) than the one last scanned. */
  private linksOf(of: object, version: number | string, text: () => string): SessionLinks {
    if (this.scanned?.of !== of || this.scanned.version !== version) {
      this.linkScans++;
      this.scanned = { of, version, links: scanLinks({ file: this.uri.scheme === 'file' ? this.uri.fsPath : this.uri.toString(), text: text() }) };
    }
    return this.scanned.links;
  }

  /** The file's report with its sub-agents (a Claude Code session's), and their files in order; undefined while Sessions' first check runs. */
  private async check(): Promise<{ readonly report: Report; readonly files: readonly vscode.Uri[]; readonly failure: string | undefined } | undefined> {
    const settings = readSettings(this.uri);
    const main = this.main();
    if (!main || main.report.format !== 'claude-code') return main && { report: main.report, files: [], failure: main.failure };
    const { tokens, limits } = settings;
    const agents = await this.agents.read(this.uri, limits, JSON.stringify([tokens, limits]), (subAgents) =>
      this.checker.checkSubAgents({ kind: 'sub-agents', file: main.report.file, subAgents, tokens, limits }, settings.workerThresholdBytes),
    );
    return { report: withSubAgents(main.report, () => main.links(), agents), files: agents.map((a) => a.uri), failure: main.failure };
  }

  private async push(): Promise<void> {
    if (!this.ready) return;
    let message: SessionHostMessage;
    try {
      const checked = await this.check();
      if (!checked) return;
      const generation = this.sent.generation + 1;
      // A check that failed after this report: the report stays, with why the latest check failed beside it.
      const notice = checked.failure === undefined ? undefined : cannotShow(checked.failure);
      message = { type: 'session', view: sessionView(checked.report, !isZip(this.uri), generation), ...(notice !== undefined && { notice }) };
      this.lastView = message.view;
      this.lastNotice = notice;
      this.sent = { generation, files: checked.files };
    } catch (error) {
      message = { type: 'empty', reason: cannotShow(error instanceof Error ? error.message : String(error)) };
      this.lastNotice = message.reason;
    }
    void this.panel.webview.postMessage(message);
  }

  private async receive(message: SessionWebviewMessage): Promise<void> {
    switch (message.type) {
      case 'ready':
        this.ready = message.protocol === SESSION_PROTOCOL_VERSION;
        if (!this.ready) void this.panel.webview.postMessage({ type: 'empty', reason: 'The session view was updated: close and reopen it.' });
        else await (this.checking = this.checking.then(() => this.push()));
        return;
      case 'openStep': {
        // The inspector follows text documents: open the file as text first, then its step.
        const uri = fileOfMessage(message, this.uri, this.sent);
        if (!uri) return;
        const document = await vscode.workspace.openTextDocument(uri);
        await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preview: true, preserveFocus: true });
        await vscode.commands.executeCommand('prefixLens.inspectStep', uri, message.step);
        return;
      }
      case 'reveal': {
        const uri = fileOfMessage(message, this.uri, this.sent);
        if (!uri) return;
        const document = await vscode.workspace.openTextDocument(uri);
        const range = new vscode.Range(document.positionAt(message.range.start), document.positionAt(message.range.end));
        await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, selection: range });
        return;
      }
    }
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const d of this.subscriptions.splice(0)) d.dispose();
    this.onDispose(this);
  }
}

/** The notice for a check that failed (shown as text). */
const cannotShow = (failure: string) => `Prefix Lens cannot show this file as a session: ${failure}`;

/** The open session views (the extension API lists them for the tests). */
export class SessionEditors implements vscode.CustomReadonlyEditorProvider, vscode.Disposable {
  private readonly open = new Set<SessionEditor>();

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly checker: Checker,
    private readonly sessions: Sessions,
  ) {}

  /** The open views of a file, with what each was last sent. */
  viewsOf(uri: vscode.Uri): { readonly lastView: SessionView | undefined; readonly lastNotice: string | undefined; readonly linkScans: number }[] {
    return [...this.open].filter((e) => e.uri.toString() === uri.toString());
  }

  openCustomDocument(uri: vscode.Uri): vscode.CustomDocument {
    return { uri, dispose: () => undefined };
  }

  resolveCustomEditor(document: vscode.CustomDocument, panel: vscode.WebviewPanel): void {
    const root = vscode.Uri.joinPath(this.context.extensionUri, 'dist', 'webview');
    this.open.add(new SessionEditor(document.uri, panel, this.checker, this.sessions, root, (e) => this.open.delete(e)));
  }

  dispose(): void {
    for (const editor of [...this.open]) editor.dispose();
  }
}

/** Registers both editor types and the command that opens the view for a file (default: the active editor's). */
export function registerSessionView(context: vscode.ExtensionContext, checker: Checker, sessions: Sessions): SessionEditors {
  const provider = new SessionEditors(context, checker, sessions);
  const options = { webviewOptions: { retainContextWhenHidden: false }, supportsMultipleEditorsPerDocument: true };
  context.subscriptions.push(
    provider,
    vscode.window.registerCustomEditorProvider(SESSION_EDITOR, provider, options),
    vscode.window.registerCustomEditorProvider(SESSION_TEXT_EDITOR, provider, options),
    vscode.commands.registerCommand(OPEN_SESSION_VIEW_COMMAND, async (uri?: vscode.Uri) => {
      const target = uri instanceof vscode.Uri ? uri : vscode.window.activeTextEditor?.document.uri;
      if (!target) return;
      await vscode.commands.executeCommand('vscode.openWith', target, isZip(target) ? SESSION_EDITOR : SESSION_TEXT_EDITOR);
    }),
  );
  return provider;
}
