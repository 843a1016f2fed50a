/**
 * Parts a reader kept as opaque bytes although they hold a tool call or result
 * in a shape it does not read (a Chat message's legacy `function_call`, a
 * Gemini `functionCall` part in a file read as another format, a block type
 * the reader does not know): their pairing is not checked, so the check must
 * not look clean. `check.ts` counts them over every window and says so once,
 * in an info finding with the count and the first location.
 */
import { finding, type Finding } from './findings';
import type { JsonNode } from './json/parse';
import { CARRIED_FROM, type ContextWindow, type Message } from './model';
import type { SourceRange } from './text';

/** Keys that carry a call or a result in some provider's shape. */
const TOOL_KEYS = new Set(['functionCall', 'function_call', 'functionResponse', 'function_response', 'toolUse', 'toolResult', 'tool_calls', 'tool_call_id', 'tool_use_id']);
/** `type` values of call and result parts. */
const TOOL_TYPES = new Set(['tool_use', 'tool_result', 'function_call', 'function_call_output', 'custom_tool_call', 'custom_tool_call_output', 'tool_call', 'tool_call_response', 'functionCall', 'functionResponse']);

/** True when an opaque value is a call or result in a shape the reader did not read. */
export function isToolShaped(value: JsonNode): boolean {
  if (value.type !== 'object') return false;
  return value.properties.some((p) => TOOL_KEYS.has(p.key) || (p.key === 'type' && p.value.type === 'string' && TOOL_TYPES.has(p.value.value)));
}

/** What a check has counted so far: the parts, by where they start, and the messages already walked. */
export interface UnreadParts {
  readonly parts: Map<number, SourceRange>;
  readonly walked: WeakSet<Message>;
}

export function unreadParts(): UnreadParts {
  return { parts: new Map(), walked: new WeakSet() };
}

/**
 * Adds the tool-shaped opaque parts of a window. A message already walked (the
 * same object in a later window) or carried over from an earlier request of a
 * log (the same bytes) is not walked again, so the history a request log repeats
 * costs nothing here.
 */
export function collectUnreadParts(window: ContextWindow, unread: UnreadParts): void {
  const seen = unread.parts;
  for (const message of window.messages) {
    if (unread.walked.has(message) || message[CARRIED_FROM]) continue;
    unread.walked.add(message);
    for (const block of message.blocks) {
      if (block.kind !== 'opaque' || !block.source || seen.has(block.source.start) || !isToolShaped(block.value)) continue;
      seen.set(block.source.start, block.source);
    }
  }
}

/** The one info finding for the parts a reader could not see, or none. */
export function unreadPartsFinding(unread: UnreadParts, readerLabel: string): Finding[] {
  const seen = unread.parts;
  if (seen.size === 0) return [];
  const first = [...seen.values()].reduce((a, b) => (b.start < a.start ? b : a));
  const n = seen.size;
  return [
    finding(
      'record-skipped',
      first,
      `${n} part${n === 1 ? ' holds' : 's hold'} a tool call or result in a shape the ${readerLabel} reader does not read (the first here): ${n === 1 ? 'its' : 'their'} pairing is not checked`,
    ),
  ];
}
