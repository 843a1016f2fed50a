/**
 * The elision marker the fix planner appends at the frontier of a compacted
 * window: one user message whose text starts with `[elided] ` and says what
 * was removed, so the model (and the `elision-unmarked` rule) can tell that
 * history was cut on purpose, in whole tool pairs.
 */
import type { FormatId, Message } from '../model';

/** Every marker text starts with this. */
export const ELISION_PREFIX = '[elided] ';

/** A tool pair removed (or restored) by the planner. */
export interface PairNote {
  readonly id: string;
  readonly name?: string;
}

/** What the planner elided, for the marker's text. */
export interface ElisionSummary {
  /** Messages of the window before the rewrite that are gone from the fixed window. */
  readonly messages: number;
  /** Tool pairs removed whole (calls and their results). */
  readonly pairs: readonly PairNote[];
}

/** Pairs named in a marker at most; the rest are counted. */
export const MAX_LISTED_PAIRS = 20;

function pairList(pairs: readonly PairNote[]): string {
  const listed = pairs.slice(0, MAX_LISTED_PAIRS).map((p) => (p.name ? `${p.id} (${p.name})` : p.id));
  const more = pairs.length - listed.length;
  return listed.join(', ') + (more > 0 ? ` and ${more} more` : '');
}

/** The marker's text: `[elided] 4 messages; tool pairs removed whole: toolu_01 (query_db)`. */
export function markerText(summary: ElisionSummary): string {
  const count = `${summary.messages} message${summary.messages === 1 ? '' : 's'}`;
  const pairs = summary.pairs.length
    ? `; tool pair${summary.pairs.length === 1 ? '' : 's'} removed whole: ${pairList(summary.pairs)}`
    : '';
  return `${ELISION_PREFIX}${count} of earlier history${pairs}.`;
}

/** The marker as a message of the neutral model. */
export function markerMessage(text: string): Message {
  return { role: 'user', blocks: [{ kind: 'text', text }], elision: true };
}

/** How the file writes JSON: separators after keys and between items. */
export interface JsonStyle {
  /** `":"` or `": "`. */
  readonly keySeparator: string;
  /** `","` or `", "` (inside one object; never a line break). */
  readonly itemSeparator: string;
}

export const COMPACT_STYLE: JsonStyle = { keySeparator: ':', itemSeparator: ',' };

/** Guesses the style from a sample of the file (e.g. the messages array); pretty-printed JSON gets `": "` and `", "`. */
export function detectStyle(sample: string): JsonStyle {
  const spacedKey = /":[ ]/.test(sample);
  const spacedItem = /,[ ]["{[]/.test(sample) || (spacedKey && /,\r?\n/.test(sample));
  return { keySeparator: spacedKey ? ': ' : ':', itemSeparator: spacedItem ? ', ' : ',' };
}

/** Writes `[key, rawValue]` pairs as one object, in the given style. */
export function objectText(entries: readonly (readonly [string, string])[], style: JsonStyle): string {
  return '{' + entries.map(([key, raw]) => JSON.stringify(key) + style.keySeparator + raw).join(style.itemSeparator) + '}';
}

/**
 * The marker as an element of the window's messages array, in its format:
 * native trace and OpenAI Chat `{"role":"user","content":"…"}`; Anthropic a user
 * message with one text block; OpenAI Responses a user message item.
 */
export function markerElement(format: FormatId, text: string, style: JsonStyle = COMPACT_STYLE): string {
  const str = JSON.stringify(text);
  const block = (type: string) => objectText([['type', JSON.stringify(type)], ['text', str]], style);
  switch (format) {
    case 'anthropic':
    case 'claude-code':
    case 'bedrock':
      return objectText([['role', '"user"'], ['content', `[${block('text')}]`]], style);
    case 'openai-responses':
    case 'codex':
      return objectText([['type', '"message"'], ['role', '"user"'], ['content', `[${block('input_text')}]`]], style);
    default:
      return objectText([['role', '"user"'], ['content', str]], style);
  }
}
