/**
 * The inspector panel's host side: one webview panel beside the transcript that
 * follows the active transcript and its selected step both ways, answers the
 * webview's `ready` with the full transcript view, and restores after a reload through a
 * `WebviewPanelSerializer`.
 */
import * as vscode from 'vscode';
import {
  assertNever,
  type HostMessage,
  type InspectorState,
  parseInspectorState,
  parseWebviewMessage,
  PROTOCOL_VERSION,
  VIEW_TYPE,
  type WebviewMessage,
} from '../../shared/protocol';
import { APPLY_FIX_COMMAND, type FixOutcome } from '../fixes';
import type { Session, Sessions } from '../sessions';
import { INSPECTOR_PAGE, makeNonce, webviewHtml } from '../webview-html';
import { transcriptView, chooseStep, type InspectorEngine, type RenderedStep, renderStep, stepEdit } from './views';
import { planFix, renderWindow, type Report } from '../engine';

export const OPEN_INSPECTOR_COMMAND = 'prefixLens.openInspector';

const ENGINE: InspectorEngine = {
  renderWindow: (window) => renderWindow(window),
  planFix: (rewrite, sourceText) => planFix(rewrite, sourceText),
};

/** The build output the webview may load from; nothing else. */
function webviewRoot(context: vscode.ExtensionContext): vscode.Uri {
  return vscode.Uri.joinPath(context.extensionUri, 'dist', 'webview');
}

function webviewOptions(context: vscode.ExtensionContext): vscode.WebviewOptions & vscode.WebviewPanelOptions {
  return { enableScripts: true, localResourceRoots: [webviewRoot(context)], retainContextWhenHidden: false };
}

/** Arguments the command accepts: (uri?, step?) from a CodeLens, or (step) alone. */
function commandTarget(args: unknown[]): { uri?: vscode.Uri; step?: number } {
  const [first, second] = args;
  if (first instanceof vscode.Uri) return { uri: first, ...(typeof second === 'number' ? { step: second } : {}) };
  if (typeof first === 'number') return { step: first };
  return {};
}

/** What the panel shows (for the extension's API and its tests). */
export interface InspectorShowing {
  readonly file?: string;
  readonly step?: number;
  readonly reason?: string;
  /** Set while showing a comparison: the older side's name. */
  readonly comparedWith?: string;
}

/** A "Compare with…" result the panel shows: `report` judges `newer` as a rewrite of the older file. */
export interface Comparison {
  readonly report: Report;
  readonly newer: vscode.Uri;
  readonly olderName: string;
  /** Called once when the panel stops showing it (its diagnostics are cleared there). */
  onClose(): void;
}

const basename = (uri: vscode.Uri | string) => (typeof uri === 'string' ? uri : uri.path).split(/[\\/]/).pop() ?? '';

/** The file of the active editor tab (text, custom or binary editor), if it has one. */
function activeTabUri(): vscode.Uri | undefined {
  const input: unknown = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  if (input instanceof vscode.TabInputText || input instanceof vscode.TabInputCustom) return input.uri;
  if (input instanceof vscode.TabInputTextDiff) return input.modified;
  return undefined;
}

interface Shown {
  readonly report: Report | undefined;
  readonly step: number | undefined;
  readonly ready: boolean;
  readonly rendered?: RenderedStep;
}

const NOTHING_SHOWN: Shown = { report: undefined, step: undefined, ready: false };

