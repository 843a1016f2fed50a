/**
 * A CodeLens above each step:
 * `Step 3/12 · ABORT · tool-result-orphaned toolu_01A · cache −48,213 tokens · Inspect`.
 * Clicking it selects the step and opens the inspector on it.
 */
import * as vscode from 'vscode';
import { threadSuffix } from '../shared/session-text';
import type { Sessions } from './sessions';
import { readSettings, SECTION } from './settings';
import { type Finding, type Report, RULES, shownThread, type StepReport } from './engine';

export const INSPECT_STEP_COMMAND = 'prefixLens.inspectStep';

/** The lens title of one step (pure); `own`: the step's findings. */
function stepLensTitle(report: Report, step: StepReport, own: readonly Finding[]): string {
  const thread = shownThread(report.steps, step);
  const parts = [`Step ${step.index}/${report.steps.length}${threadSuffix(thread)}`, step.decision.toUpperCase()];
  const lead = leadingFinding(own);
  if (lead) parts.push(lead.toolCallId ? `${lead.rule} ${lead.toolCallId}` : lead.rule);
  else if (step.rules[0]) parts.push(step.rules[0]);
  const lost = step.cacheImpact.invalidatedTokens;
  if (lost > 0) parts.push(`cache −${lost.toLocaleString('en-US')} tokens`);
  if (!step.applied) parts.push('not applied');
  parts.push('Inspect');
  return parts.join(' · ');
}

/** Where rules without `meta.leads` start ranking: after every rule that has it. */
const UNRANKED = 1 + Math.max(0, ...Object.values(RULES).map((rule) => rule.leads ?? 0));

/** Which reason the lens names first: the rules' `meta.leads` (pairing breaks, then schema), then the rest by severity. */
function leadRank(finding: Finding): number {
  return RULES[finding.rule].leads ?? UNRANKED + { error: 0, warning: 1, info: 2 }[finding.severity];
}

/** The finding the lens names among a step's own: the most telling abort reason first (stable for ties). */
function leadingFinding(own: readonly Finding[]): Finding | undefined {
  return [...own].sort((a, b) => leadRank(a) - leadRank(b))[0];
}

/** The report's findings by step (looked through once for all the lenses, not once per lens). */
function findingsByStep(report: Report): Map<number, Finding[]> {
  const byStep = new Map<number, Finding[]>();
  for (const f of report.findings) {
    if (f.step === undefined) continue;
    const own = byStep.get(f.step);
    if (own) own.push(f);
    else byStep.set(f.step, [f]);
  }
  return byStep;
}

export class StepCodeLenses implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly sessions: Sessions) {
    this.subscriptions = [
      sessions.onDidUpdate(() => this.changed.fire()),
      vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration(`${SECTION}.codeLens`) && this.changed.fire()),
    ];
  }

  /**
   * The lenses of the document's report. While an edit waits for its re-check
   * they come with the re-check's report: answering none would make VS Code
   * remove every lens (the text below each one jumps up while typing, and back
   * down after the re-check); meanwhile it keeps showing the lenses it has.
   */
  async provideCodeLenses(document: vscode.TextDocument, token: vscode.CancellationToken): Promise<vscode.CodeLens[]> {
    if (!readSettings(document.uri).codeLens) return [];
    const report = await this.sessions.reportOf(document, token);
    if (!report || token.isCancellationRequested) return [];
    const byStep = findingsByStep(report);
    return report.steps
      .filter((step) => step.range)
      .map((step) => {
        const line = document.positionAt(step.range?.start ?? 0).line;
        return new vscode.CodeLens(new vscode.Range(line, 0, line, 0), {
          title: stepLensTitle(report, step, byStep.get(step.index) ?? []),
          tooltip: `Open the inspector on step ${step.index}`,
          command: INSPECT_STEP_COMMAND,
          arguments: [document.uri, step.index],
        });
      });
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
    this.changed.dispose();
  }
}
