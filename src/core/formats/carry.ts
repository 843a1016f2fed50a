/**
 * Carrying a request log's history over from one request to the next instead
 * of reading it again. Each request repeats the previous one's messages byte
 * for byte, plus a little: when the new line starts with the same bytes as the
 * previous line up to the end of its k-th messages element, the parser skips
 * those k elements (`SkippedItems`) and the reader reuses their messages, moved
 * to the new line's offsets. Only the new tail is parsed and read.
 *
 * The comparison is native (`startsWith` on slices), never a loop over
 * characters here: a line is compared in one call, or in a few calls of a
 * binary search when its history changed somewhere.
 */
import type { JsonNode, JsonProperty, SkippedItems } from '../json/parse';
import { CARRIED_FROM, type Block, type ContextWindow, type Message, type ToolCall, type ToolResult } from '../model';
import { partitionPoint } from '../../shared/search';
import type { SourceLine, SourceRange } from '../text';
import type { Home } from './carried-message';

/** What the previous request leaves for the next one to carry. */
export interface CarrySource {
  /** The text the previous line was parsed from (read only when the next line cannot say what it repeats: `SourceLine.same`). */
  readonly text: () => string;
  /** Its offset in the file. */
  readonly base: number;
  /** The messages read from its messages array, one per element, in order. */
  readonly items: readonly Message[];
  /**
   * Where each element is in the line, relative to `base`: start and end of
   * element k at 2k and 2k + 1; the end is -1 when the element does not end
   * on a character that ends a value by itself (a number ends where what
   * follows it says), so that no run of elements is carried up to it. (An
   * item carried without a copy keeps the range of the line it was first
   * read in: see `EXACT_WINDOW`.)
   */
  readonly spans: ArrayLike<number>;
  /** Its line in a file, when its text is that line's: the next line may say how much of it it repeats. */
  readonly line?: SourceLine;
  /** Its text before its first element, when known: what a line carrying from it repeats there. */
  readonly head?: string;
  /** Where its messages kept as places are read again (carried-message.ts), for a check that keeps no windows. */
  readonly home?: Home | undefined;
}

/** Characters that can end a value on their own (a number's end depends on what follows it). */
const CLOSING = new Set([125 /* } */, 93 /* ] */, 34 /* " */]);

/**
 * The spans of a line's elements: those carried from `from` (the first
 * `count`), then the items read from the line; `charAt` gives the character
 * code at an offset in the file.
 *
 * A carried element's span is the same numbers in every line that carries it,
 * so the spans of a log's lines are views of one buffer, each line's its first
 * entries: a line that carries all of the line before it writes its own after
 * them, in place (the buffer's first number says how many it holds, so a line
 * carrying from an older one, or a fork, copies instead of writing over what
 * a later line holds).
 */
export function carrySpans(from: CarrySource | undefined, count: number, items: readonly Message[], base: number, charAt: (offset: number) => number): Int32Array {
  const kept = from ? 2 * count : 0;
  const length = kept + 2 * (items.length - count);
  const data = spanBuffer(from?.spans, kept, length);
  for (let k = count, at = kept + 1; k < items.length; k++, at += 2) {
    const range = items[k]?.source;
    data[at] = range ? range.start - base : -1;
    data[at + 1] = range && CLOSING.has(charAt(range.end - 1)) ? range.end - base : -1;
  }
  data[0] = length;
  return new Int32Array(data.buffer, 4, length);
}

/** The buffer (used length first) a line's spans are written to: `before`'s own when its first `kept` are all it holds and all its buffer holds, else a copy of them. */
function spanBuffer(before: ArrayLike<number> | undefined, kept: number, length: number): Int32Array {
  if (before instanceof Int32Array && before.byteOffset === 4 && kept === before.length) {
    const data = new Int32Array(before.buffer);
    if (data[0] === kept && data.length > length) return data;
  }
  const data = new Int32Array(Math.max(16, 2 * length + 1));
  for (let i = 0; i < kept; i++) data[i + 1] = (before as ArrayLike<number>)[i] as number;
  return data;
}

