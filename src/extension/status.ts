/**
 * The status bar item of the active transcript: a clean file says it is clean
 * (`$(pass) claude-code · 0 rewrites · 6 pairs ✓`), a file with problems says
 * how many. Hidden when the active editor is not a recognised transcript.
 * Clicking opens the session view.
 */
import * as vscode from 'vscode';
import { isClean, problemsOf, statusText } from '../shared/session-text';
import type { Session, Sessions } from './sessions';
import { OPEN_SESSION_VIEW_COMMAND } from './session-view/editor';

/** The session of the active editor only: a text editor of another file has none. */
export function activeEditorSession(sessions: Sessions): Session | undefined {
  const editor = vscode.window.activeTextEditor;
  return editor ? sessions.get(editor.document.uri) : undefined;
}

/** Calls `show` whenever what a status item of the active editor's session shows may change. */
export function watchActiveEditorSession(sessions: Sessions, show: () => void): vscode.Disposable[] {
  return [sessions.onDidUpdate(show), sessions.onDidChangeActive(show), sessions.onDidClose(show), vscode.window.onDidChangeActiveTextEditor(show)];
}

export class SessionStatus implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('prefixLens.session', vscode.StatusBarAlignment.Left, 50);
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly sessions: Sessions) {
    this.item.name = 'Prefix Lens';
    this.subscriptions = watchActiveEditorSession(sessions, () => this.show());
    this.show();
  }

  /** Hidden when the active editor is not a transcript (a text editor of another file included). */
  private show(): void {
    const session = activeEditorSession(this.sessions);
    const summary = session?.report?.session;
    if (!session || !summary) return this.item.hide();
    const problems = session.report ? problemsOf(session.report) : 0;
    const clean = isClean(summary, problems);
    this.item.text = `$(${clean ? 'pass' : 'warning'}) ${statusText(summary)}`;
    this.item.tooltip = clean
      ? 'Prefix Lens: every rewrite keeps the consumed prefix and every tool call has its result. Click to open the session view.'
      : `Prefix Lens: ${problems} problem${problems === 1 ? '' : 's'}. Click to open the session view.`;
    this.item.command = { title: 'Open Session View', command: OPEN_SESSION_VIEW_COMMAND, arguments: [session.uri] };
    this.item.show();
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
    this.item.dispose();
  }
}
