/**
 * Window-shaped objects (`{tools?, messages?, boundary?}`): read from a JSON
 * node (a trace event) or from a library caller's plain object, and the window
 * a proposal describes on top of the current one. A plain proposal that shares
 * objects with the plain window its base was read from (a runtime passing its
 * messages again) reuses what they were read into.
 */
import { alignMessages, inferBoundary } from '../align';
import type { JsonNode } from '../json/parse';
import type { ContextWindow, Message, ToolSchema } from '../model';
import { RenderCache } from '../render';
import type { SourceRange } from '../text';
import { fromValue, prop, rangeOf } from '../json/nodes';
import { parseMessages, parseTool, parseTools, type SkipSink } from './native-parse';
import { readPlainMessage } from './native-plain';

/** The fields of a window-shaped object (a `window` or `rewrite` event, a library caller's object). */
export interface WindowFields {
  readonly tools?: ToolSchema[];
  readonly toolsSource?: SourceRange;
  readonly messages?: Message[];
  readonly messagesSource?: SourceRange;
  readonly boundary?: number;
}

export function readWindowFields(node: JsonNode, sink: SkipSink): WindowFields {
  const tools = prop(node, 'tools');
  const messages = prop(node, 'messages');
  const boundary = prop(node, 'boundary');
  const toolsSource = rangeOf(tools);
  const messagesSource = rangeOf(messages);
  let boundaryValue: number | undefined;
  if (boundary?.type === 'number' && Number.isInteger(Number(boundary.raw)) && Number(boundary.raw) >= 0) {
    boundaryValue = Number(boundary.raw);
  } else if (boundary) {
    sink({ noun: '`boundary` value', cause: 'other than a non-negative integer', why: 'the boundary is inferred', verb: 'Ignored', range: rangeOf(boundary) ?? { start: 0, end: 0 } });
  }
  return {
    ...(tools && { tools: parseTools(tools, sink) }),
    ...(toolsSource && { toolsSource }),
    ...(messages && { messages: parseMessages(messages, sink) }),
    ...(messagesSource && { messagesSource }),
    ...(boundaryValue !== undefined && { boundary: boundaryValue }),
  };
}

/** Adds tools to a historical registry (one entry per name and version, first declaration kept). */
export function withHistory(history: readonly ToolSchema[], tools: readonly ToolSchema[]): readonly ToolSchema[] {
  const key = (t: ToolSchema) => `${t.name}\u0000${t.version ?? ''}`;
  const seen = new Set(history.map(key));
  const added = tools.filter((t) => !seen.has(key(t)) && seen.add(key(t)));
  return added.length ? [...history, ...added] : history;
}

/** True when `messages` starts with every message of `base`, as the same objects. */
export function extendsMessages(base: readonly Message[], messages: readonly Message[]): boolean {
  if (messages.length < base.length) return false;
  for (let i = 0; i < base.length; i++) if (messages[i] !== base[i]) return false;
  return true;
}

/** The boundary a proposal without one gets: aligned with the base (a pure extension keeps the base's). */
function inferredBoundary(base: ContextWindow, messages: readonly Message[], cache: RenderCache): number {
  // Aligning a pure extension maps the base's messages onto themselves: the boundary stays.
  if (extendsMessages(base.messages, messages)) return base.boundary;
  const texts = (list: readonly Message[]) => list.map((m) => cache.messageText(m));
  const roles = { before: base.messages.map((m) => m.role), after: messages.map((m) => m.role) };
  return inferBoundary(alignMessages(texts(base.messages), texts(messages), roles), base.boundary);
}

/**
 * Builds the window a proposal describes on top of `base`: missing fields are
 * unchanged; a missing boundary is inferred by aligning the messages.
 */
