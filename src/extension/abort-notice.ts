/**
 * Aborting steps while an agent runs: subscribes to Sessions and, when a
 * re-check of an open transcript finds an aborting step it did not have
 * before, shows one warning naming the file, step and rules, with an action
 * that opens the inspector at that step (`prefixLens.notifyOnAbort`).
 *
 * Aborts a file already had when it was opened are diagnostics only: the user
 * is looking at that file, and a notification per old abort on every open
 * would be noise. A session whose document had changed before its first
 * report (a log an agent started writing while open, then recognised) is not
 * "already had": its aborts arrived while the user watched. Nor does typing
 * warn: only a re-check of a document that is not dirty (its text is what a
 * writer put on disk) does; the user's own edits show as diagnostics.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { INSPECT_STEP_COMMAND } from './codeLens';
import type { Session, Sessions } from './sessions';
import { readSettings } from './settings';
import type { StepReport } from './engine';

/** One warning shown (tests read them through the extension's API). */
export interface AbortNotice {
  readonly uri: vscode.Uri;
  readonly step: number;
  /** The rules of the step's error findings (what makes it abort). */
  readonly rules: readonly string[];
  readonly message: string;
}

export const OPEN_INSPECTOR_ACTION = 'Open in Inspector';
/** How many shown warnings `shown` keeps. */
const MAX_KEPT = 50;

/** Identifies an aborting step across re-checks of a growing file. */
function abortKey(step: StepReport): string {
  return `${step.index}@${step.range?.start ?? ''}:${step.rules.join(',')}`;
}

export class AbortNotifier implements vscode.Disposable {
  /** Per open transcript: the aborting steps of its last report. */
  private readonly known = new Map<string, Set<string>>();
  private readonly subscriptions: vscode.Disposable[];
  readonly shown: AbortNotice[] = [];

  constructor(sessions: Sessions) {
    this.subscriptions = [
      sessions.onDidUpdate((session) => this.updated(session)),
      sessions.onDidClose((uri) => this.known.delete(uri.toString())),
    ];
  }

  private updated(session: Session): void {
    const aborts = session.report?.steps.filter((s) => s.decision === 'abort') ?? [];
    const key = session.uri.toString();
    const before = this.known.get(key) ?? (session.reportVersion <= 1 ? undefined : new Set<string>());
    this.known.set(key, new Set(aborts.map(abortKey)));
    const fresh = before ? aborts.filter((s) => !before.has(abortKey(s))) : [];
    const first = fresh[0];
    if (first && !session.document.isDirty && readSettings(session.uri).notifyOnAbort) this.notify(session, first, fresh.length - 1);
  }

  private notify(session: Session, step: StepReport, others: number): void {
    const errors = session.report?.findings.filter((f) => f.step === step.index && f.severity === 'error').map((f) => f.rule) ?? [];
    const rules = [...new Set(errors.length > 0 ? errors : step.rules)];
    const name = path.basename(session.uri.fsPath || session.uri.path);
    const more = others > 0 ? ` (and ${others} more aborting step${others === 1 ? '' : 's'})` : '';
    const notice: AbortNotice = { uri: session.uri, step: step.index, rules, message: `Prefix Lens: ${name} step ${step.index} aborts: ${rules.join(', ')}${more}` };
    this.shown.push(notice);
    if (this.shown.length > MAX_KEPT) this.shown.shift();
    void vscode.window.showWarningMessage(notice.message, OPEN_INSPECTOR_ACTION).then((choice) => {
      if (choice === OPEN_INSPECTOR_ACTION) void this.open(notice);
    });
  }

  /** The warning's action: the inspector at the aborting step. */
  open(notice: AbortNotice): Thenable<unknown> {
    return vscode.commands.executeCommand(INSPECT_STEP_COMMAND, notice.uri, notice.step);
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
    this.known.clear();
  }
}
