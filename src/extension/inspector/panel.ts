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
import { APPLY_FIX_COMMAND, type FixOutcome, fixesToCopy } from '../fixes';
import type { Session, Sessions } from '../sessions';
import { isZip } from '../viewed-files';
import { INSPECTOR_PAGE, makeNonce, webviewHtml } from '../webview-html';
import { activeTabUri, basename, commandTarget } from './targets';
import { transcriptView, chooseStep, fixToCopy, type InspectorEngine, stepEdit } from './views';
import { renderOrReuse, type ShownStep, stepAhead } from './ahead';
import { planFix, renderWindow, type Report } from '../engine';

export const OPEN_INSPECTOR_COMMAND = 'prefixLens.openInspector';

const ENGINE: InspectorEngine = {
  renderWindow: (window) => renderWindow(window),
  planFix: (rewrite, sourceText) => planFix(rewrite, sourceText),
};
/** A request log or a growing file: the fix writes a repaired copy (fixes.ts), and its button and preview say so. */
const COPY_ENGINE = fixToCopy(ENGINE);

/** The build output the webview may load from; nothing else. */
function webviewRoot(context: vscode.ExtensionContext): vscode.Uri {
  return vscode.Uri.joinPath(context.extensionUri, 'dist', 'webview');
}

function webviewOptions(context: vscode.ExtensionContext): vscode.WebviewOptions & vscode.WebviewPanelOptions {
  return { enableScripts: true, localResourceRoots: [webviewRoot(context)], retainContextWhenHidden: false };
}

/** What the panel shows (for the extension's API and its tests). */
export interface InspectorShowing {
  readonly file?: string;
  readonly step?: number;
  readonly reason?: string;
  /** Set while showing a comparison: the older side's name. */
  readonly comparedWith?: string;
  /** The title of the whole-pair fix the panel offers for the step (its button and preview). */
  readonly fix?: string;
}

/** A "Compare with…" result the panel shows: `report` judges `newer` as a rewrite of the older file. */
export interface Comparison {
  readonly report: Report;
  readonly newer: vscode.Uri;
  readonly olderName: string;
  /** Called once when the panel stops showing it (its diagnostics are cleared there). */
  onClose(): void;
}

/**
 * A report the panel shows without a text session of its own: a comparison, or a file shown only in
 * a view (a zipped `.eval`, checked by Sessions' viewed files). No fix: neither is edited here.
 */
interface Detached {
  readonly title: string;
  report(): Report | undefined;
  /** What the panel says while there is no report (checking, or why the check failed). */
  waiting(): string;
  /** The step shown until another is picked. */
  firstStep(report: Report): number | undefined;
  /** Set for a comparison: the older side's name. */
  readonly comparedWith?: string;
  /** Set for a viewed file: its URI. */
  readonly viewed?: vscode.Uri;
  /** Called once when the panel stops showing it. */
  close(): void;
}

/** What the webview shows; how `rendered` was rendered, and the step after it rendered ahead (ahead.ts). */
interface Shown extends ShownStep {
  readonly report: Report | undefined;
  readonly step: number | undefined;
  readonly ready: boolean;
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