class InspectorHost implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private session: Session | undefined;
  private readonly panelSubscriptions: vscode.Disposable[] = [];
  private sessionSubscription: vscode.Disposable | undefined;
  /**
   * What the webview last received, to send a step change instead of the whole transcript view, and
   * the step's texts as splices of the shown step's (`rendered`) instead of whole.
   */
  private shown: Shown = NOTHING_SHOWN;

  /** The comparison shown instead of a session, and its selected step. */
  private comparison: Comparison | undefined;
  private comparisonStep: number | undefined;
  /** Why the panel shows no transcript, when the active tab is a file it cannot read. */
  private unreadable: string | undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly sessions: Sessions,
  ) {
    context.subscriptions.push(sessions.onDidChangeActive((session) => session && this.follow(session)));
  }

  open(...args: unknown[]): void {
    const target = commandTarget(args);
    const uri = target.uri ?? activeTabUri();
    const session = uri ? this.sessions.get(uri) : this.sessions.active();
    // Opened on request (command, CodeLens, Compare with…): the panel takes focus, so its keys act in it and
    // never type into the transcript. Following the active transcript (`follow`) never moves focus.
    if (!this.panel) {
      const column = { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false };
      this.adopt(vscode.window.createWebviewPanel(VIEW_TYPE, 'Prefix Lens Inspector', column, webviewOptions(this.context)));
    } else this.panel.reveal(undefined, false);
    if (session) this.follow(session);
    else if (uri) this.showUnreadable(uri);
    if (session && target.step !== undefined) session.selectStep(target.step);
  }

  /** The active tab is a file Prefix Lens does not read as a text transcript (a zipped `.eval`, any other file): say so, never keep showing the previous file. */
  private showUnreadable(uri: vscode.Uri): void {
    this.leave();
    const name = basename(uri);
    if (this.panel) this.panel.title = `Inspector: ${name}`;
    this.unreadable = uri.path.toLowerCase().endsWith('.eval')
      ? `${name} is a zipped Inspect AI log: the inspector shows text transcripts only. Check it with \`prefix-lens check\`, or open its .json log.`
      : `${name} is not a transcript Prefix Lens recognises: nothing to inspect.`;
    this.push();
  }

  restore(panel: vscode.WebviewPanel, state: InspectorState): void {
    panel.webview.options = webviewOptions(this.context);
    this.adopt(panel);
    const session = (state.file && this.sessions.get(vscode.Uri.file(state.file))) || this.sessions.active();
    if (session) this.follow(session);
  }

  private adopt(panel: vscode.WebviewPanel): void {
    this.disposePanel();
    this.panel = panel;
    this.shown = NOTHING_SHOWN;
    const webview = panel.webview;
    const root = webviewRoot(this.context);
    webview.html = webviewHtml(INSPECTOR_PAGE, {
      cspSource: webview.cspSource,
      nonce: makeNonce(),
      assetBase: webview.asWebviewUri(root).toString(),
    });
    this.panelSubscriptions.push(
      webview.onDidReceiveMessage((raw) => {
        const message = parseWebviewMessage(raw);
        if (message) void this.receive(message);
      }),
      panel.onDidDispose(() => this.disposePanel()),
      panel.onDidChangeViewState(() => {
        // A hidden webview is torn down (no retained context); it posts `ready` again when shown.
        if (!panel.visible) this.shown = NOTHING_SHOWN;
      }),
    );
  }

  /** "Compare with…": shows the snapshot step of `comparison.report` (older left) until the panel follows something else or closes. */
  showComparison(comparison: Comparison): void {
    this.open(comparison.newer);
    this.leave();
    this.comparison = comparison;
    if (this.panel) this.panel.title = `Compare: ${basename(comparison.newer)} ← ${basename(comparison.olderName)}`;
    this.push();
  }

  /** What the panel shows (or will show as soon as it is visible): a transcript and step, a comparison, or why nothing. */
  get showing(): InspectorShowing {
    const comparison = this.comparison;
    if (comparison) {
      const step = this.comparisonSelected(comparison.report);
      return { file: comparison.report.file, ...(step === undefined ? {} : { step }), comparedWith: comparison.olderName };
    }
    const report = this.session?.report;
    if (!report) return { reason: this.session ? 'checking' : this.unreadable ?? 'no transcript' };
    const step = chooseStep(report, this.session?.selectedStep);
    return { file: report.file, ...(step === undefined ? {} : { step }) };
  }

  private comparisonSelected(report: Report): number | undefined {
    return chooseStep(report, this.comparisonStep, report.steps.at(-1)?.index);
  }

  /** Stops showing the current session, comparison (its diagnostics go with it) or unreadable file. */
  private leave(): void {
    this.session = undefined;
    this.sessionSubscription?.dispose();
    this.sessionSubscription = undefined;
    this.unreadable = undefined;
    const comparison = this.comparison;
    this.comparison = undefined;
    this.comparisonStep = undefined;
    this.shown = { ...this.shown, report: undefined, rendered: undefined };
    comparison?.onClose();
  }

  private follow(session: Session): void {
    if (session === this.session) return;
    this.leave();
    this.session = session;
    this.sessionSubscription = session.onDidChange(() => this.push());
    if (this.panel) this.panel.title = `Inspector: ${basename(session.uri)}`;
    this.push();
  }

  private async receive(message: WebviewMessage): Promise<void> {
    const session = this.session;
    switch (message.type) {
      case 'ready':
        this.shown = { ...NOTHING_SHOWN, ready: true };
        if (message.protocol !== PROTOCOL_VERSION) {
          this.post({ type: 'empty', reason: 'The inspector was updated: close and reopen the panel.' });
          return;
        }
        if (session && session.selectedStep === undefined && message.restoredStep !== undefined) {
          session.selectStep(message.restoredStep);
        }
        this.push();
        return;
      case 'selectStep':
        if (this.comparison) this.comparisonStep = message.step;
        session?.selectStep(message.step);
        this.push();
        return;
      case 'reveal':
        await session?.revealRange(message.range);
        return;
      case 'applyFix': {
        const outcome = session ? await vscode.commands.executeCommand<FixOutcome>(APPLY_FIX_COMMAND, session.uri, message.step) : undefined;
        const applied = outcome?.applied ?? false;
        const text = !applied
          ? 'The fix could not be applied.'
          : outcome?.copy
            ? `Wrote the repaired copy ${basename(outcome.copy)}; the log itself is left as written.`
            : 'Fix applied (one edit: Undo takes it back).';
        this.post({ type: 'fixResult', step: message.step, applied, message: text });
        return;
      }
      default:
        assertNever(message);
    }
  }

  /** Sends what changed since the webview's last message: the transcript view, a step, or nothing. */
  private push(): void {
    if (!this.panel || !this.shown.ready) return;
    if (this.comparison) return this.pushComparison(this.comparison);
    const session = this.session;
    const report = session?.report;
    if (!session || !report) {
      this.showEmpty(session ? 'Checking the transcript…' : this.unreadable ?? 'Open a transcript (.jsonl / .json / .eval) to inspect its rewrites.');
      return;
    }
    this.pushReport(report, chooseStep(report, session.selectedStep), () => session.document.getText());
  }

  /** A comparison's steps, its snapshot step selected; no fix (neither file is edited). */
  private pushComparison(comparison: Comparison): void {
    this.pushReport(comparison.report, this.comparisonSelected(comparison.report), () => undefined);
  }

  /**
   * A new report goes whole (the transcript view); a new step of the report shown as splices of the
   * step shown (only what differs between their windows), or whole when no step is shown.
   */
  private pushReport(report: Report, step: number | undefined, sourceText: () => string | undefined): void {
    const shown = this.shown;
    const render = () => (step === undefined ? undefined : renderStep(report, step, ENGINE, sourceText()));
    let rendered = shown.rendered;
    if (report !== shown.report) {
      rendered = render();
      const { detail, ...view } = transcriptView(report, step, ENGINE, sourceText(), rendered);
      // The file shown, grown or edited: its step as splices of the one shown, like a step change.
      const edit = rendered && shown.rendered && report.file === shown.report?.file ? stepEdit(shown.rendered, rendered) : undefined;
      this.post(edit ? { type: 'transcript', view, edit } : { type: 'transcript', view: { ...view, ...(detail ? { detail } : {}) } });
    } else if (step !== shown.step && step !== undefined) {
      rendered = render();
      const edit = rendered && shown.rendered && stepEdit(shown.rendered, rendered);
      if (edit) this.post(edit);
      else if (rendered) this.post({ type: 'step', selected: step, detail: rendered.detail });
    }
    this.shown = { report, step, ready: true, ...(rendered ? { rendered } : {}) };
  }

  private showEmpty(reason: string): void {
    this.shown = { ...NOTHING_SHOWN, ready: true };
    this.post({ type: 'empty', reason });
  }

  private post(message: HostMessage): void {
    void this.panel?.webview.postMessage(message);
  }

  private disposePanel(): void {
    this.leave();
    for (const d of this.panelSubscriptions.splice(0)) d.dispose();
    const panel = this.panel;
    this.panel = undefined;
    panel?.dispose();
  }

  dispose(): void {
    this.sessionSubscription?.dispose();
    this.disposePanel();
  }
}

/** Registers the command and the serializer; the extension calls this once on activation. */
export interface Inspector {
  readonly showing: InspectorShowing;
  showComparison(comparison: Comparison): void;
}

export function registerInspector(context: vscode.ExtensionContext, sessions: Sessions): Inspector {
  const host = new InspectorHost(context, sessions);
  context.subscriptions.push(
    host,
    vscode.commands.registerCommand(OPEN_INSPECTOR_COMMAND, (...args: unknown[]) => host.open(...args)),
    vscode.window.registerWebviewPanelSerializer(VIEW_TYPE, {
      deserializeWebviewPanel: async (panel, state: unknown) => host.restore(panel, parseInspectorState(state)),
    }),
  );
  return host;
}
