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
import { firstRange, idRange, idText, q, related } from './common';
import { collected, defineRule, ruleFinding, type Emit } from './rule';
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
  return collected((emit) => emitToolResultOrphaned(window, pairs, emit));
}

export function emitToolResultOrphaned(window: ContextWindow, pairs: ReadonlyMap<string, ToolPair>, emit: Emit): void {
  for (const pair of pairs.values()) {
    if (pair.call) continue;
    for (const result of pair.results) {
      const range = firstRange(idRange(result.value), window.source);
      if (window.serverState) {
        const state = window.serverState;
        emit(
          ruleFinding(serverStatePairing, range, `The call of result ${idText(pair.id)} is not in this request; it lives in server-side state (${state.kind} ${q(state.id)})`, {
            toolCallId: pair.id,
            related: related(state.source, `${state.kind} that holds the call`),
          }),
        );
      } else {
        emit(ruleFinding(meta, range, `Tool result ${idText(pair.id)} has no matching call in the window`, { toolCallId: pair.id }));
      }
    }
  }
}
