/**
 * The "Rewrites" tree view of the active transcript: the file with its
 * summary (so a clean file says so), each step with its decision icon, its
 * findings under it (window-level findings under "Window"), and the tool
 * pairs of the current window; clicking reveals the range in the editor.
 */
import * as vscode from 'vscode';
import { statusText, threadSuffix } from '../shared/session-text';
import { OPEN_SESSION_VIEW_COMMAND } from './session-view/editor';
import type { LensLimit } from './lens-limit';
import type { Session, Sessions } from './sessions';
import { pairStates, shownThread, toolPairs, type Decision, type Finding, type PairState, type Severity, type StepReport, type ToolPair } from './engine';

export const REVEAL_COMMAND = 'prefixLens.revealFinding';
export const SELECT_STEP_COMMAND = 'prefixLens.selectStep';
export const PROBLEMS_ONLY_COMMAND = 'prefixLens.toggleProblemsOnly';

export type RewriteNode =
  | { readonly kind: 'step'; readonly session: Session; readonly step: StepReport }
  | { readonly kind: 'window'; readonly session: Session; readonly findings: readonly Finding[] }
  | { readonly kind: 'finding'; readonly session: Session; readonly finding: Finding }
  | { readonly kind: 'file'; readonly session: Session }
  | { readonly kind: 'pairs'; readonly session: Session; readonly pairs: readonly PairNode[] }
  | { readonly kind: 'pair'; readonly session: Session; readonly pair: PairNode };

interface PairNode {
  readonly pair: ToolPair;
  readonly state: PairState;
}

const PAIR_ICON: Readonly<Record<PairState, [string, string]>> = {
  paired: ['link', 'testing.iconPassed'],
  pending: ['watch', 'list.highlightForeground'],
  'orphan-call': ['debug-disconnect', 'list.errorForeground'],
  'orphan-result': ['debug-disconnect', 'list.errorForeground'],
};

function pairNodes(session: Session): PairNode[] {
  const window = session.report?.finalWindow;
  if (!window) return [];
  const pairs = toolPairs(window);
  const states = pairStates(window, pairs);
  return [...pairs].map(([key, pair]) => ({ pair, state: states.get(key) ?? 'paired' }));
}

const DECISION_ICON: Readonly<Record<Decision, [string, string]>> = {
  patch: ['pass', 'testing.iconPassed'],
  defer: ['warning', 'list.warningForeground'],
  abort: ['error', 'list.errorForeground'],
};

const SEVERITY_ICON: Readonly<Record<Severity, [string, string]>> = {
  error: ['error', 'list.errorForeground'],
  warning: ['warning', 'list.warningForeground'],
  info: ['info', 'list.highlightForeground'],
};

function icon([id, color]: [string, string]): vscode.ThemeIcon {
  return new vscode.ThemeIcon(id, new vscode.ThemeColor(color));
}

