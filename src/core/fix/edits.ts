/**
 * Turns a fix plan into minimal text edits against the source file: whole
 * array elements are deleted with their separators, restored elements are
 * copied byte for byte from where the window before the rewrite was read, and
 * the marker is written in the file's own format and separator style. Every
 * byte outside the edited ranges stays as it was (formatting, key order, line
 * endings).
 */
import type { TextEdit } from '../results';
import { parseJson, type JsonNode, type JsonNumber } from '../json/parse';
import { prop } from '../json/nodes';
import type { ContextWindow, FormatId, Message, Rewrite } from '../model';
import { partitionPoint } from '../../shared/search';
import type { SourceRange } from '../text';
import { detectStyle, markerElement, objectText, type JsonStyle } from './marker';
import type { FixTarget } from './target';

/** Applies non-overlapping edits (in any order) to a text. */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const sorted = [...edits].sort((a, b) => a.range.start - b.range.start || a.range.end - b.range.end);
  let out = '';
  let at = 0;
  for (const edit of sorted) {
    if (edit.range.start < at || edit.range.end < edit.range.start || edit.range.end > text.length) {
      throw new RangeError(`Overlapping or out-of-range edit at ${edit.range.start}`);
    }
    out += text.slice(at, edit.range.start) + edit.newText;
    at = edit.range.end;
  }
  return out + text.slice(at);
}

/** An element of a rewritten array: an element kept from the file, or new text. */
export type ArrayEntry = { readonly old: number } | { readonly text: string };

/** A JSON array of the file with its element ranges. */
export interface ParsedArray {
  readonly range: SourceRange;
  readonly items: readonly JsonNode[];
}

/** Reads the array at `range` (undefined when it is not one). */
export function parseArrayAt(text: string, range: SourceRange | undefined): ParsedArray | undefined {
  if (!range || range.start < 0 || range.end > text.length || range.end <= range.start) return undefined;
  const parsed = parseJson(text.slice(range.start, range.end), range.start);
  if (!parsed.ok || parsed.node.type !== 'array') return undefined;
  return { range, items: parsed.node.items };
}

function separatorOf(text: string, array: ParsedArray, style: JsonStyle): string {
  const [first, second] = array.items;
  if (first && second) return text.slice(first.end, second.start);
  const lead = text.slice(array.range.start + 1, first ? first.start : array.range.end - 1);
  return lead.includes('\n') ? ',' + lead : style.itemSeparator;
}

/** The smallest edit turning `oldText` (at `start`) into `newText`. */
function minimalEdit(start: number, oldText: string, newText: string): TextEdit | undefined {
  if (oldText === newText) return undefined;
  let prefix = 0;
  const limit = Math.min(oldText.length, newText.length);
  while (prefix < limit && oldText.charCodeAt(prefix) === newText.charCodeAt(prefix)) prefix++;
  let suffix = 0;
  while (
    suffix < limit - prefix &&
    oldText.charCodeAt(oldText.length - 1 - suffix) === newText.charCodeAt(newText.length - 1 - suffix)
  ) {
    suffix++;
  }
  return {
    range: { start: start + prefix, end: start + oldText.length - suffix },
    newText: newText.slice(prefix, newText.length - suffix),
  };
}

/**
 * Edits that turn an array into `sequence` (kept elements in ascending order,
 * new texts anywhere). Only the gaps between kept elements are touched.
 */
export function arrayEdits(text: string, array: ParsedArray, sequence: readonly ArrayEntry[], style: JsonStyle): TextEdit[] {
  const { items, range } = array;
  const sep = separatorOf(text, array, style);
  const open = range.start + 1;
  const close = range.end - 1;
  const lead = items[0] ? text.slice(open, items[0].start) : '';
  const last = items[items.length - 1];
  const trail = last ? text.slice(last.end, close) : '';
  const edits: TextEdit[] = [];
  let prev = -1;
  let added: string[] = [];
  const gap = (next: number | undefined) => {
    const prevItem = items[prev];
    const nextItem = next === undefined ? undefined : items[next];
    const deleted = (next ?? items.length) - prev - 1 > 0;
    if (!deleted && added.length === 0) return;
    const start = prevItem ? prevItem.end : open;
    const end = nextItem ? nextItem.start : close;
    const body = added.join(sep);
    let newText: string;
    if (prevItem && nextItem) newText = sep + (added.length ? body + sep : '');
    else if (nextItem) newText = lead + (added.length ? body + sep : '');
    else if (prevItem) newText = (added.length ? sep + body : '') + trail;
    else newText = added.length ? (items.length ? lead + body + trail : body) : items.length ? '' : text.slice(open, close);
    const edit = minimalEdit(start, text.slice(start, end), newText);
    if (edit) edits.push(edit);
  };
  for (const entry of sequence) {
    if ('text' in entry) {
      added.push(entry.text);
      continue;
    }
    gap(entry.old);
    prev = entry.old;
    added = [];
  }
  gap(undefined);
  return edits;
}

