/**
 * Quick fixes for a single window (a request body, a snapshot): remove an
 * orphaned tool result, or add a placeholder result for a call that has none.
 * Protects (2) pairing integrity. Pure text edits against the source file:
 * whole array elements are removed or inserted with the array's own
 * separators, every other byte stays as it was.
 */
import type { TextEdit } from '../results';
import type { Block, ContextWindow, FormatId, Message, ToolCall, ToolResult } from '../model';
import type { SourceRange } from '../text';
import { parseJson } from '../json/parse';
import { prop } from '../json/nodes';
import { arrayEdits, parseArrayAt, type ArrayEntry } from './edits';
import { detectStyle, objectText, type JsonStyle } from './marker';

export interface SingleFix {
  readonly title: string;
  readonly edits: readonly TextEdit[];
}

/** What a placeholder result says. */
export const PLACEHOLDER_TEXT = '[Prefix Lens placeholder: no result was recorded for this call]';

interface Located<T extends Block> {
  readonly message: number;
  readonly block: number;
  readonly value: T;
}

function contains(outer: SourceRange | undefined, inner: SourceRange | undefined): boolean {
  return !!outer && !!inner && outer.start <= inner.start && inner.end <= outer.end;
}

function locate<T extends Block>(window: ContextWindow, match: (b: Block) => b is T, near?: SourceRange): Located<T> | undefined {
  let first: Located<T> | undefined;
  for (const [m, message] of window.messages.entries()) {
    for (const [b, block] of message.blocks.entries()) {
      if (!match(block)) continue;
      const found = { message: m, block: b, value: block };
      const idSource = (block as { idSource?: SourceRange }).idSource;
      if (!near || contains(block.source, near) || contains(idSource, near)) return found;
      first ??= found;
    }
  }
  return near ? first : undefined;
}

/** Edits that remove the element starting at `element.start` from the array at `array`. */
function removeElement(text: string, array: SourceRange | undefined, element: SourceRange | undefined): TextEdit[] | undefined {
  const parsed = parseArrayAt(text, array);
  if (!parsed || !element) return undefined;
  const index = parsed.items.findIndex((item) => item.start === element.start);
  if (index < 0) return undefined;
  const keep: ArrayEntry[] = parsed.items.map((_, i) => ({ old: i })).filter((e) => e.old !== index);
  return arrayEdits(text, parsed, keep, styleOf(text, array));
}

/** Edits that insert `element` into the array at `array` before item `at` (items.length = append). */
function insertElement(text: string, array: SourceRange | undefined, at: number, element: string): TextEdit[] | undefined {
  const parsed = parseArrayAt(text, array);
  if (!parsed) return undefined;
  const sequence: ArrayEntry[] = parsed.items.map((_, i) => ({ old: i }));
  sequence.splice(Math.max(0, Math.min(at, sequence.length)), 0, { text: element });
  return arrayEdits(text, parsed, sequence, styleOf(text, array));
}

function styleOf(text: string, range: SourceRange | undefined): JsonStyle {
  return detectStyle(range ? text.slice(range.start, Math.min(range.end, range.start + 4096)) : text.slice(0, 4096));
}

function isResult(id: string) {
  return (b: Block): b is ToolResult => b.kind === 'tool_result' && b.callId === id;
}

function isCall(id: string) {
  return (b: Block): b is ToolCall => b.kind === 'tool_call' && b.id === id;
}

/** "Remove orphaned tool result": the result's block, or its whole message when it holds nothing else. */
export function removeOrphanedResult(window: ContextWindow, callId: string, text: string, near?: SourceRange): SingleFix | undefined {
  const found = locate(window, isResult(callId), near);
  if (!found) return undefined;
  const message = window.messages[found.message];
  if (!message) return undefined;
  const alone = message.blocks.length === 1;
  const edits = alone
    ? removeElement(text, message.container ?? window.messagesSource, message.source)
    : removeElement(text, found.value.container, found.value.source);
  if (!edits || edits.length === 0) return undefined;
  return { title: `Remove orphaned tool result ${callId}`, edits };
}

