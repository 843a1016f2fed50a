/**
 * tool-call-id-reused — protects (2) pairing integrity: an id names one call.
 *
 * When two calls in a window share an id, results cannot be paired reliably;
 * every call after the first is flagged, related to the first.
 */
import type { Finding } from '../findings';
import type { ContextWindow, ToolCall } from '../model';
import { firstRange, idRange, q, related } from './common';
import { collected, defineRule, ruleFinding, type Emit } from './rule';

export const meta = defineRule({
  id: 'tool-call-id-reused',
  severity: 'error',
  decides: 'abort',
  title: 'Two calls share one id',
  protects: '(2) pairing integrity',
  fixes: [],
});

export function checkToolCallIdReused(window: ContextWindow): Finding[] {
  return collected((emit) => emitToolCallIdReused(window, undefined, emit));
}

/** The window checks' signature (`WINDOW_CHECKS`); ids are read from the messages, not the pairs. */
export function emitToolCallIdReused(window: ContextWindow, _pairs: unknown, emit: Emit): void {
  const firstCall = new Map<string, ToolCall>();
  const shared = sharedParts();
  for (const message of window.messages) {
    for (const call of message.blocks) {
      if (call.kind !== 'tool_call') continue;
      const first = firstCall.get(call.id);
      if (!first) {
        firstCall.set(call.id, call);
        continue;
      }
      emit(reusedIdFinding(window, call, first, shared));
    }
  }
}

/** What the findings on one reused id share: their message and related location (held once however many calls reuse it). */
export type SharedParts = Map<string, { readonly message: string; readonly related: Finding['related'] }>;

export function sharedParts(): SharedParts {
  return new Map();
}

/** The finding on a call whose id an earlier call of the window (`first`) already has. */
export function reusedIdFinding(window: ContextWindow, call: ToolCall, first: ToolCall, shared: SharedParts = sharedParts()): Finding {
  let parts = shared.get(call.id);
  if (!parts) shared.set(call.id, (parts = { message: `Tool call id ${q(call.id)} is used by more than one call`, related: related(idRange(first), 'the first call with this id') }));
  return ruleFinding(meta, firstRange(idRange(call), window.source), parts.message, { toolCallId: call.id, related: parts.related });
}