/** Keys a request message may carry, per format (undefined = any). */
const MESSAGE_KEYS: Partial<Record<FormatId, readonly string[]>> = {
  anthropic: ['role', 'content'],
  'openai-chat': ['role', 'content', 'name', 'tool_calls', 'tool_call_id', 'refusal', 'audio', 'function_call'],
};

function validRange(range: SourceRange | undefined, text: string): range is SourceRange {
  return !!range && range.start >= 0 && range.end <= text.length && range.start <= range.end;
}

/**
 * A message of the window before the rewrite as an element of the proposal's
 * messages array: its own bytes when they already are a request message, else
 * rebuilt from its own property bytes (a logged response carries `id`, `usage`, …).
 */
export function messageElementText(format: FormatId, message: Message, text: string, style: JsonStyle): string | undefined {
  if (!validRange(message.source, text)) return undefined;
  const raw = text.slice(message.source.start, message.source.end);
  const parsed = parseJson(raw, message.source.start);
  if (!parsed.ok) return undefined;
  const node = parsed.node;
  const role = JSON.stringify(message.role);
  if (node.type === 'array') return objectText([['role', role], ['content', raw]], style);
  if (node.type !== 'object') return undefined;
  const allowed = MESSAGE_KEYS[format];
  const hasRole = node.properties.some((p) => p.key === 'role');
  if (hasRole && (!allowed || node.properties.every((p) => allowed.includes(p.key)))) return raw;
  const kept = node.properties.filter((p) => p.key !== 'role' && (!allowed || allowed.includes(p.key)));
  return objectText([['role', role], ...kept.map((p) => [p.key, text.slice(p.value.start, p.value.end)] as const)], style);
}

function within(inner: SourceRange | undefined, outer: SourceRange | undefined): boolean {
  return !!inner && !!outer && inner.start >= outer.start && inner.end <= outer.end && inner.start >= 0;
}

/** Indexes of the array elements lying inside `range` (elements are sorted: binary search). */
function itemsIn(array: ParsedArray, range: SourceRange | undefined): number[] {
  if (!range) return [];
  const { items } = array;
  const lo = partitionPoint(items.length, (i) => (items[i]?.start ?? 0) < range.start);
  const out: number[] = [];
  for (let i = lo; i < items.length && (items[i]?.start ?? 0) < range.end; i++) if ((items[i]?.end ?? 0) <= range.end) out.push(i);
  return out;
}

/** Deletions and insertions collected per array. */
interface ArrayChange {
  readonly array: ParsedArray;
  readonly deleted: Set<number>;
  /** Texts to insert before element i (i = items.length: at the end). */
  readonly inserts: Map<number, string[]>;
}

class ArrayChanges {
  readonly byStart = new Map<number, ArrayChange>();
  constructor(private readonly text: string) {}

  of(range: SourceRange | undefined): ArrayChange | undefined {
    if (!range) return undefined;
    const known = this.byStart.get(range.start);
    if (known) return known;
    const array = parseArrayAt(this.text, range);
    if (!array) return undefined;
    const change = { array, deleted: new Set<number>(), inserts: new Map<number, string[]>() };
    this.byStart.set(range.start, change);
    return change;
  }

  edits(style: JsonStyle): TextEdit[] {
    const out: TextEdit[] = [];
    for (const { array, deleted, inserts } of this.byStart.values()) {
      const sequence: ArrayEntry[] = [];
      for (let i = 0; i <= array.items.length; i++) {
        for (const t of inserts.get(i) ?? []) sequence.push({ text: t });
        if (i < array.items.length && !deleted.has(i)) sequence.push({ old: i });
      }
      out.push(...arrayEdits(this.text, array, sequence, style));
    }
    return out;
  }
}

function insertAt(change: ArrayChange, at: number, text: string): void {
  const list = change.inserts.get(at) ?? [];
  list.push(text);
  change.inserts.set(at, list);
}

