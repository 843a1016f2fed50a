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
import type { ContextWindow } from './model';
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

/** Adds the tool-shaped opaque parts of a window to `seen` (keyed by where they start, so a part seen in many windows counts once). */
export function collectUnreadParts(window: ContextWindow, seen: Map<number, SourceRange>): void {
  for (const message of window.messages) {
    for (const block of message.blocks) {
      if (block.kind !== 'opaque' || !block.source || seen.has(block.source.start) || !isToolShaped(block.value)) continue;
      seen.set(block.source.start, block.source);
    }
  }
}

/** The one info finding for the parts a reader could not see, or none. */
export function unreadPartsFinding(seen: ReadonlyMap<number, SourceRange>, readerLabel: string): Finding[] {
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
