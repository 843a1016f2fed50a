/**
 * tool-call-id-reused — protects (2) pairing integrity: an id names one call.
 *
 * When two calls in a window share an id, results cannot be paired reliably;
 * every call after the first is flagged, related to the first.
 */
import type { Finding } from '../findings';
import type { ContextWindow, ToolCall } from '../model';
import { firstRange, idRange, q, related } from './common';
import { defineRule, ruleFinding } from './rule';

export const meta = defineRule({
  id: 'tool-call-id-reused',
  severity: 'error',
  decides: 'abort',
  title: 'Two calls share one id',
  protects: '(2) pairing integrity',
  fixes: [],
});

export function checkToolCallIdReused(window: ContextWindow): Finding[] {
  const firstCall = new Map<string, ToolCall>();
  const findings: Finding[] = [];
  for (const message of window.messages) {
    for (const call of message.blocks) {
      if (call.kind !== 'tool_call') continue;
      const first = firstCall.get(call.id);
      if (!first) {
        firstCall.set(call.id, call);
        continue;
      }
      findings.push(reusedIdFinding(window, call, first));
    }
  }
  return findings;
}

/** The finding on a call whose id an earlier call of the window (`first`) already has. */
export function reusedIdFinding(window: ContextWindow, call: ToolCall, first: ToolCall): Finding {
  return ruleFinding(meta, firstRange(idRange(call), window.source), `Tool call id ${q(call.id)} is used by more than one call`, {
    toolCallId: call.id,
    related: related(idRange(first), 'the first call with this id'),
  });
}
