/**
 * The "Rewrites" tree view of the active transcript: each step with its
 * decision icon, its findings under it (window-level findings under
 * "Window"); clicking reveals the range in the editor.
 */
import * as vscode from 'vscode';
import type { Session, Sessions } from './sessions';
import type { Decision, Finding, Severity, StepReport } from './engine';

export const REVEAL_COMMAND = 'prefixLens.revealFinding';
export const SELECT_STEP_COMMAND = 'prefixLens.selectStep';

export type RewriteNode =
  | { readonly kind: 'step'; readonly session: Session; readonly step: StepReport }
  | { readonly kind: 'window'; readonly session: Session; readonly findings: readonly Finding[] }
  | { readonly kind: 'finding'; readonly session: Session; readonly finding: Finding };

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

  constructor(private readonly sessions: Sessions) {
    this.subscriptions = [
      sessions.onDidUpdate(() => this.changed.fire(undefined)),
      sessions.onDidChangeActive(() => this.changed.fire(undefined)),
      sessions.onDidClose(() => this.changed.fire(undefined)),
    ];
  }

  getChildren(node?: RewriteNode): RewriteNode[] {
    if (!node) return this.roots();
    if (node.kind === 'step') {
      const findings = node.session.report?.findings.filter((f) => f.step === node.step.index) ?? [];
      return findings.map((finding) => ({ kind: 'finding', session: node.session, finding }));
    }
    if (node.kind === 'window') return node.findings.map((finding) => ({ kind: 'finding', session: node.session, finding }));
    return [];
  }

  private roots(): RewriteNode[] {
    const session = this.sessions.active();
    const report = session?.report;
    if (!session || !report) return [];
    const windowFindings = report.findings.filter((f) => f.step === undefined);
    const steps: RewriteNode[] = report.steps.map((step) => ({ kind: 'step', session, step }));
    return windowFindings.length > 0 ? [{ kind: 'window', session, findings: windowFindings }, ...steps] : steps;
  }

  getTreeItem(node: RewriteNode): vscode.TreeItem {
    if (node.kind === 'step') return this.stepItem(node.session, node.step);
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
    const item = new vscode.TreeItem(`Step ${step.index} · ${step.decision.toUpperCase()}`, state);
    item.id = `${session.uri.toString()}#step-${step.index}-${session.reportVersion}`;
    item.description = [step.source, ...step.rules].join(' · ');
    item.iconPath = icon(DECISION_ICON[step.decision]);
    item.contextValue = `step.${step.decision}`;
    if (step.range) item.command = { title: 'Select step', command: SELECT_STEP_COMMAND, arguments: [session.uri, step.index] };
    return item;
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
    this.changed.dispose();
  }
}
