/**
 * tool-use-orphaned — protects (2) pairing integrity: every call has its result.
 *
 * A call without a result is an orphan wherever it sits. In a live window (a
 * native trace, a session transcript) a call still pending at the frontier —
 * no result and no later assistant turn — is not one yet; in a provider
 * request body (not live) every call must already have its result.
 */
import { finding, type Finding } from '../findings';
import { toolPairs, type ContextWindow, type ToolPair } from '../model';
import { firstRange, idRange, q } from './common';

export function checkToolUseOrphaned(window: ContextWindow, pairs: Map<string, ToolPair> = toolPairs(window)): Finding[] {
  let lastAssistant = -1;
  window.messages.forEach((m, i) => {
    if (m.role === 'assistant') lastAssistant = i;
  });
  const findings: Finding[] = [];
  for (const pair of pairs.values()) {
    const call = pair.call;
    if (!call || pair.results.length) continue;
    if (window.live && call.message >= lastAssistant) continue;
    const where = window.live ? 'and the conversation moved on' : 'and this request is sent without it';
    findings.push(
      finding('tool-use-orphaned', firstRange(idRange(call.value), window.source), `Tool call ${q(pair.id)} (${call.value.name}) has no result ${where}`, {
        toolCallId: pair.id,
      }),
    );
  }
  return findings;
}
