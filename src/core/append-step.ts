/**
 * The verdict of the commonest step, computed without walking the window: a
 * pure extension (every current message kept as the same object, in place,
 * the same tool objects) whose new messages hold no tool call or result.
 *
 * Why it equals `judgeRewrite`'s: the consumed prefix is intact, so no prefix,
 * render, elision or alignment finding; every pair keeps its members at the
 * same places, so no straddle, no dropped result, no schema change (a call's
 * schema is read against the same registry); no tool leaves the registry. The
 * window checks see the same pairs, and the new messages add no call, result
 * or call/response count (Gemini) — except that in a live window a new
 * assistant message moves the frontier a pending call is judged against, so
 * that case is left to the full judge. What is left is `self-edit`.
 */
import { decide, type StepVerdict } from './findings';
import { extendsMessages } from './formats/native-object';
import type { ContextWindow, Rewrite, ToolSchema } from './model';
import { selfEditFindings } from './rules/self-edit';

function sameTools(a: readonly ToolSchema[], b: readonly ToolSchema[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** True when `after` only appends messages without tool blocks to `before` (see the module comment). */
export function isPlainAppend(before: ContextWindow, after: ContextWindow): boolean {
  if (after.format !== before.format || after.live !== before.live || !after.serverState !== !before.serverState) return false;
  if (!sameTools(before.tools, after.tools) || !extendsMessages(before.messages, after.messages)) return false;
  for (let i = before.messages.length; i < after.messages.length; i++) {
    const message = after.messages[i];
    if (!message || (before.live && message.role === 'assistant')) return false;
    for (const block of message.blocks) if (block.kind === 'tool_call' || block.kind === 'tool_result') return false;
  }
  return true;
}

/** The verdict of a plain append; `consumedTokens` is the before window's consumed prefix in tokens. */
export function appendVerdict(rewrite: Rewrite, consumedTokens: number): StepVerdict {
  const findings = selfEditFindings(rewrite);
  return { decision: decide(findings), source: rewrite.source, findings, cacheImpact: { consumedTokens, invalidatedTokens: 0 } };
}