export function proposalWindow(fields: WindowFields, base: ContextWindow | undefined, cache: RenderCache): ContextWindow {
  const tools = fields.tools ?? base?.tools ?? [];
  const messages = fields.messages ?? base?.messages ?? [];
  let boundary = fields.boundary;
  if (boundary === undefined) {
    if (!base) boundary = messages.length;
    else if (!fields.messages) boundary = base.boundary;
    else boundary = inferredBoundary(base, messages, cache);
  }
  const toolsSource = fields.toolsSource ?? (fields.tools ? undefined : base?.toolsSource);
  const messagesSource = fields.messagesSource ?? (fields.messages ? undefined : base?.messagesSource);
  return {
    format: 'native',
    tools,
    historicalTools: withHistory(base?.historicalTools ?? base?.tools ?? [], tools),
    messages,
    boundary: Math.min(boundary, messages.length),
    live: true,
    ...(toolsSource && { toolsSource }),
    ...(messagesSource && { messagesSource }),
  };
}

/**
 * Plain elements already read one to one (none skipped), with what they were
 * read into. A proposal element found here (in place, or anywhere through the
 * index built on first need) is not read again.
 */
export interface PlainRead<T> {
  readonly plain: readonly unknown[];
  readonly read: readonly T[];
  /** Where each element is (its first place), built once a few elements were looked up by a scan. */
  index?: Map<unknown, number>;
  /** Lookups done by a scan so far. */
  scans?: number;
}

/** Lookups by a linear scan (a pointer compare per element) before an index is built. */
const SCANS_BEFORE_INDEX = 4;

/** What a window was read from (plain mode): its messages and its tools, where they map one to one. */
export interface PlainBase {
  readonly messages?: PlainRead<Message>;
  readonly tools?: PlainRead<ToolSchema>;
}

const ignore: SkipSink = () => undefined;

/** Where `element` is in `base.plain`, or -1. */
function positionOf<T>(base: PlainRead<T>, element: unknown): number {
  if (typeof element !== 'object' || element === null) return -1;
  base.scans = (base.scans ?? 0) + 1;
  if (!base.index && base.scans <= SCANS_BEFORE_INDEX) return base.plain.indexOf(element);
  if (!base.index) {
    base.index = new Map();
    base.plain.forEach((p, i) => base.index?.has(p) || base.index?.set(p, i));
  }
  return base.index.get(element) ?? -1;
}

/** Elements read [start, start + length) are the base's readings [from, from + length), the same objects. */
export interface ReadRun {
  readonly start: number;
  readonly from: number;
  readonly length: number;
}

/**
 * Reads each element (parse, or undefined to skip it), reusing what `base`
 * read from the same objects. A run of elements that follows the base's order
 * (kept in place, or shifted by a cut) costs a pointer compare each: only the
 * first element of a run is looked up. Each such run (as long as it goes,
 * over skipped elements too) is added to `runs`, in order.
 */
function readEach<T>(array: readonly unknown[], read: (element: unknown) => T | undefined, base?: PlainRead<T>, runs?: ReadRun[]): T[] {
  let out: T[] = [];
  let next = 0;
  for (let i = 0; i < array.length; ) {
    const element = array[i];
    const at = !base ? -1 : next < base.plain.length && element === base.plain[next] ? next : positionOf(base, element);
    if (at < 0 || !base) {
      const value = read(element);
      if (value) out.push(value);
      i++;
      continue;
    }
    const { plain, read: readings } = base;
    let end = at + 1;
    while (end < plain.length && i + end - at < array.length && array[i + end - at] === plain[end]) end++;
    if (runs) addRun(runs, { start: out.length, from: at, length: end - at });
    // The run's readings, copied at once when they start the list (a window kept in place, or cut at its start).
    if (out.length === 0) out = readings.slice(at, end);
    else for (let k = at; k < end; k++) out.push(readings[k] as T);
    i += end - at;
    next = end;
  }
  return out;
}

/** Adds a run, joined to the last one when it continues it on both sides (elements skipped between them). */
function addRun(runs: ReadRun[], run: ReadRun): void {
  const last = runs[runs.length - 1];
  if (last && last.start + last.length === run.start && last.from + last.length === run.from) runs[runs.length - 1] = { ...last, length: last.length + run.length };
  else runs.push(run);
}

