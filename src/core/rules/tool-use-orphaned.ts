/**
 * tool-use-orphaned — protects (2) pairing integrity: every call has its result.
 *
 * A call without a result is an orphan wherever it sits, except a call still
 * pending at the frontier of a live window (see `pairStates` in pairing.ts);
 * in a provider request body (not live) every call must already have its result.
 */
import type { RewriteAnalysis } from '../analysis';
import type { Finding } from '../findings';
import { toolPairs, type ContextWindow, type ToolPair } from '../model';
import { frontier, pairState } from '../pairing';
import { firstRange, idRange, idText, related, rewriteRange } from './common';
import { collected, defineRule, ruleFinding, type Emit } from './rule';

export const meta = defineRule({
  id: 'tool-use-orphaned',
  severity: 'error',
  decides: 'abort',
  title: 'A tool call has no result',
  protects: '(2) pairing integrity',
  fixes: ['compact', 'add-result'],
  leads: 1,
});

export function checkToolUseOrphaned(window: ContextWindow, pairs: Map<string, ToolPair> = toolPairs(window)): Finding[] {
  return collected((emit) => emitToolUseOrphaned(window, pairs, emit));
}

export function emitToolUseOrphaned(window: ContextWindow, pairs: ReadonlyMap<string, ToolPair>, emit: Emit): void {
  const lastAssistant = frontier(window);
  const where = window.live ? 'and the conversation moved on' : 'and this request is sent without it';
  for (const pair of pairs.values()) {
    const call = pair.call;
    if (!call || pairState(window, pair, lastAssistant) !== 'orphan-call') continue;
    emit(
      ruleFinding(meta, firstRange(idRange(call.value), window.source), `Tool call ${idText(pair.id)} (${call.value.name}) has no result ${where}`, {
        toolCallId: pair.id,
      }),
    );
  }
}

/**
 * The step part of the rule: a call whose result the model had already
 * consumed, kept by a rewrite that drops that result. The call then sits at
 * the frontier looking pending, but its pair was cut (added by the fix-planner
 * helper for the property "dropping one member of a consumed pair aborts").
 */
export function checkConsumedResultDropped(a: RewriteAnalysis): Finding[] {
  const already = new Set(checkToolUseOrphaned(a.rewrite.after, a.after.pairs).map((f) => f.toolCallId));
  const findings: Finding[] = [];
  for (const pair of a.after.pairs.values()) {
    if (!pair.call || pair.results.length || already.has(pair.id)) continue;
    const consumed = a.before.pairs.get(pair.id)?.results.find((r) => r.message < a.rewrite.before.boundary);
    if (!consumed) continue;
    findings.push(
      ruleFinding(meta, firstRange(idRange(pair.call.value), rewriteRange(a.rewrite)), `Tool call ${idText(pair.id)} (${pair.call.value.name}) was kept but its consumed result was dropped`, {
        toolCallId: pair.id,
        related: related(idRange(consumed.value), 'the dropped result', a.beforeFile),
      }),
    );
  }
  return findings;
}
