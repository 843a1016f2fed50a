/**
 * Stepping through a transcript: "Next Rewrite", "Previous Rewrite" and
 * "Next Violation" move the editor selection (and the session's selected
 * step) relative to the cursor, wrapping around.
 */
import * as vscode from 'vscode';
import type { Ctx } from './ctx';
import type { Session } from './sessions';

function activeSession(ctx: Ctx): { session: Session; offset: number } | undefined {
  const editor = vscode.window.activeTextEditor;
  const session = editor ? ctx.sessions.get(editor.document.uri) : undefined;
  if (!editor || !session?.report) return undefined;
  return { session, offset: editor.document.offsetAt(editor.selection.active) };
}

/** The index (in `starts`, ascending) after / before `offset`, wrapping. */
export function neighbour(starts: readonly number[], offset: number, direction: 1 | -1): number | undefined {
  if (starts.length === 0) return undefined;
  if (direction === 1) {
    const next = starts.findIndex((s) => s > offset);
    return next === -1 ? 0 : next;
  }
  for (let i = starts.length - 1; i >= 0; i--) if ((starts[i] ?? 0) < offset) return i;
  return starts.length - 1;
}

function stepBy(ctx: Ctx, direction: 1 | -1): void {
  const active = activeSession(ctx);
  if (!active) return;
  const steps = (active.session.report?.steps ?? []).filter((s) => s.range);
  const current = active.session.step(active.session.selectedStep ?? -1)?.range;
  const offset = current && current.start <= active.offset && active.offset <= current.end ? current.start : active.offset;
  const at = neighbour(
    steps.map((s) => s.range?.start ?? 0),
    offset,
    direction,
  );
  const step = at === undefined ? undefined : steps[at];
  if (step) active.session.selectStep(step.index);
}

export function nextRewrite(ctx: Ctx): () => void {
  return () => stepBy(ctx, 1);
}

export function previousRewrite(ctx: Ctx): () => void {
  return () => stepBy(ctx, -1);
}

/** Moves to the next error or warning finding after the cursor (wrapping), selecting its range and step. */
export function nextViolation(ctx: Ctx): () => Promise<void> {
  return async () => {
    const active = activeSession(ctx);
    if (!active) return;
    const violations = (active.session.report?.findings ?? [])
      .filter((f) => f.severity !== 'info')
      .sort((a, b) => a.range.start - b.range.start);
    const at = neighbour(
      violations.map((f) => f.range.start),
      active.offset,
      1,
    );
    const finding = at === undefined ? undefined : violations[at];
    if (!finding) return;
    await active.session.revealRange(finding.range);
    if (finding.step !== undefined) active.session.followCursor(active.session.step(finding.step)?.range?.start ?? finding.range.start);
  };
}
