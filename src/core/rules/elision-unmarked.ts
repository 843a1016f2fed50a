/**
 * elision-unmarked — protects (1) prefix identity: when consumed history is
 * removed, the model is told so.
 *
 * Flags a rewrite that removes consumed messages without appending an elision
 * marker (a message flagged `elision`, or one whose text starts with
 * `[elided`) after the last retained consumed message. A summary the runtime
 * itself marks as the compaction summary (`elision` set by the reader: Claude
 * Code `isCompactSummary`, a Codex `compaction` item) is the marker wherever
 * the runtime puts it: Claude Code writes it before the segment it preserves.
 */
import { alignedBeforeLength, alignedRuns, type AlignedRun } from '../align';
import type { RewriteAnalysis } from '../analysis';
import type { Finding } from '../findings';
import type { Message } from '../model';
import { firstRange, related, rewriteRange } from './common';
import { defineRule, ruleFinding } from './rule';

export const meta = defineRule({
  id: 'elision-unmarked',
  severity: 'warning',
  decides: 'defer',
  title: 'History was removed without an elision marker',
  protects: '(1) prefix identity',
  fixes: ['compact'],
});

export const ELISION_PREFIX = '[elided';

export function isElisionMarker(message: Message): boolean {
  if (message.elision) return true;
  const first = message.blocks[0];
  return first?.kind === 'text' && first.text.trimStart().startsWith(ELISION_PREFIX);
}

export function checkElisionUnmarked(a: RewriteAnalysis): Finding[] {
  const runs = alignedRuns(a.alignment);
  const consumed = Math.min(a.rewrite.before.boundary, alignedBeforeLength(a.alignment));
  // The consumed before messages no run keeps (from the runs: a run kept in place costs one step).
  let removed = 0;
  let firstRemoved = -1;
  // The last after message standing for a consumed before message.
  let lastRetained = -1;
  let j = 0;
  for (const run of runs) {
    if (j >= consumed) break;
    const gap = Math.min(run.before, consumed) - j;
    if (gap > 0 && !removed) firstRemoved = j;
    if (gap > 0) removed += gap;
    const end = Math.min(run.before + run.length, consumed);
    if (end > run.before) lastRetained = run.after + end - 1 - run.before;
    j = Math.max(end, Math.min(run.before, consumed));
  }
  if (j < consumed && !removed) firstRemoved = j;
  if (j < consumed) removed += consumed - j;
  if (!removed) return [];
  const after = a.rewrite.after.messages;
  for (let i = lastRetained + 1; i < after.length; i++) if (isElisionMarker(after[i] as Message)) return [];
  if (insertedMarker(runs, after)) return [];
  const first = a.rewrite.before.messages[firstRemoved];
  const at = after[lastRetained]?.source;
  return [
    ruleFinding(meta, firstRange(at, a.rewrite.after.messagesSource, rewriteRange(a.rewrite)), `${removed} consumed message${removed === 1 ? ' was' : 's were'} removed with no elision marker appended after the retained history`, {
      related: related(first?.source, 'the first removed message', a.beforeFile),
    }),
  ];
}

/** True when an after message standing for no before message is marked as an elision. */
function insertedMarker(runs: readonly AlignedRun[], after: readonly Message[]): boolean {
  let i = 0;
  for (let r = 0; r <= runs.length; r++) {
    const run = runs[r];
    const to = run ? run.after : after.length;
    for (; i < to; i++) if (after[i]?.elision) return true;
    if (run) i = run.after + run.length;
  }
  return false;
}
