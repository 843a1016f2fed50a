/** Small helpers shared by the rule modules: locations and how ids are named. */
import type { RelatedLocation } from '../findings';
import { POSITIONAL_ID, type ContextWindow, type FormatId, type Rewrite, type ToolCall, type ToolResult } from '../model';
import type { SourceRange } from '../text';

export const NOWHERE: SourceRange = { start: 0, end: 0 };

/** The first defined range, or the start of the file. */
export function firstRange(...ranges: (SourceRange | undefined)[]): SourceRange {
  for (const range of ranges) if (range && range.start >= 0) return range;
  return NOWHERE;
}

/** Where a diagnostic on a call or result points: its id literal, else the block. */
export function idRange(block: ToolCall | ToolResult | undefined): SourceRange | undefined {
  return block?.idSource ?? block?.source;
}

/** A related location, dropped when there is no range to point at. */
export function related(range: SourceRange | undefined, message: string, file?: string): RelatedLocation[] {
  if (!range || range.start < 0) return [];
  return [{ range, message, ...(file !== undefined && { file }) }];
}

/** Where a step's finding points when nothing more exact exists: the proposal. */
export function rewriteRange(rewrite: Rewrite): SourceRange {
  return firstRange(rewrite.range, rewrite.after.source, rewrite.after.messagesSource);
}

/** Quotes an id or name for a message. */
export function q(text: string): string {
  return JSON.stringify(text);
}

/**
 * A call id as a message names it: quoted; a positional id as the place it
 * stands for (the file has no id there); an empty id said to be empty.
 */
export function idText(id: string): string {
  if (id.startsWith(POSITIONAL_ID)) return `at ${id.slice(POSITIONAL_ID.length)} (no id in the file: paired by position)`;
  if (id === '') return 'with an empty id';
  return q(id);
}

/** The array a format's messages are elements of, as its files name it. */
const MESSAGE_ARRAY: Partial<Record<FormatId, string>> = {
  native: 'messages',
  anthropic: 'messages',
  'openai-chat': 'messages',
  'openai-responses': 'input',
  gemini: 'contents',
  bedrock: 'messages',
  inspect: 'messages',
  otel: 'messages',
};

/**
 * Names a window message the way a user finds it in the file: its `place`
 * (`line 18` of a session file), else its index in the array it is an element
 * of (`messages[1]`, `contents[2]`: a `system` field or `systemInstruction` is
 * not counted), else by its role (a message read from elsewhere, a logged
 * response).
 */
export function messageName(window: ContextWindow, index: number, arrayName = MESSAGE_ARRAY[window.format] ?? 'messages'): string {
  const message = window.messages[index];
  if (message?.place) return message.place;
  const container = message?.container;
  if (!message || !container) return message ? `the ${message.role} message` : `message ${index + 1}`;
  let position = 0;
  for (let m = 0; m < index; m++) if (window.messages[m]?.container?.start === container.start) position++;
  return `${arrayName}[${position}]`;
}

/** " at messages[1]" for a message name, or nothing when the message has no place of its own to name. */
export function at(name: string): string {
  return name.startsWith('the ') || name.startsWith('message ') ? '' : ` at ${name}`;
}
