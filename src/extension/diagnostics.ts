/**
 * The diagnostics manager: owns the DiagnosticCollection and subscribes to
 * Sessions: publishes each new report's findings at their exact ranges with
 * the rule id as code (linking to docs/rules.md) and their related locations,
 * and clears a document's diagnostics when its session closes.
 */
import * as vscode from 'vscode';
import { threadSuffix } from '../shared/session-text';
import type { Session, Sessions } from './sessions';
import { readSettings, REPUBLISH_KEYS, type SeverityOverride } from './settings';
import { rangeByLines } from './disk-start';
import { type Finding, relatedLocations, type Report, type RuleId, type Severity, shownThread } from './engine';

const SEVERITY: Readonly<Record<Severity | Exclude<SeverityOverride, 'off'>, vscode.DiagnosticSeverity>> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  info: vscode.DiagnosticSeverity.Information,
  hint: vscode.DiagnosticSeverity.Hint,
};

export const DIAGNOSTIC_SOURCE = 'Prefix Lens';

/** Where a rule's documentation lives: `<rulesDoc>#<rule-id>`. */
export function ruleDocUri(rulesDoc: vscode.Uri, rule: RuleId): vscode.Uri {
  return rulesDoc.with({ fragment: rule });
}

/** The diagnostics of one report (pure apart from vscode value types). */
export function toDiagnostics(
  report: Report,
  session: Pick<Session, 'uri' | 'range'>,
  overrides: Readonly<Partial<Record<RuleId, SeverityOverride>>>,
  rulesDoc: vscode.Uri,
): vscode.Diagnostic[] {
  const out: vscode.Diagnostic[] = [];
  for (const finding of report.findings) {
    const override = overrides[finding.rule];
    if (override === 'off') continue;
    out.push(toDiagnostic(finding, report, session, override ?? finding.severity, rulesDoc));
  }
  return out;
}

/** " (thread 2)" when the step's file holds more than one conversation, as the CodeLens and the Rewrites view say it. */
function threadOf(report: Report, index: number): string {
  const step = report.steps.find((s) => s.index === index);
  return threadSuffix(step ? shownThread(report.steps, step) : undefined);
}

function toDiagnostic(
  finding: Finding,
  report: Report,
  session: Pick<Session, 'uri' | 'range'>,
  severity: Exclude<SeverityOverride, 'off'>,
  rulesDoc: vscode.Uri,
): vscode.Diagnostic {
  const prefix = finding.step !== undefined ? `Step ${finding.step}${threadOf(report, finding.step)}: ` : '';
  const diagnostic = new vscode.Diagnostic(session.range(finding.range), prefix + finding.message, SEVERITY[severity]);
  diagnostic.source = DIAGNOSTIC_SOURCE;
  diagnostic.code = { value: finding.rule, target: ruleDocUri(rulesDoc, finding.rule) };
  const related = relatedLocations(finding, report).filter((r) => !r.file || sameFile(r.file, session.uri));
  if (related.length > 0) {
    diagnostic.relatedInformation = related.map(
      (r) => new vscode.DiagnosticRelatedInformation(new vscode.Location(session.uri, session.range(r.range)), r.message),
    );
  }
  return diagnostic;
}

function sameFile(file: string, uri: vscode.Uri): boolean {
  return file === uri.fsPath || file === uri.toString();
}

export class DiagnosticsManager implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection('prefixLens');
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly sessions: Sessions,
    private readonly rulesDoc: vscode.Uri,
  ) {
    this.subscriptions.push(
      sessions.onDidUpdate((s) => this.publish(s)),
      sessions.onDidClose((uri) => this.collection.delete(uri)),
      sessions.onDidCheckOnDisk(({ uri, report }) => this.collection.set(uri, toDiagnostics(report, { uri, range: (r) => rangeByLines(report.lineStarts, r) }, readSettings(uri).severity, this.rulesDoc))),
      vscode.workspace.onDidChangeConfiguration((e) => REPUBLISH_KEYS.some((k) => e.affectsConfiguration(k)) && this.republishAll()),
    );
  }

  private publish(session: Session): void {
    if (!session.report) return;
    const overrides = readSettings(session.uri).severity;
    this.collection.set(session.uri, toDiagnostics(session.report, session, overrides, this.rulesDoc));
  }

  /** Re-publishes every session (severity overrides changed). */
  private republishAll(): void {
    for (const session of this.sessions.all()) this.publish(session);
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
    this.collection.dispose();
  }
}
