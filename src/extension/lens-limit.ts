/**
 * Above VS Code's CodeLens limit. The editor gives no CodeLens (and no
 * tokenization) to a file that is over 20 MB or 300,000 lines when it loads it,
 * while `editor.largeFileOptimizations` is on (the default); it decides once per
 * opened file. For such a transcript a status bar item says so and opens the
 * Rewrites view, which says so too and lists every step the lenses would have.
 */
import * as vscode from 'vscode';
import type { Session, Sessions } from './sessions';
import { readSettings } from './settings';
import { activeEditorSession, watchActiveEditorSession } from './status';

/** VS Code's large-file thresholds (`TextModel.LARGE_FILE_SIZE_THRESHOLD` / `LARGE_FILE_LINE_COUNT_THRESHOLD`). */
export const LARGE_FILE_CHARS = 20 * 1024 * 1024;
export const LARGE_FILE_LINES = 300_000;

/** True when VS Code gives a text of this size no CodeLens (pure). */
export function overLensLimit(chars: number, lines: number, largeFileOptimizations: boolean): boolean {
  return largeFileOptimizations && (chars > LARGE_FILE_CHARS || lines > LARGE_FILE_LINES);
}

/** What the status item shows (for the extension's API and its tests). */
export interface LensLimitStatus {
  readonly visible: boolean;
  readonly text: string;
  readonly tooltip: string;
}

export const REWRITES_VIEW_FOCUS = 'prefixLens.rewrites.focus';

const steps = (n: number) => `${n.toLocaleString('en-US')} step${n === 1 ? '' : 's'}`;

export class LensLimit implements vscode.Disposable {
  /** VS Code's decision per open document, taken the first time it is asked (as the editor takes it on load). */
  private readonly decided = new WeakMap<vscode.TextDocument, boolean>();
  private readonly item = vscode.window.createStatusBarItem('prefixLens.codeLensLimit', vscode.StatusBarAlignment.Left, 49);
  private readonly subscriptions: vscode.Disposable[];
  private shown = false;

  constructor(private readonly sessions: Sessions) {
    this.item.name = 'Prefix Lens: CodeLens limit';
    this.item.command = REWRITES_VIEW_FOCUS;
    this.subscriptions = watchActiveEditorSession(sessions, () => this.show());
    this.show();
  }

  /** True when VS Code shows no CodeLens for this document (the setting off aside). */
  isOver(document: vscode.TextDocument): boolean {
    let over = this.decided.get(document);
    if (over === undefined) {
      const last = document.lineAt(document.lineCount - 1);
      const chars = document.offsetAt(last.range.end);
      const optimized = vscode.workspace.getConfiguration('editor', document).get<boolean>('largeFileOptimizations', true);
      this.decided.set(document, (over = overLensLimit(chars, document.lineCount, optimized)));
    }
    return over;
  }

  /** The Rewrites view's message for a transcript whose steps get no CodeLens, else undefined. */
  notice(session: Session | undefined): string | undefined {
    const count = session?.report?.steps.length ?? 0;
    if (!session || count === 0 || !readSettings(session.uri).codeLens || !this.isOver(session.document)) return undefined;
    const name = session.uri.path.split('/').pop() ?? '';
    return `No CodeLens in ${name}: VS Code shows none in a file over 20 MB or 300,000 lines. Its ${steps(count)} are listed here.`;
  }

  get status(): LensLimitStatus {
    return { visible: this.shown, text: this.item.text, tooltip: typeof this.item.tooltip === 'string' ? this.item.tooltip : '' };
  }

  private show(): void {
    const session = activeEditorSession(this.sessions);
    const count = session?.report?.steps.length ?? 0;
    this.shown = Boolean(this.notice(session));
    if (!this.shown) return this.item.hide();
    this.item.text = `$(list-tree) No CodeLens: ${steps(count)} in Rewrites`;
    this.item.tooltip = `VS Code shows no CodeLens in a file over 20 MB or 300,000 lines (editor.largeFileOptimizations). The Rewrites view lists this file's ${steps(count)}: click to open it.`;
    this.item.show();
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
    this.item.dispose();
  }
}