const readTool = (element: unknown) => parseTool(fromValue(element), ignore);

/** A `PlainRead` of an array and what it was read into, when one to one (copied: the caller may push to its array). */
export function plainRead<T>(array: unknown, read: readonly T[]): PlainRead<T> | undefined {
  return Array.isArray(array) && array.length === read.length ? { plain: array.slice(), read } : undefined;
}

/** An own enumerable property, as `fromValue` (and so the JSON reading) sees it. */
export function own(value: object, key: string): unknown {
  return Object.prototype.propertyIsEnumerable.call(value, key) ? (value as Record<string, unknown>)[key] : undefined;
}

/**
 * The same fields as `readWindowFields(fromValue(value))`, reusing what `base` read from the same objects (`messagesRead`: the messages array's reading, made already).
 * `messageRuns`: where the messages read reuse the base's, set when the messages array was read against it.
 */
function plainFields(value: object, base?: PlainBase, messagesRead?: Message[], messageRuns?: { runs?: ReadRun[] }): WindowFields {
  const tools = own(value, 'tools');
  const messages = own(value, 'messages');
  const boundary = own(value, 'boundary');
  // fromValue writes a number by String(n) (non-finite as null), which readWindowFields reads back.
  const b = typeof boundary === 'number' && Number.isFinite(boundary) ? Number(String(boundary)) : NaN;
  return {
    ...(tools !== undefined && { tools: Array.isArray(tools) ? readEach(tools, readTool, base?.tools) : parseTools(fromValue(tools), ignore) }),
    ...(messages !== undefined && { messages: messagesRead ?? readMessages(messages, base, messageRuns) }),
    ...(Number.isInteger(b) && b >= 0 && { boundary: b }),
  };
}

/** A `messages` value read, against the base's messages when an array; `messageRuns.runs`: the base's runs it reuses, when read against them. */
function readMessages(messages: unknown, base?: PlainBase, messageRuns?: { runs?: ReadRun[] }): Message[] {
  if (!Array.isArray(messages)) return parseMessages(fromValue(messages), ignore);
  const runs = base?.messages && messageRuns ? (messageRuns.runs = []) : undefined;
  return readEach(messages, readPlainMessage, base?.messages, runs);
}

/** What a plain window-shaped object was read into, for the next proposal's `plainBase`. */
export function plainBaseOf(value: unknown, window: ContextWindow, previous?: PlainBase): PlainBase | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const tools = own(value, 'tools');
  const messages = own(value, 'messages');
  const toolsRead = tools === undefined ? previous?.tools : plainRead(tools, window.tools);
  const messagesRead = messages === undefined ? previous?.messages : plainRead(messages, window.messages);
  return { ...(toolsRead && { tools: toolsRead }), ...(messagesRead && { messages: messagesRead }) };
}

/**
 * A window from a plain native-trace-shaped object `{tools?, messages, boundary?}`
 * (library callers). With `base`, missing fields are taken from it and the
 * boundary, when absent, is inferred against it. `plainBase` names the plain
 * objects `base` was read from: the same objects in the proposal are not read again.
 * `messagesRead`: what the record's `messages` array reads as, when the caller has read it.
 * `messageRuns.runs` is set to the runs of `plainBase`'s messages the window's messages reuse, when they were read against them.
 */
export function windowFromObject(value: unknown, base?: ContextWindow, plainBase?: PlainBase, cache = new RenderCache(), messagesRead?: Message[], messageRuns?: { runs?: ReadRun[] }): ContextWindow {
  const isRecord = typeof value === 'object' && value !== null && !Array.isArray(value);
  const fields = isRecord ? plainFields(value, plainBase, messagesRead, messageRuns) : readWindowFields(fromValue(value), ignore);
  return proposalWindow(fields, base, cache);
}
