/**
 * The quick fixes as WorkspaceEdits: the whole-pair fix from the engine's fix
 * planner for an aborting step (one name, "Compact in whole pairs", or "Revert
 * the rewrite" when the plan only gives back the window before it), and the two
 * single-window fixes. Each fix is ONE WorkspaceEdit (one undo step) holding
 * only the planner's edits, so every other byte of the file stays as it was.
 *
 * A request log, or a file that grew on disk while open (a writer appends to
 * it), is never edited: the whole-pair fix writes a repaired copy beside it, so
 * nothing a writer appends is lost and no save can conflict.
 */
import * as vscode from 'vscode';
import type { Ctx } from './ctx';
import type { Session } from './sessions';
import { addPlaceholderResult, applyEdits, type Finding, planFix, removeOrphanedResult, type TextEdit } from './engine';

export interface PlannedFix {
  readonly title: string;
  readonly kind: 'compact' | 'remove-result' | 'add-result';
  readonly edit: vscode.WorkspaceEdit;
  /** The whole repaired text, for a repaired copy (whole-pair fix only). */
  readonly repaired?: string;
}

/** What `prefixLens.applyFix` did: edited the file in place, or wrote a repaired copy (`copy`, with what it holds said in `notice`). */
export interface FixOutcome {
  readonly applied: boolean;
  readonly copy?: vscode.Uri;
  readonly notice?: string;
}

/** Agent session logs their agent keeps appending to. */
const APPEND_ONLY_FORMATS: ReadonlySet<string> = new Set(['claude-code', 'codex', 'gemini-cli']);

/** A request log, an agent's own session log, or a file that grew on disk while open: fixes go to a copy. */
export function fixesToCopy(session: Session): boolean {
  const report = session.report;
  if (session.grewOnDisk || (report && APPEND_ONLY_FORMATS.has(report.format))) return true;
  return report?.steps.some((s) => s.source === 'request') ?? false;
}

/** `x.requests.jsonl` → `x.requests.repaired.jsonl`, beside it. */
export function repairedCopyUri(uri: vscode.Uri): vscode.Uri {
  const name = uri.path.split('/').pop() ?? 'transcript';
  const dot = name.lastIndexOf('.');
  const copy = dot > 0 ? `${name.slice(0, dot)}.repaired${name.slice(dot)}` : `${name}.repaired`;
  return vscode.Uri.joinPath(uri, '..', copy);
}

function workspaceEdit(session: Session, edits: readonly TextEdit[]): vscode.WorkspaceEdit {
  const edit = new vscode.WorkspaceEdit();
  for (const e of edits) edit.replace(session.uri, session.range(e.range), e.newText);
  return edit;
}

/** True when the session's report describes the document as it is now (edits are offsets into that text). */
function fresh(session: Session): boolean {
  return session.report !== undefined && session.reportVersion === session.document.version;
}

/** The whole-pair fix for an aborting step, or undefined when the planner has none. */
export function compactFix(session: Session, stepIndex: number): PlannedFix | undefined {
  const step = session.step(stepIndex);
  if (!fresh(session) || !step?.rewrite || step.decision !== 'abort') return undefined;
  const text = session.document.getText();
  const plan = planFix(step.rewrite, text);
  if (!plan || plan.edits.length === 0 || plan.verdict.decision === 'abort') return undefined;
  const title = `${plan.title} (step ${stepIndex})${fixesToCopy(session) ? ' in a repaired copy' : ''}`;
  return { title, kind: 'compact', edit: workspaceEdit(session, plan.edits), repaired: applyEdits(text, plan.edits) };
}

/** The single-window fix for an orphan finding (no step): remove the result, or add a placeholder result. */
export function orphanFix(session: Session, finding: Finding): PlannedFix | undefined {
  const window = session.report?.finalWindow;
  if (!fresh(session) || !window || finding.step !== undefined || !finding.toolCallId) return undefined;
  const text = session.document.getText();
  if (finding.rule === 'tool-result-orphaned') {
    const fix = removeOrphanedResult(window, finding.toolCallId, text, finding.range);
    return fix && { title: 'Remove orphaned tool result', kind: 'remove-result', edit: workspaceEdit(session, fix.edits) };
  }
  if (finding.rule === 'tool-use-orphaned') {
    const fix = addPlaceholderResult(window, finding.toolCallId, text, finding.range);
    return fix && { title: 'Add a placeholder result for the pending call', kind: 'add-result', edit: workspaceEdit(session, fix.edits) };
  }
  return undefined;
}

/** `prefixLens.applyFix(uri, step)` (the inspector's fix button, the quick fix on a log): one edit, or a repaired copy. */
export const APPLY_FIX_COMMAND = 'prefixLens.applyFix';

export function applyFix(ctx: Ctx): (uri: vscode.Uri, step: number) => Promise<FixOutcome> {
  return async (uri, step) => {
    const session = ctx.sessions.get(uri);
    const fix = session && compactFix(session, step);
    if (!session || !fix) return { applied: false };
    if (!fixesToCopy(session) || fix.repaired === undefined) return { applied: await vscode.workspace.applyEdit(fix.edit) };
    const copy = repairedCopyUri(session.uri);
    await vscode.workspace.fs.writeFile(copy, new TextEncoder().encode(fix.repaired));
    const later = session.report?.steps.filter((s) => s.index > step && s.thread === session.step(step)?.thread).length ?? 0;
    const notice = copyNotice(copy, step, later);
    void vscode.window.showInformationMessage(`Prefix Lens: ${notice}`);
    return { applied: true, copy, notice };
  };
}

/**
 * What a repaired copy holds: the step's request repaired, every other line as written. The requests
 * the agent sent after it were built on the rewrite, so the copy's next step may show it again.
 */
export function copyNotice(copy: vscode.Uri, step: number, later: number): string {
  const name = copy.path.split('/').pop() ?? '';
  const after =
    later === 0
      ? ''
      : ` The ${later === 1 ? 'request' : `${later} requests`} after it ${later === 1 ? 'is' : 'are'} kept as the agent sent ${later === 1 ? 'it' : 'them'}, built on the rewrite: the copy may show it again at step ${step + 1}.`;
  return `wrote the repaired copy ${name} beside the log, with the request of step ${step} repaired.${after} The log itself is left as written.`;
}