/** The texts the edits copy from: the proposal's file and the before-window's file. */
interface Sources {
  readonly text: string;
  readonly beforeText: string;
  readonly style: JsonStyle;
}

/** Deletes a proposal message (or some of its blocks) from the file. False when a range is missing. */
function deleteFromMessage(changes: ArrayChanges, after: ContextWindow, message: Message, blocks: readonly number[] | 'all'): boolean {
  if (blocks === 'all') {
    const change = changes.of(message.container ?? after.messagesSource);
    const items = change ? itemsIn(change.array, message.source) : [];
    items.forEach((i) => change?.deleted.add(i));
    return items.length > 0;
  }
  for (const b of blocks) {
    const block = message.blocks[b];
    const container = block && 'container' in block ? block.container : undefined;
    const change = changes.of(container ?? (within(block?.source, after.messagesSource) ? after.messagesSource : undefined));
    const items = change ? itemsIn(change.array, block?.source) : [];
    if (!items.length) return false;
    items.forEach((i) => change?.deleted.add(i));
  }
  return true;
}

/**
 * Where each new element goes: before the first element of the next kept
 * proposal message (the array's end when none follows). One backward pass.
 */
function insertionPoints(change: ArrayChange, after: ContextWindow, target: FixTarget): number[] {
  const points: number[] = new Array<number>(target.messages.length);
  let next = change.array.items.length;
  for (let t = target.messages.length - 1; t >= 0; t--) {
    points[t] = next;
    const entry = target.messages[t];
    if (entry?.kind !== 'after') continue;
    const first = itemsIn(change.array, after.messages[entry.index]?.source)[0];
    if (first !== undefined) next = first;
  }
  return points;
}

/**
 * How many leading messages were read from outside the messages array
 * (Anthropic `system`, Responses `instructions`): they are edited in place,
 * not as array elements.
 */
function preambleLength(window: ContextWindow): number {
  let i = 0;
  while (i < window.messages.length && !within(window.messages[i]?.source, window.messagesSource)) i++;
  return i;
}

/** Out-of-array messages (a `system` or `instructions` value) replaced by the before-window's value. */
function replaceOutOfArray(rewrite: Rewrite, target: FixTarget, src: Sources): TextEdit[] | undefined {
  const { before, after } = rewrite;
  const keptAfter = new Set(target.messages.flatMap((e) => (e.kind === 'after' ? [e.index] : [])));
  const afterPreamble = preambleLength(after);
  const beforePreamble = preambleLength(before);
  const droppedAfter = after.messages.map((_, i) => i).filter((i) => i < afterPreamble && !keptAfter.has(i));
  const restored = target.messages.flatMap((e) => (e.kind === 'before' && e.index < beforePreamble ? [e.index] : []));
  if (droppedAfter.length !== restored.length) return undefined;
  const edits: TextEdit[] = [];
  for (let k = 0; k < restored.length; k++) {
    const from = before.messages[restored[k] ?? -1]?.source;
    const to = after.messages[droppedAfter[k] ?? -1]?.source;
    if (!validRange(from, src.beforeText) || !validRange(to, src.text)) return undefined;
    const edit = minimalEdit(to.start, src.text.slice(to.start, to.end), src.beforeText.slice(from.start, from.end));
    if (edit) edits.push(edit);
  }
  return edits;
}

function messageChanges(rewrite: Rewrite, target: FixTarget, src: Sources, changes: ArrayChanges): boolean {
  const { before, after } = rewrite;
  const kept = new Map(target.messages.flatMap((e) => (e.kind === 'after' ? [[e.index, e.removed] as const] : [])));
  for (let i = preambleLength(after); i < after.messages.length; i++) {
    const message = after.messages[i];
    if (!message) continue;
    const removed = kept.get(i);
    if (removed === undefined && !deleteFromMessage(changes, after, message, 'all')) return false;
    if (removed?.size && !deleteFromMessage(changes, after, message, [...removed])) return false;
  }
  const beforePreamble = preambleLength(before);
  const inserted = target.messages.some((e) => e.kind === 'marker' || (e.kind === 'before' && e.index >= beforePreamble));
  if (!inserted) return true;
  const change = changes.of(after.messagesSource);
  if (!change) return false;
  const points = insertionPoints(change, after, target);
  for (let t = 0; t < target.messages.length; t++) {
    const entry = target.messages[t];
    if (!entry || entry.kind === 'after' || (entry.kind === 'before' && entry.index < beforePreamble)) continue;
    const message = entry.kind === 'before' ? before.messages[entry.index] : undefined;
    const text =
      entry.kind === 'marker'
        ? markerElement(after.format, entry.text, src.style)
        : message && messageElementText(after.format, message, src.beforeText, src.style);
    if (text === undefined) return false;
    insertAt(change, points[t] ?? change.array.items.length, text);
  }
  return true;
}

