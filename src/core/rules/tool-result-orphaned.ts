/**
 * tool-result-orphaned — protects (2) pairing integrity: every result has its call.
 *
 * A result whose call id matches no call in the window is an orphan, wherever
 * it sits. When the window continues server-side state (OpenAI Responses
 * `previous_response_id` / `conversation`) the call may live there: that is
 * reported as info `server-state-pairing`, not as an orphan.
 */
import type { Finding } from '../findings';
import { toolPairs, type ContextWindow, type ToolPair } from '../model';
import { pairStates } from '../pairing';
import { firstRange, idRange, idText, q, related } from './common';
import { defineRule, ruleFinding } from './rule';
import { meta as serverStatePairing } from './server-state-pairing';

export const meta = defineRule({
  id: 'tool-result-orphaned',
  severity: 'error',
  decides: 'abort',
  title: 'A tool result has no call',
  protects: '(2) pairing integrity',
  fixes: ['compact', 'remove-result'],
  leads: 0,
});

export function checkToolResultOrphaned(window: ContextWindow, pairs: Map<string, ToolPair> = toolPairs(window)): Finding[] {
  const states = pairStates(window, pairs);
  const findings: Finding[] = [];
  for (const [key, pair] of pairs) {
    if (states.get(key) !== 'orphan-result') continue;
    for (const result of pair.results) {
      const range = firstRange(idRange(result.value), window.source);
      if (window.serverState) {
        const state = window.serverState;
        findings.push(
          ruleFinding(serverStatePairing, range, `The call of result ${idText(pair.id)} is not in this request; it lives in server-side state (${state.kind} ${q(state.id)})`, {
            toolCallId: pair.id,
            related: related(state.source, `${state.kind} that holds the call`),
          }),
        );
      } else {
        findings.push(ruleFinding(meta, range, `Tool result ${idText(pair.id)} has no matching call in the window`, { toolCallId: pair.id }));
      }
    }
  }
  return findings;
}
