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
import { CARRIED_FROM, type ContextWindow, type FormatId, type Message } from './model';
import type { SourceRange } from './text';

/** Keys that carry a call or a result in some provider's shape. */
const TOOL_KEYS = new Set(['functionCall', 'function_call', 'functionResponse', 'function_response', 'toolUse', 'toolResult', 'tool_calls', 'tool_call_id', 'tool_use_id']);
/** `type` values of call and result parts. */
const TOOL_TYPES = new Set(['tool_use', 'tool_result', 'function_call', 'function_call_output', 'custom_tool_call', 'custom_tool_call_output', 'tool_call', 'tool_call_response', 'functionCall', 'functionResponse']);

/**
 * Content block types of the Anthropic Messages API that the Anthropic and
 * Claude Code readers keep as bytes on purpose (thinking, media, server-side
 * tools, compaction): known, so neither unread nor unknown. Any other type is
 * a part of a type the reader does not know.
 */
const ANTHROPIC_BLOCKS: ReadonlySet<string> = new Set([
  'text', 'image', 'document', 'search_result', 'thinking', 'redacted_thinking', 'server_tool_use', 'web_search_tool_result',
  'web_fetch_tool_result', 'code_execution_tool_result', 'bash_code_execution_tool_result', 'text_editor_code_execution_tool_result',
  'tool_search_tool_result', 'mcp_tool_use', 'mcp_tool_result', 'container_upload', 'compaction',
]);
/** The part types each format's reader knows and keeps as bytes; formats not listed are not checked for unknown types. */
const KNOWN_OPAQUE: Partial<Record<FormatId, ReadonlySet<string>>> = { anthropic: ANTHROPIC_BLOCKS, 'claude-code': ANTHROPIC_BLOCKS };
/** At most this many unknown type names are listed in the message. */
const MAX_TYPES = 5;

/** True when an opaque value is a call or result in a shape the reader did not read. */
export function isToolShaped(value: JsonNode): boolean {
  if (value.type !== 'object') return false;
  return value.properties.some((p) => TOOL_KEYS.has(p.key) || (p.key === 'type' && p.value.type === 'string' && TOOL_TYPES.has(p.value.value)));
}

/** A part's `type`, as the message names it. */
function typeName(value: JsonNode & { type: 'object' }): string {
  const type = value.properties.find((p) => p.key === 'type')?.value;
  return type?.type === 'string' ? JSON.stringify(type.value) : 'no "type"';
}

/** What a check has counted so far: the parts, by where they start, and the messages already walked. */
export interface UnreadParts {
  readonly parts: Map<number, SourceRange>;
  /** Parts of a type the reader does not know (not tool-shaped), by where they start. */
  readonly unknown: Map<number, { readonly range: SourceRange; readonly type: string }>;
  readonly walked: WeakSet<Message>;
}

export function unreadParts(): UnreadParts {
  return { parts: new Map(), unknown: new Map(), walked: new WeakSet() };
}

/**
 * Adds the tool-shaped opaque parts of a window. A message already walked (the
 * same object in a later window) or carried over from an earlier request of a
 * log (the same bytes) is not walked again, so the history a request log repeats
 * costs nothing here.
 */
export function collectUnreadParts(window: ContextWindow, unread: UnreadParts): void {
  const known = KNOWN_OPAQUE[window.format];
  for (const message of window.messages) {
    if (unread.walked.has(message) || message[CARRIED_FROM]) continue;
    unread.walked.add(message);
    for (const block of message.blocks) {
      if (block.kind !== 'opaque' || !block.source || known?.has(block.type)) continue;
      if (isToolShaped(block.value)) unread.parts.set(block.source.start, block.source);
      else if (known && block.value.type === 'object') unread.unknown.set(block.source.start, { range: block.source, type: typeName(block.value) });
    }
  }
}

/** The info findings for the parts a reader could not see (one per cause), or none; `lineOf` gives an offset's 1-based line. */
export function unreadPartsFinding(unread: UnreadParts, readerLabel: string, lineOf: (offset: number) => number): Finding[] {
  const out: Finding[] = [];
  const seen = unread.parts;
  if (seen.size > 0) {
    const first = [...seen.values()].reduce((a, b) => (b.start < a.start ? b : a));
    const n = seen.size;
    const what = `${n} part${n === 1 ? ' holds' : 's hold'} a tool call or result in a shape the ${readerLabel} reader does not read`;
    out.push(finding('record-skipped', first, `${what} (first at line ${lineOf(first.start)}): ${n === 1 ? 'its' : 'their'} pairing is not checked`));
  }
  if (unread.unknown.size > 0) {
    const parts = [...unread.unknown.values()];
    const first = parts.reduce((a, b) => (b.range.start < a.range.start ? b : a));
    const types = [...new Set(parts.map((p) => p.type))];
    const named = types.slice(0, MAX_TYPES).join(', ') + (types.length > MAX_TYPES ? `, … (${types.length} types)` : '');
    const n = parts.length;
    out.push(
      finding(
        'record-skipped',
        first.range,
        `${n} part${n === 1 ? '' : 's'} of a type the ${readerLabel} reader does not know (${named}; first at line ${lineOf(first.range.start)}): kept as raw bytes, what ${n === 1 ? 'it holds' : 'they hold'} is not checked`,
      ),
    );
  }
  return out;
}
