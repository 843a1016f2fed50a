/** Small helpers shared by the rule modules: locations and how ids are named. */
import type { RelatedLocation } from '../findings';
import { POSITIONAL_ID, type Rewrite, type ToolCall, type ToolResult } from '../model';
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