/**
 * A window whose carried messages are their first readings, not copies moved
 * to its line (a check that keeps no windows asks for these: the copies of
 * every carried message, line after line, were most of its time) holds, under
 * this key, how to build the window with the copies: the exact ranges, for
 * the rare windows and steps that have something to report.
 */
export const EXACT_WINDOW: unique symbol = Symbol('exactWindow');

type WithExact = ContextWindow & { readonly [EXACT_WINDOW]?: () => ContextWindow };

/** `window` with the way to build its exact version (not enumerable: spreads and JSON do not carry it). */
export function withExact(window: ContextWindow, exact: () => ContextWindow): ContextWindow {
  let built: ContextWindow | undefined;
  return Object.defineProperty(window, EXACT_WINDOW, { value: () => (built ??= exact()) });
}

/** The window with every range in its own line: itself, unless its carried messages are first readings. */
export function exactWindow(window: ContextWindow): ContextWindow {
  return (window as WithExact)[EXACT_WINDOW]?.() ?? window;
}

/** True when the window's carried messages are first readings (`EXACT_WINDOW`). */
export function isShallow(window: ContextWindow): boolean {
  return (window as WithExact)[EXACT_WINDOW] !== undefined;
}

/** The leading elements of the new line's messages array that repeat the previous line's. */
export interface CarryPlan {
  readonly skip: SkippedItems;
  /** How many elements are carried. */
  readonly count: number;
}

/**
 * The longest run of leading elements whose bytes, and every byte before them
 * in the line, are the same in the line as in the previous line; undefined
 * when none is. `same`: how many leading characters of the line are known to
 * be the source's (`SourceLine.same`, when the source is the line just
 * before), so they are not compared again.
 */
export function planCarry(source: CarrySource | undefined, line: { readonly length: number; readonly text: () => string; readonly same?: number | undefined }): CarryPlan | undefined {
  if (!source || source.items.length === 0) return undefined;
  const from = relativeStart(source, 0);
  if (from === undefined) return undefined;
  const same = line.same;
  const starts = same === undefined ? (to: number) => line.text().startsWith(source.text().slice(0, to)) : (to: number) => to <= same;
  const matches = (k: number) => {
    const to = relativeEnd(source, k - 1);
    return to !== undefined && line.length > to && starts(to);
  };
  let count = source.items.length;
  // Matching is monotonic in k: the largest k below `count` that matches (0 if none).
  if (!matches(count)) count = partitionPoint(count - 1, (i) => matches(i + 1));
  if (count === 0) return undefined;
  const to = relativeEnd(source, count - 1) ?? from;
  return { skip: { from, to }, count };
}

function relativeStart(source: CarrySource, k: number): number | undefined {
  const start = source.spans[2 * k];
  return start === undefined || start < 0 ? undefined : start;
}

function relativeEnd(source: CarrySource, k: number): number | undefined {
  const end = source.spans[2 * k + 1];
  return end === undefined || end < 0 ? undefined : end;
}

/** The carried messages, moved to the new line (at `base`): every range shifted to the element's place, the array range replaced by `container`. */
export function carryMessages(source: Pick<CarrySource, 'items' | 'spans'>, count: number, base: number, container: SourceRange | undefined): Message[] {
  const out = new Array<Message>(count);
  for (let k = 0; k < count; k++) {
    const message = source.items[k] as Message;
    // The element's bytes sit at the same place in the new line as in the previous one.
    const delta = base + (source.spans[2 * k] ?? 0) - (message.source?.start ?? 0);
    out[k] = carryMessage(message, delta, container);
  }
  return out;
}

/*
 * The copies below name every field instead of spreading: a spread copy is a
 * generic, slow path, and these run for every message of every request.
 */

