/**
 * The quick fixes as WorkspaceEdits: "Compact in whole pairs" from the engine's
 * fix planner for an aborting step, and the two single-window fixes. Each fix
 * is ONE WorkspaceEdit (one undo step) holding only the planner's edits, so
 * every other byte of the file stays as it was.
 */
import * as vscode from 'vscode';
import type { Ctx } from './ctx';
import type { Session } from './sessions';
import { addPlaceholderResult, type Finding, planFix, removeOrphanedResult, type TextEdit } from './engine';

export interface PlannedFix {
  readonly title: string;
  readonly kind: 'compact' | 'remove-result' | 'add-result';
  readonly edit: vscode.WorkspaceEdit;
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

/** "Compact in whole pairs" for an aborting step, or undefined when the planner has none. */
export function compactFix(session: Session, stepIndex: number): PlannedFix | undefined {
  const step = session.step(stepIndex);
  if (!fresh(session) || !step?.rewrite || step.decision !== 'abort') return undefined;
  const plan = planFix(step.rewrite, session.document.getText());
  if (!plan || plan.edits.length === 0 || plan.verdict.decision === 'abort') return undefined;
  return { title: `Compact in whole pairs (step ${stepIndex})`, kind: 'compact', edit: workspaceEdit(session, plan.edits) };
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

/** `prefixLens.applyFix(uri, step)` (the inspector's Apply): the step's compaction fix as one edit; false when there is none. */
export const APPLY_FIX_COMMAND = 'prefixLens.applyFix';

export function applyFix(ctx: Ctx): (uri: vscode.Uri, step: number) => Promise<boolean> {
  return async (uri, step) => {
    const session = ctx.sessions.get(uri);
    const fix = session && compactFix(session, step);
    return fix ? vscode.workspace.applyEdit(fix.edit) : false;
  };
}