export class RewritesTree implements vscode.TreeDataProvider<RewriteNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<RewriteNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subscriptions: vscode.Disposable[];
  /** The view showing this tree (it follows the selected step). */
  readonly view: vscode.TreeView<RewriteNode>;
  /** "Problems only": steps that patch cleanly are hidden. */
  private problemsOnly = false;
  /** The active session's selection changes, which the view follows. */
  private selection: vscode.Disposable | undefined;
  /** One node per step of a report, so a reveal names the very node the view was given (no refetch). */
  private readonly stepNodes = new WeakMap<StepReport, RewriteNode>();
  /** What the view showed selected when it last asked for its items (see `roots`). */
  private revealedFor = '';

  constructor(
    private readonly sessions: Sessions,
    private readonly lensLimit: LensLimit,
  ) {
    this.view = vscode.window.createTreeView('prefixLens.rewrites', { treeDataProvider: this, showCollapseAll: true });
    this.subscriptions = [
      this.view,
      sessions.onDidUpdate(() => this.refresh()),
      sessions.onDidChangeActive((session) => {
        this.selection?.dispose();
        this.selection = session?.onDidChange(() => this.revealSelected());
        this.refresh();
      }),
      sessions.onDidClose(() => this.changed.fire(undefined)),
      // Shown again (the view was hidden while the step changed): the selected step, selected.
      this.view.onDidChangeVisibility((e) => e.visible && this.revealSelected()),
      vscode.commands.registerCommand(PROBLEMS_ONLY_COMMAND, () => this.toggleProblemsOnly()),
    ];
  }

  /** Shows only steps that are not patches (or all again); returns the new state. */
  toggleProblemsOnly(): boolean {
    this.problemsOnly = !this.problemsOnly;
    this.view.description = this.problemsOnly ? 'problems only' : undefined;
    this.changed.fire(undefined);
    return this.problemsOnly;
  }

  /** Redraws (saying so when the file is over VS Code's CodeLens limit), then keeps the active session's selected step in view. */
  private refresh(): void {
    this.view.message = this.lensLimit.notice(this.sessions.active());
    this.changed.fire(undefined);
    this.revealSelected();
  }

  private revealSelected(): void {
    const session = this.sessions.active();
    const step = session?.selectedStep === undefined ? undefined : session.step(session.selectedStep);
    if (!session || !step || !this.view.visible || !this.shows(step)) return;
    void this.view.reveal(this.stepNode(session, step), { select: true, focus: false }).then(undefined, () => undefined);
  }

  private stepNode(session: Session, step: StepReport): RewriteNode {
    let node = this.stepNodes.get(step);
    if (!node) this.stepNodes.set(step, (node = { kind: 'step', session, step }));
    return node;
  }

  /**
   * VS Code drops a reveal of an item its window has not loaded yet (the view just shown, or redrawn
   * for a new report): once it has asked for the items, the selected step is revealed again, once
   * per report, selection and filter.
   */
  private revealOnceLoaded(session: Session): void {
    const key = `${session.uri.toString()}#${session.reportVersion}:${session.selectedStep}:${this.problemsOnly}`;
    if (key === this.revealedFor || session.selectedStep === undefined) return;
    this.revealedFor = key;
    setTimeout(() => this.revealSelected(), 0);
  }

  private shows(step: StepReport): boolean {
    return !this.problemsOnly || step.decision !== 'patch';
  }

  getParent(): RewriteNode | undefined {
    return undefined;
  }

  getChildren(node?: RewriteNode): RewriteNode[] {
    if (!node) return this.roots();
    if (node.kind === 'step') {
      const findings = node.session.report?.findings.filter((f) => f.step === node.step.index) ?? [];
      return findings.map((finding) => ({ kind: 'finding', session: node.session, finding }));
    }
    if (node.kind === 'window') return node.findings.map((finding) => ({ kind: 'finding', session: node.session, finding }));
    if (node.kind === 'pairs') return node.pairs.map((pair) => ({ kind: 'pair', session: node.session, pair }));
    return [];
  }

  private roots(): RewriteNode[] {
    const session = this.sessions.active();
    const report = session?.report;
    if (!session || !report) return [];
    const windowFindings = report.findings.filter((f) => f.step === undefined);
    const steps: RewriteNode[] = report.steps.filter((step) => this.shows(step)).map((step) => this.stepNode(session, step));
    this.revealOnceLoaded(session);
    const pairs = pairNodes(session);
    return [
      { kind: 'file', session },
      ...(windowFindings.length > 0 ? [{ kind: 'window' as const, session, findings: windowFindings }] : []),
      ...steps,
      ...(pairs.length > 0 ? [{ kind: 'pairs' as const, session, pairs }] : []),
    ];
  }

  getTreeItem(node: RewriteNode): vscode.TreeItem {
    if (node.kind === 'step') return this.stepItem(node.session, node.step);
    if (node.kind === 'file') return fileItem(node.session);
    if (node.kind === 'pairs') {
      const item = new vscode.TreeItem('Tool pairs', vscode.TreeItemCollapsibleState.Collapsed);
      item.description = String(node.pairs.length);
      item.iconPath = new vscode.ThemeIcon('references');
      return item;
    }
    if (node.kind === 'pair') return pairItem(node.session, node.pair);
    if (node.kind === 'window') {
      const item = new vscode.TreeItem('Window', vscode.TreeItemCollapsibleState.Expanded);
      item.description = `${node.findings.length} finding${node.findings.length === 1 ? '' : 's'}`;
      item.iconPath = new vscode.ThemeIcon('window');
      return item;
    }
    const { finding, session } = node;
    const item = new vscode.TreeItem(finding.rule, vscode.TreeItemCollapsibleState.None);
    item.description = finding.message;
    item.tooltip = new vscode.MarkdownString().appendText(`${finding.rule}: ${finding.message}`);
    item.iconPath = icon(SEVERITY_ICON[finding.severity]);
    item.command = { title: 'Reveal', command: REVEAL_COMMAND, arguments: [session.uri, finding.range.start, finding.range.end] };
    return item;
  }

  private stepItem(session: Session, step: StepReport): vscode.TreeItem {
    const findings = session.report?.findings.filter((f) => f.step === step.index).length ?? 0;
    const state = findings > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None;
    const thread = session.report ? shownThread(session.report.steps, step) : undefined;
    const item = new vscode.TreeItem(`Step ${step.index}${threadSuffix(thread)} · ${step.decision.toUpperCase()}`, state);
    item.id = `${session.uri.toString()}#step-${step.index}-${session.reportVersion}`;
    item.description = [step.source, ...step.rules].join(' · ');
    item.iconPath = icon(DECISION_ICON[step.decision]);
    item.contextValue = `step.${step.decision}`;
    if (step.range) item.command = { title: 'Select step', command: SELECT_STEP_COMMAND, arguments: [session.uri, step.index] };
    return item;
  }

  dispose(): void {
    this.selection?.dispose();
    for (const d of this.subscriptions) d.dispose();
    this.changed.dispose();
  }
}

function fileItem(session: Session): vscode.TreeItem {
  const item = new vscode.TreeItem(session.uri.path.split('/').pop() ?? session.uri.toString(), vscode.TreeItemCollapsibleState.None);
  const summary = session.report?.session;
  item.description = summary ? statusText(summary) : '';
  if (summary && summary.decisions.patch + summary.decisions.defer + summary.decisions.abort === 0) item.description += ' · no rewrite steps';
  item.iconPath = new vscode.ThemeIcon('file');
  item.command = { title: 'Open Session View', command: OPEN_SESSION_VIEW_COMMAND, arguments: [session.uri] };
  return item;
}

function pairItem(session: Session, { pair, state }: PairNode): vscode.TreeItem {
  const name = pair.call?.value.name ?? pair.results[0]?.value.name ?? '';
  const item = new vscode.TreeItem(name || pair.id || '(no id)', vscode.TreeItemCollapsibleState.None);
  item.description = `${pair.id} · ${state}`;
  item.iconPath = icon(PAIR_ICON[state]);
  const range = pair.call?.value.idSource ?? pair.call?.value.source ?? pair.results[0]?.value.source;
  if (range) item.command = { title: 'Reveal', command: REVEAL_COMMAND, arguments: [session.uri, range.start, range.end] };
  return item;
}
