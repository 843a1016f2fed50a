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
/** The source of a comparison's findings ("Compare with…"), so the Problems view tells them from the file's own. */
export const COMPARE_SOURCE = 'Prefix Lens (compare)';

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
  source = DIAGNOSTIC_SOURCE,
): vscode.Diagnostic[] {
  const out: vscode.Diagnostic[] = [];
  for (const finding of report.findings) {
    const override = overrides[finding.rule];
    if (override === 'off') continue;
    const diagnostic = toDiagnostic(finding, report, session, override ?? finding.severity, rulesDoc);
    diagnostic.source = source;
    out.push(diagnostic);
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

/** What a diagnostic shows, as a string: two reports that show the same are published once. */
function shownKey(d: vscode.Diagnostic): string {
  const at = (r: vscode.Range) => `${r.start.line}:${r.start.character}-${r.end.line}:${r.end.character}`;
  const related = (d.relatedInformation ?? []).map((r) => `${at(r.location.range)} ${r.message}`);
  return JSON.stringify([at(d.range), d.severity, typeof d.code === 'object' ? d.code.value : d.code, d.message, related]);
}

export class DiagnosticsManager implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection('prefixLens');
  private readonly subscriptions: vscode.Disposable[] = [];
  /** What is shown for each URI (`shownKey`s), and how many times it was published: a report that shows nothing new is not published again. */
  private readonly shown = new Map<string, { readonly key: string; readonly times: number }>();

  constructor(
    private readonly sessions: Sessions,
    private readonly rulesDoc: vscode.Uri,
  ) {
    this.subscriptions.push(
      sessions.onDidUpdate((s) => this.publish(s)),
      sessions.onDidClose((uri) => this.clear(uri)),
      sessions.onDidDropDiskCheck((uri) => this.clear(uri)),
      sessions.onDidCheckOnDisk(({ uri, report }) => this.set(uri, toDiagnostics(report, { uri, range: (r) => rangeByLines(report.lineStarts, r) }, readSettings(uri).severity, this.rulesDoc))),
      vscode.workspace.onDidChangeConfiguration((e) => REPUBLISH_KEYS.some((k) => e.affectsConfiguration(k)) && this.republishAll()),
    );
  }

  private publish(session: Session): void {
    if (!session.report) return;
    const overrides = readSettings(session.uri).severity;
    this.set(session.uri, toDiagnostics(session.report, session, overrides, this.rulesDoc));
  }

  /** Publishes a URI's diagnostics unless they show what is shown already (the session's report of what was checked from disk). */
  private set(uri: vscode.Uri, diagnostics: vscode.Diagnostic[]): void {
    const key = diagnostics.map(shownKey).join('\n');
    const shown = this.shown.get(uri.toString());
    if (shown?.key === key) return;
    this.shown.set(uri.toString(), { key, times: (shown?.times ?? 0) + 1 });
    this.collection.set(uri, diagnostics);
  }

  /** How many times a URI's diagnostics were published since they were last cleared (tests read it through the extension's API). */
  published(uri: vscode.Uri): number {
    return this.shown.get(uri.toString())?.times ?? 0;
  }

  private clear(uri: vscode.Uri): void {
    this.shown.delete(uri.toString());
    this.collection.delete(uri);
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