/** "Add a placeholder result for the pending call", where the format wants results to be. */
export function addPlaceholderResult(window: ContextWindow, callId: string, text: string, near?: SourceRange): SingleFix | undefined {
  const found = locate(window, isCall(callId), near);
  if (!found) return undefined;
  const style = styleOf(text, window.messagesSource);
  const edits = anthropicLike(window.format)
    ? anthropicPlaceholder(window, found, text, style)
    : messagePlaceholder(window, found, text, style);
  if (!edits || edits.length === 0) return undefined;
  return { title: `Add a placeholder result for the pending call ${callId}`, edits };
}

function anthropicLike(format: FormatId): boolean {
  return format === 'anthropic' || format === 'claude-code' || format === 'bedrock';
}

/** Anthropic: results open the next user message; make one when there is none to open. */
function anthropicPlaceholder(window: ContextWindow, call: Located<ToolCall>, text: string, style: JsonStyle): TextEdit[] | undefined {
  const block = objectText(
    [['type', '"tool_result"'], ['tool_use_id', JSON.stringify(call.value.id)], ['content', JSON.stringify(PLACEHOLDER_TEXT)]],
    style,
  );
  const next = window.messages[call.message + 1];
  const nextContent = next?.role === 'user' ? contentArrayOf(next, text) : undefined;
  if (next && nextContent) {
    const firstNonResult = next.blocks.findIndex((b) => b.kind !== 'tool_result');
    return insertElement(text, nextContent, firstNonResult < 0 ? next.blocks.length : firstNonResult, block);
  }
  const message = objectText([['role', '"user"'], ['content', `[${block}]`]], style);
  return insertAfterMessage(window, call.message, text, message);
}

/** OpenAI Chat / native trace: a `tool` message; Responses: a `function_call_output` item; after the call's other results. */
function messagePlaceholder(window: ContextWindow, call: Located<ToolCall>, text: string, style: JsonStyle): TextEdit[] | undefined {
  const id = JSON.stringify(call.value.id);
  const content = JSON.stringify(PLACEHOLDER_TEXT);
  const element =
    window.format === 'openai-responses' || window.format === 'codex'
      ? objectText([['type', '"function_call_output"'], ['call_id', id], ['output', content]], style)
      : objectText([['role', '"tool"'], ['tool_call_id', id], ['content', content]], style);
  let after = call.message;
  while (isResultsOnly(window.messages[after + 1])) after++;
  return insertAfterMessage(window, after, text, element);
}

/** The message's block array in the file: a block's container, else its `content` array. */
function contentArrayOf(message: Message, text: string): SourceRange | undefined {
  const known = message.blocks.map(containerOf).find((c) => c !== undefined);
  if (known || !message.source) return known;
  const parsed = parseJson(text.slice(message.source.start, message.source.end), message.source.start);
  const content = parsed.ok ? prop(parsed.node, 'content') : undefined;
  return content?.type === 'array' ? { start: content.start, end: content.end } : undefined;
}

function containerOf(block: Block): SourceRange | undefined {
  return block.kind === 'tool_call' || block.kind === 'tool_result' ? block.container : undefined;
}

function isResultsOnly(message: Message | undefined): boolean {
  return !!message && message.blocks.length > 0 && message.blocks.every((b) => b.kind === 'tool_result');
}

function insertAfterMessage(window: ContextWindow, index: number, text: string, element: string): TextEdit[] | undefined {
  const message = window.messages[index];
  const array = message?.container ?? window.messagesSource;
  const parsed = parseArrayAt(text, array);
  if (!parsed || !message?.source) return undefined;
  const at = parsed.items.findIndex((item) => item.start === message.source?.start);
  if (at < 0) return undefined;
  return insertElement(text, array, at + 1, element);
}