  /** The comparison or viewed file shown instead of a session, and its selected step. */
  private detached: Detached | undefined;
  private detachedStep: number | undefined;
  /** Why the panel shows no transcript, when the active tab is a file it cannot read. */
  private unreadable: string | undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly sessions: Sessions,
  ) {
    context.subscriptions.push(
      sessions.onDidChangeActive((session) => session && this.follow(session)),
      vscode.window.tabGroups.onDidChangeTabs(() => this.followTab()),
      vscode.window.tabGroups.onDidChangeTabGroups(() => this.followTab()),
    );
  }

  /** A zipped .eval has no text session: the panel follows its tab (the session view), and from it back to a transcript's tab. */
  private followTab(): void {
    const uri = activeTabUri();
    if (!this.panel || !uri) return;
    const session = this.sessions.get(uri);
    if (session && this.detached?.viewed) this.follow(session);
    else if (!session && isZip(uri)) this.showViewed(uri);
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
    else if (uri && isZip(uri)) this.showViewed(uri);
    else if (uri) this.showUnreadable(uri);
    if (session && target.step !== undefined) session.selectStep(target.step);
  }

  /** The active tab is a file Prefix Lens does not read as a transcript: say so, never keep showing the previous file. */
  private showUnreadable(uri: vscode.Uri): void {
    this.leave();
    const name = basename(uri);
    if (this.panel) this.panel.title = `Inspector: ${name}`;
    this.unreadable = `${name} is not a transcript Prefix Lens recognises: nothing to inspect.`;
    this.push();
  }

  /** A zipped `.eval` (no text document): its report from Sessions' viewed files, checked and followed on disk while shown. */
  private showViewed(uri: vscode.Uri): void {
    const viewed = this.sessions.viewed;
    if (this.detached?.viewed?.toString() === uri.toString()) return;
    const shown = viewed.show(uri);
    const updates = viewed.onDidUpdate((file) => file.uri.toString() === uri.toString() && this.push());
    this.showDetached({
      title: `Inspector: ${basename(uri)}`,
      report: () => viewed.get(uri)?.report,
      waiting: () => {
        const failure = viewed.get(uri)?.failure;
        return failure ? `Prefix Lens could not check ${basename(uri)}: ${failure}` : `Checking ${basename(uri)}…`;
      },
      firstStep: () => undefined,
      viewed: uri,
      close: () => {
        updates.dispose();
        shown.dispose();
      },
    });
  }

  private showDetached(detached: Detached): void {
    this.leave();
    this.detached = detached;
    if (this.panel) this.panel.title = detached.title;
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
    this.showDetached({
      title: `Compare: ${basename(comparison.newer)} ← ${basename(comparison.olderName)}`,
      report: () => comparison.report,
      waiting: () => '',
      firstStep: (report) => report.steps.at(-1)?.index,
      comparedWith: comparison.olderName,
      close: () => comparison.onClose(),
    });
  }

  /** What the panel shows (or will show as soon as it is visible): a transcript and step, a comparison, or why nothing. */
  get showing(): InspectorShowing {
    const detached = this.detached;
    if (detached) {
      const report = detached.report();
      if (!report) return { reason: detached.waiting() };
      const step = this.detachedSelected(detached, report);
      return { file: report.file, ...(step === undefined ? {} : { step }), ...(detached.comparedWith ? { comparedWith: detached.comparedWith } : {}) };
    }
    const report = this.session?.report;
    if (!report) return { reason: this.session ? 'checking' : this.unreadable ?? 'no transcript' };
    const step = chooseStep(report, this.session?.selectedStep);
    const fix = this.shown.step === step ? this.shown.rendered?.detail.fix?.title : undefined;
    return { file: report.file, ...(step === undefined ? {} : { step }), ...(fix ? { fix } : {}) };
  }

  private detachedSelected(detached: Detached, report: Report): number | undefined {
    return chooseStep(report, this.detachedStep, detached.firstStep(report));
  }

  /** Stops showing the current session, comparison (its diagnostics go with it), viewed or unreadable file. */
  private leave(): void {
    this.session = undefined;
    this.sessionSubscription?.dispose();
    this.sessionSubscription = undefined;
    this.unreadable = undefined;
    const detached = this.detached;
    this.detached = undefined;
    this.detachedStep = undefined;
    this.shown = { ...this.shown, report: undefined, rendered: undefined };
    detached?.close();
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
        if (this.detached) this.detachedStep = message.step;
        session?.selectStep(message.step);
        this.push();
        return;
      case 'stepShown': {
        // Once the webview painted the step shown, the step after it goes ahead of `]`.
        const next = stepAhead(this.shown, message.step);
        if (next) this.shown = { ...this.shown, ahead: next.ahead };
        if (next?.message) this.post(next.message);
        return;
      }
      case 'reveal':
        await session?.revealRange(message.range);
        return;
      case 'applyFix': {
        const outcome = session ? await vscode.commands.executeCommand<FixOutcome>(APPLY_FIX_COMMAND, session.uri, message.step) : undefined;
        const applied = outcome?.applied ?? false;
        const text = !applied
          ? 'The fix could not be applied.'
          : outcome?.notice
            ? `${outcome.notice.charAt(0).toUpperCase()}${outcome.notice.slice(1)}`
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
    if (this.detached) return this.pushDetached(this.detached);
    const session = this.session;
    const report = session?.report;
    if (!session || !report) {
      this.showEmpty(session ? 'Checking the transcript…' : this.unreadable ?? 'Open a transcript (.jsonl / .json / .eval) to inspect its rewrites.');
      return;
    }
    this.pushReport(report, chooseStep(report, session.selectedStep), () => session.document.getText(), fixesToCopy(session) ? COPY_ENGINE : ENGINE);
  }

  /** A comparison's or viewed file's steps (a comparison's snapshot step first); no fix (neither file is edited). */
  private pushDetached(detached: Detached): void {
    const report = detached.report();
    if (!report) return this.showEmpty(detached.waiting());
    this.pushReport(report, this.detachedSelected(detached, report), () => undefined, ENGINE);
  }

  /**
   * A new report goes whole (the transcript view); a new step of the report shown as splices of the
   * step shown (only what differs between their windows), or whole when no step is shown.
   */
  private pushReport(report: Report, step: number | undefined, sourceText: () => string | undefined, engine: InspectorEngine): void {
    const shown = this.shown;
    const render = () => (step === undefined ? undefined : renderOrReuse(shown.ahead, report, step, engine, sourceText));
    let rendered = shown.rendered;
    if (report !== shown.report) {
      rendered = render();
      const { detail, ...view } = transcriptView(report, step, engine, sourceText(), rendered);
      // The file shown, grown or edited: its step as splices of the one shown, like a step change.
      const edit = rendered && shown.rendered && report.file === shown.report?.file ? stepEdit(shown.rendered, rendered) : undefined;
      this.post(edit ? { type: 'transcript', view, edit } : { type: 'transcript', view: { ...view, ...(detail ? { detail } : {}) } });
    } else if (step !== shown.step && step !== undefined) {
      rendered = render();
      const edit = rendered && shown.rendered && stepEdit(shown.rendered, rendered);
      if (edit) this.post(edit);
      else if (rendered) this.post({ type: 'step', selected: step, detail: rendered.detail });
    }
    this.shown = { report, step, ready: true, engine, sourceText, ...(rendered ? { rendered } : {}) };
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