function carryMessage(message: Message, delta: number, container: SourceRange | undefined): Message {
  const source = message.blocks;
  const blocks = new Array<Block>(source.length);
  // A block whose container is the messages array itself (an OpenAI Chat tool message's result) gets the new array.
  const arrays = { old: message.container, new: container };
  for (let b = 0; b < source.length; b++) blocks[b] = shiftBlock(source[b] as Block, delta, arrays);
  const carried: Message = { role: message.role, blocks, source: shiftRange(message.source, delta), container, elision: message.elision };
  // Not enumerable: a copy made with a spread (`{ ...message, blocks }`) must
  // not inherit the link, or it would share the original's render.
  return Object.defineProperty(carried, CARRIED_FROM, { value: message[CARRIED_FROM] ?? message });
}

interface ArrayRanges {
  readonly old: SourceRange | undefined;
  readonly new: SourceRange | undefined;
}

function shiftContainer(range: SourceRange | undefined, delta: number, arrays: ArrayRanges): SourceRange | undefined {
  if (range && arrays.old && range.start === arrays.old.start && range.end === arrays.old.end) return arrays.new;
  return shiftRange(range, delta);
}

export function shiftRange(range: SourceRange | undefined, delta: number): SourceRange | undefined {
  return range && { start: range.start + delta, end: range.end + delta };
}

function shiftPayload(node: JsonNode | undefined, delta: number): JsonNode | undefined {
  return node && shiftNode(node, delta);
}

function shiftBlock(block: Block, delta: number, arrays: ArrayRanges): Block {
  const source = shiftRange(block.source, delta);
  switch (block.kind) {
    case 'text':
      return { kind: 'text', text: block.text, source };
    case 'opaque':
      return { kind: 'opaque', type: block.type, value: shiftNode(block.value, delta), source };
    case 'tool_call': {
      const call: Mutable<ToolCall> = {
        kind: 'tool_call',
        id: block.id,
        name: block.name,
        input: shiftPayload(block.input, delta),
        source,
        idSource: shiftRange(block.idSource, delta),
        container: shiftContainer(block.container, delta, arrays),
      };
      if ('schemaVersion' in block) call.schemaVersion = block.schemaVersion;
      return call;
    }
    case 'tool_result': {
      const result: Mutable<ToolResult> = {
        kind: 'tool_result',
        callId: block.callId,
        content: shiftPayload(block.content, delta),
        isError: block.isError,
        source,
        idSource: shiftRange(block.idSource, delta),
        container: shiftContainer(block.container, delta, arrays),
      };
      if ('name' in block) result.name = block.name;
      return result;
    }
  }
}

/** A copy is built field by field; optional fields are set only when the original has them (same keys). */
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * The same node with every offset moved by `delta` (node made in code, with
 * start = -1, stay as they are). Strings are shared, not copied: for values
 * carried from one line of a log to the same bytes further down.
 */
export function shiftNode(node: JsonNode, delta: number): JsonNode {
  if (node.start < 0 || delta === 0) return node;
  const start = node.start + delta;
  const end = node.end + delta;
  switch (node.type) {
    case 'object': {
      const properties = new Array<JsonProperty>(node.properties.length);
      for (let i = 0; i < properties.length; i++) properties[i] = shiftProperty(node.properties[i] as JsonProperty, delta);
      return { type: 'object', start, end, properties };
    }
    case 'array': {
      const items = new Array<JsonNode>(node.items.length);
      for (let i = 0; i < items.length; i++) items[i] = shiftNode(node.items[i] as JsonNode, delta);
      return { type: 'array', start, end, items };
    }
    case 'string':
      return { type: 'string', start, end, value: node.value };
    case 'number':
      return { type: 'number', start, end, raw: node.raw };
    case 'boolean':
      return { type: 'boolean', start, end, value: node.value };
    case 'null':
      return { type: 'null', start, end };
  }
}

function shiftProperty(p: JsonProperty, delta: number): JsonProperty {
  return { key: p.key, keyStart: p.keyStart + delta, keyEnd: p.keyEnd + delta, value: shiftNode(p.value, delta) };
}