function toolChanges(rewrite: Rewrite, target: FixTarget, src: Sources, changes: ArrayChanges): boolean {
  const { before, after } = rewrite;
  const kept = new Set(target.tools.flatMap((e) => (e.kind === 'after' ? [e.index] : [])));
  const touched = kept.size !== after.tools.length || target.tools.some((e) => e.kind === 'before');
  if (!touched) return true;
  const change = changes.of(after.toolsSource);
  if (!change) return false;
  for (let i = 0; i < after.tools.length; i++) {
    if (kept.has(i)) continue;
    const items = itemsIn(change.array, after.tools[i]?.source);
    if (!items.length) return false;
    items.forEach((k) => change.deleted.add(k));
  }
  for (let t = 0; t < target.tools.length; t++) {
    const entry = target.tools[t];
    if (entry?.kind !== 'before') continue;
    const from = before.tools[entry.index]?.source;
    if (!validRange(from, src.beforeText)) return false;
    const next = target.tools.slice(t + 1).find((e) => e.kind === 'after');
    const at = next ? itemsIn(change.array, after.tools[next.index]?.source)[0] : undefined;
    insertAt(change, at ?? change.array.items.length, src.beforeText.slice(from.start, from.end));
  }
  return true;
}

/** Sorts edits and checks they neither overlap nor leave `bounds`; touching edits are merged. */
function normalise(edits: TextEdit[], bounds: SourceRange | undefined): TextEdit[] | undefined {
  const sorted = [...edits].sort((a, b) => a.range.start - b.range.start || a.range.end - b.range.end);
  const out: TextEdit[] = [];
  for (const edit of sorted) {
    if (bounds && (edit.range.start < bounds.start || edit.range.end > bounds.end)) return undefined;
    const prev = out[out.length - 1];
    if (prev && edit.range.start < prev.range.end) return undefined;
    if (prev && edit.range.start === prev.range.end) {
      out[out.length - 1] = { range: { start: prev.range.start, end: edit.range.end }, newText: prev.newText + edit.newText };
    } else out.push(edit);
  }
  return out;
}

/** A native rewrite event's own `boundary`, when it states one (undefined otherwise). */
export function statedBoundary(rewrite: Rewrite, text: string): JsonNumber | undefined {
  const range = rewrite.range;
  if (rewrite.after.format !== 'native' || !validRange(range, text)) return undefined;
  const parsed = parseJson(text.slice(range.start, range.end), range.start);
  const node = parsed.ok ? prop(parsed.node, 'boundary') : undefined;
  return node?.type === 'number' ? node : undefined;
}

/** Rewrites a stated boundary to the fix's, so a re-read agrees with the plan. */
function boundaryEdit(rewrite: Rewrite, target: FixTarget, text: string): TextEdit[] {
  const node = statedBoundary(rewrite, text);
  if (!node || target.boundary === undefined || Number(node.raw) === target.boundary) return [];
  return [{ range: { start: node.start, end: node.end }, newText: String(target.boundary) }];
}

/**
 * The edits that turn the proposal, as written in `text`, into the fixed
 * window. Undefined when a range they need is missing (a window made in code)
 * or would fall outside the event that proposed the rewrite.
 */
export function fixEdits(rewrite: Rewrite, target: FixTarget, text: string, beforeText = text): TextEdit[] | undefined {
  const { after } = rewrite;
  const sampleRange = after.messagesSource ?? after.source;
  const sample = sampleRange ? text.slice(sampleRange.start, Math.min(sampleRange.end, sampleRange.start + 4000)) : '';
  const src: Sources = { text, beforeText, style: detectStyle(sample) };
  const changes = new ArrayChanges(text);
  if (!messageChanges(rewrite, target, src, changes)) return undefined;
  if (!toolChanges(rewrite, target, src, changes)) return undefined;
  const outside = replaceOutOfArray(rewrite, target, src);
  if (!outside) return undefined;
  return normalise([...changes.edits(src.style), ...outside, ...boundaryEdit(rewrite, target, text)], rewrite.range ?? after.source);
}
