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
  const { beforeFate, afterOrigin } = a.alignment;
  const consumed = Math.min(a.rewrite.before.boundary, beforeFate.length);
  let removed = 0;
  let firstRemoved = -1;
  for (let j = 0; j < consumed; j++) {
    if ((beforeFate[j] ?? -1) >= 0) continue;
    if (!removed++) firstRemoved = j;
  }
  if (!removed) return [];
  let lastRetained = afterOrigin.length - 1;
  while (lastRetained >= 0 && !((afterOrigin[lastRetained] ?? -1) >= 0 && (afterOrigin[lastRetained] ?? -1) < consumed)) lastRetained--;
  const after = a.rewrite.after.messages;
  for (let i = lastRetained + 1; i < after.length; i++) if (isElisionMarker(after[i] as Message)) return [];
  for (let i = 0; i < after.length; i++) if ((afterOrigin[i] ?? -1) < 0 && after[i]?.elision) return [];
  const first = a.rewrite.before.messages[firstRemoved];
  const at = after[lastRetained]?.source;
  return [
    ruleFinding(meta, firstRange(at, a.rewrite.after.messagesSource, rewriteRange(a.rewrite)), `${removed} consumed message${removed === 1 ? ' was' : 's were'} removed with no elision marker appended after the retained history`, {
      related: related(first?.source, 'the first removed message', a.beforeFile),
    }),
  ];
}
