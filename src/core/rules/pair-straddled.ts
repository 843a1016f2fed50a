/**
 * pair-straddled — protects (2) pairing integrity: a call and its result change
 * together or not at all.
 *
 * For every pair present on both sides of a rewrite, an edit that changes the
 * meaning of one member (a call's name, input or schema version; a result's
 * content or error flag) but not the other cuts the pair: the result no longer
 * answers the call the model sees. A bytes-only change of the same meaning is
 * `render-unstable`, not this. A result the model has not consumed yet may be
 * edited alone (a runtime truncating tool output before the model reads it):
 * that is a patch; a call edited alone, or a consumed result edited alone, is not.
 */
import { sameOrigin } from '../align';
import type { RewriteAnalysis } from '../analysis';
import type { Finding } from '../findings';
import { callMeaning, resultMeaning } from '../meaning';
import type { ToolCall, ToolPair, ToolResult } from '../model';
import { firstRange, idRange, idText, related, rewriteRange } from './common';
import { defineRule, ruleFinding } from './rule';

export const meta = defineRule({
  id: 'pair-straddled',
  severity: 'error',
  decides: 'abort',
  title: 'An edit changed one member of a tool pair but not the other',
  protects: '(2) pairing integrity',
  fixes: ['compact'],
  leads: 2,
});

type Member = NonNullable<ToolPair['call']> | ToolPair['results'][number];

export function checkPairStraddled(a: RewriteAnalysis): Finding[] {
  const findings: Finding[] = [];
  for (const after of a.after.pairs.values()) {
    const before = a.before.pairs.get(after.id);
    const callAfter = after.call;
    const resultAfter = after.results[0];
    const callBefore = before?.call;
    const resultBefore = before?.results[0];
    if (!callAfter || !resultAfter || !callBefore || !resultBefore) continue;
    const callChanged = changed(a, callBefore, callAfter, () => callMeaning(callBefore.value) !== callMeaning(callAfter.value));
    const resultChanged = changed(a, resultBefore, resultAfter, () => resultMeaning(resultBefore.value) !== resultMeaning(resultAfter.value));
    if (callChanged === resultChanged) continue;
    // A result the model has not read yet may be post-processed (truncated, redacted): that is a patch.
    if (resultChanged && resultBefore.message >= a.rewrite.before.boundary) continue;
    const [edited, kept, original] = callChanged
      ? [callAfter.value, resultAfter.value, callBefore.value]
      : [resultAfter.value, callAfter.value, resultBefore.value];
    findings.push(straddle(a, after.id, callChanged ? 'call' : 'result', edited, kept, original));
  }
  return findings;
}

/** Cheap byte comparison first; meaning only when the bytes differ. */
function changed(a: RewriteAnalysis, before: Member, after: Member, meaningDiffers: () => boolean): boolean {
  if (before.message === after.message && after.message < a.commonMessages) return false;
  if (before.block === after.block && sameOrigin(a.alignment, after.message, before.message)) return false;
  const beforeMessage = a.rewrite.before.messages[before.message];
  const afterMessage = a.rewrite.after.messages[after.message];
  if (!beforeMessage || !afterMessage) return false;
  const beforeText = a.render.message(beforeMessage).blocks[before.block]?.text;
  const afterText = a.render.message(afterMessage).blocks[after.block]?.text;
  return beforeText !== afterText && meaningDiffers();
}

function straddle(a: RewriteAnalysis, id: string, member: 'call' | 'result', edited: ToolCall | ToolResult, kept: ToolCall | ToolResult, original: ToolCall | ToolResult): Finding {
  const partner = member === 'call' ? 'result' : 'call';
  return ruleFinding(meta, firstRange(edited.source, idRange(edited), rewriteRange(a.rewrite)), `The ${member} of tool pair ${idText(id)} was edited but its ${partner} was not`, {
    toolCallId: id,
    related: [...related(idRange(kept), `the unchanged ${partner}`), ...related(original.source, `the original ${member}`, a.beforeFile)],
  });
}
