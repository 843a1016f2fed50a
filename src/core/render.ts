/**
 * Deterministic rendering of a window to the bytes a provider would see, in
 * provider order: the tool registry, then the messages (system messages are
 * messages with role `system`, first). Compact JSON with a fixed, neutral
 * template per block; JsonNodes keep their key order and the raw text of their
 * numbers, so a re-serialisation that changes bytes is visible here.
 *
 * Only model-visible fields are rendered: `content: null` and an absent content
 * render alike, while a changed id or a dropped thinking signature (part of an
 * opaque block's node) changes bytes.
 */
import type { RenderSegment, RenderedWindow } from './results';
import type { JsonNode, JsonProperty } from './json/parse';
import { CARRIED_FROM, type Block, type ContextWindow, type Message, type ToolSchema } from './model';

/** Renders a JsonNode compactly: key order kept, numbers by their raw text, strings re-encoded. */
export function renderJson(node: JsonNode | undefined): string {
  if (!node) return 'null';
  switch (node.type) {
    case 'object': {
      const parts = new Array<string>(node.properties.length);
      node.properties.forEach((p, i) => (parts[i] = JSON.stringify(p.key) + ':' + renderJson(p.value)));
      return '{' + parts.join(',') + '}';
    }
    case 'array':
      return '[' + node.items.map(renderJson).join(',') + ']';
    case 'string':
      return JSON.stringify(node.value);
    case 'number':
      return node.raw;
    case 'boolean':
      return node.value ? 'true' : 'false';
    case 'null':
      return 'null';
  }
}

/**
 * Whether two nodes render alike (`renderJson(a) === renderJson(b)`), found
 * without rendering either: the same shape, keys in the same order, the same
 * strings, numbers as written (a missing node renders as null).
 */
export function sameJson(a: JsonNode | undefined, b: JsonNode | undefined): boolean {
  if (a === b) return true;
  if (!a || !b) return (a ?? b)?.type === 'null';
  switch (a.type) {
    case 'object':
      return b.type === 'object' && sameProperties(a.properties, b.properties);
    case 'array':
      return b.type === 'array' && sameItems(a.items, b.items);
    case 'string':
      return b.type === 'string' && a.value === b.value;
    case 'number':
      return b.type === 'number' && a.raw === b.raw;
    case 'boolean':
      return b.type === 'boolean' && a.value === b.value;
    case 'null':
      return b.type === 'null';
  }
}

function sameProperties(a: readonly JsonProperty[], b: readonly JsonProperty[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as JsonProperty;
    const y = b[i] as JsonProperty;
    if (x.key !== y.key || !sameJson(x.value, y.value)) return false;
  }
  return true;
}

function sameItems(a: readonly JsonNode[], b: readonly JsonNode[]): boolean {
  return sameEach(a, b, sameJson);
}

/** Whether two lists are as long and `same` holds for each element and its counterpart. */
export function sameEach<T>(a: readonly T[], b: readonly T[], same: (x: T, y: T) => boolean): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!same(a[i] as T, b[i] as T)) return false;
  return true;
}

/** Whether two tools render alike (`RenderCache.tool`), without rendering them. */
export function toolRendersAlike(a: ToolSchema, b: ToolSchema): boolean {
  return a === b || sameJson(a.declaration, b.declaration);
}

/** Whether two tool registries render alike, tool by tool (names and versions may differ where they do not render). */
export function toolsRenderAlike(a: readonly ToolSchema[], b: readonly ToolSchema[]): boolean {
  return sameEach(a, b, toolRendersAlike);
}

/** Renders one block with its neutral template. */
export function renderBlock(block: Block): string {
  switch (block.kind) {
    case 'text':
      return `{"type":"text","text":${JSON.stringify(block.text)}}`;
    case 'tool_call': {
      const version = block.schemaVersion === undefined ? '' : `,"schema_version":${JSON.stringify(block.schemaVersion)}`;
      const input = block.input ? renderJson(block.input) : '{}';
      return `{"type":"tool_use","id":${JSON.stringify(block.id)},"name":${JSON.stringify(block.name)},"input":${input}${version}}`;
    }
    case 'tool_result': {
      const error = block.isError ? ',"is_error":true' : '';
      const content = block.content ? renderJson(block.content) : '""';
      return `{"type":"tool_result","tool_use_id":${JSON.stringify(block.callId)},"content":${content}${error}}`;
    }
    case 'opaque':
      return renderJson(block.value);
  }
}

/** A tool renders as its declaration, as written. */
export function renderTool(tool: ToolSchema): string {
  return renderJson(tool.declaration);
}

/** A rendered message with the offsets of its blocks inside the message text. */
export interface MessageRender {
  readonly text: string;
  readonly blocks: readonly { readonly start: number; readonly end: number; readonly text: string }[];
}

const MESSAGE_HEAD = (role: string) => `{"role":${JSON.stringify(role)},"content":[`;

/** Renders one message and records where each block sits in it. */
export function renderMessageParts(message: Message): MessageRender {
  const head = MESSAGE_HEAD(message.role);
  const texts = message.blocks.map(renderBlock);
  const { starts } = joinedAt(texts, head.length);
  const blocks = texts.map((text, b) => ({ start: starts[b] ?? 0, end: (starts[b] ?? 0) + text.length, text }));
  return { text: head + texts.join(',') + ']}', blocks };
}

/**
 * Renders one message. Equal messages render to equal strings, so a request
 * log compares a message of the new request to the old one by this string.
 */
export function renderMessage(message: Message): string {
  return MESSAGE_HEAD(message.role) + message.blocks.map(renderBlock).join(',') + ']}';
}

/** What a message's render weighs: its length, and its tokens when they were asked for (-1 until then). */
export interface RenderMeasure {
  readonly chars: number;
  tokens: number;
}

/**
 * A message that keeps its render's measure itself (a request log's carried
 * message, formats/carried-message.ts: two numbers in the object it is
 * anyway) instead of an entry of the cache's map and an object of its own.
 */
export interface OwnMeasure {
  ownMeasure(): RenderMeasure | undefined;
  keepMeasure(measure: RenderMeasure): void;
}

function hasOwnMeasure(message: Message): message is Message & OwnMeasure {
  return typeof (message as Partial<OwnMeasure>).ownMeasure === 'function';
}

/**
 * Caches renders per message / tool object, so a step and the window events
 * around it render each message once. Create one per check. The per-block
 * parts are built only when a rule asks for them. A message carried over from
 * an earlier request (`CARRIED_FROM`) shares the entry of its first reading, so
 * the history a request log repeats is rendered once.
 *
 * A message's text is kept from one `turn` to the next while something asks
 * for it; its length and token count (`measure`) as long as the message lives.
 * A request log compares its carried history by identity after the step that
 * first reads it, so its renders are let go, not held for the whole history
 * (a window rendered whole at each step keeps all of its renders).
 */
export class RenderCache {
  /** Texts asked for since the last `turn`. */
  private texts = new WeakMap<Message, string>();
  /** Texts asked for in the turn before: moved to `texts` when asked again, let go at the next `turn`. */
  private older = new WeakMap<Message, string>();
  /** Token counts of the texts measured in this turn and the one before (a response and its copy in the next request render alike). */
  private counts = new Map<string, number>();
  private olderCounts = new Map<string, number>();
  private readonly measures = new WeakMap<Message, RenderMeasure>();
  private readonly parts = new WeakMap<Message, MessageRender>();
  private readonly tools = new WeakMap<ToolSchema, string>();

  message(message: Message): MessageRender {
    const key = message[CARRIED_FROM] ?? message;
    let render = this.parts.get(key);
    if (!render) this.parts.set(key, (render = renderMessageParts(message)));
    return render;
  }

  messageText(message: Message): string {
    const key = message[CARRIED_FROM] ?? message;
    let text = this.texts.get(key);
    if (text === undefined) this.texts.set(key, (text = this.older.get(key) ?? renderMessage(message)));
    return text;
  }

  /** The length of a message's render and, with `count` (a text's tokens), its tokens; kept per message. */
  measure(message: Message, count?: (text: string) => number): RenderMeasure {
    const key = message[CARRIED_FROM] ?? message;
    if (hasOwnMeasure(key)) return this.ownMeasure(message, key, count);
    let measure = this.measures.get(key);
    if (!measure || (count && measure.tokens < 0)) {
      const text = this.messageText(message);
      measure ??= { chars: text.length, tokens: -1 };
      if (count) measure.tokens = this.tokensOf(text, count);
      this.measures.set(key, measure);
    }
    return measure;
  }

  /** `measure` of a message that keeps it (`OwnMeasure`). */
  private ownMeasure(message: Message, key: OwnMeasure, count?: (text: string) => number): RenderMeasure {
    const known = key.ownMeasure();
    if (known && (!count || known.tokens >= 0)) return known;
    const text = this.messageText(message);
    const measure = { chars: text.length, tokens: count ? this.tokensOf(text, count) : -1 };
    key.keepMeasure(measure);
    return measure;
  }

  private tokensOf(text: string, count: (text: string) => number): number {
    let tokens = this.counts.get(text);
    if (tokens === undefined) this.counts.set(text, (tokens = this.olderCounts.get(text) ?? count(text)));
    return tokens;
  }

  /** The next step of a check: texts not asked for since the turn before this one are let go. */
  turn(): void {
    this.older = this.texts;
    this.texts = new WeakMap();
    this.olderCounts = this.counts;
    this.counts = new Map();
  }

  tool(tool: ToolSchema): string {
    let render = this.tools.get(tool);
    if (render === undefined) this.tools.set(tool, (render = renderTool(tool)));
    return render;
  }
}

const TOOLS_OPEN = '{"tools":[';
const MESSAGES_OPEN = '],"messages":[';
const CLOSE = ']}';

/** Offsets of a window's parts in its render, without building the text. */
export interface WindowLayout {
  readonly toolTexts: readonly string[];
  /** Start offset of each tool in the rendered text. */
  readonly toolStarts: readonly number[];
  readonly messageTexts: readonly string[];
  /** Start offset of each message in the rendered text. */
  readonly messageStarts: readonly number[];
  /** Offset just past the tools (start of the first message). */
  readonly messagesStart: number;
  readonly boundaryOffset: number;
}

export function windowLayout(window: ContextWindow, cache = new RenderCache()): WindowLayout {
  return layoutOfTexts(
    window.tools.map((t) => cache.tool(t)),
    window.messages.map((m) => cache.messageText(m)),
    window.boundary,
  );
}

/** Where each of `texts` starts when they are joined by commas from offset `from`, and where the last one ends. */
function joinedAt(texts: readonly string[], from: number): { readonly starts: number[]; readonly end: number } {
  const starts = new Array<number>(texts.length);
  let offset = from;
  for (let i = 0; i < texts.length; i++) {
    if (i) offset += 1;
    starts[i] = offset;
    offset += (texts[i] as string).length;
  }
  return { starts, end: offset };
}

/** Where message j starts in the render of a window whose tools and messages render as `toolTexts` and `messageText(k)` (its layout's `messageStarts[j]`). */
export function messageOffset(toolTexts: readonly string[], messageText: (k: number) => string, j: number): number {
  let offset = joinedAt(toolTexts, TOOLS_OPEN.length).end + MESSAGES_OPEN.length;
  for (let k = 0; k < j; k++) offset += messageText(k).length + 1;
  return offset;
}

/** The layout of a window whose tools and messages render as `toolTexts` and `messageTexts`. */
function layoutOfTexts(toolTexts: readonly string[], messageTexts: readonly string[], windowBoundary: number): WindowLayout {
  const tools = joinedAt(toolTexts, TOOLS_OPEN.length);
  const messagesStart = tools.end + MESSAGES_OPEN.length;
  const messageStarts = joinedAt(messageTexts, messagesStart).starts;
  const boundary = Math.max(0, Math.min(windowBoundary, messageTexts.length));
  const last = boundary - 1;
  const boundaryOffset = last < 0 ? messagesStart : (messageStarts[last] ?? 0) + (messageTexts[last]?.length ?? 0);
  return { toolTexts, toolStarts: tools.starts, messageTexts, messageStarts, messagesStart, boundaryOffset };
}

/** Renders a whole window with a segment per tool, message and block. */
export function renderWindow(window: ContextWindow, cache = new RenderCache()): RenderedWindow {
  const layout = windowLayout(window, cache);
  const segments: RenderSegment[] = [];
  layout.toolTexts.forEach((text, tool) => {
    const start = layout.toolStarts[tool] ?? 0;
    segments.push(withSource({ start, end: start + text.length, kind: 'tool', tool }, window.tools[tool]?.source));
  });
  window.messages.forEach((message, m) => {
    const start = layout.messageStarts[m] ?? 0;
    const render = cache.message(message);
    segments.push(withSource({ start, end: start + (layout.messageTexts[m]?.length ?? 0), kind: 'message', message: m }, message.source));
    render.blocks.forEach((part, b) => {
      const block = message.blocks[b];
      const callId = block?.kind === 'tool_call' ? block.id : block?.kind === 'tool_result' ? block.callId : undefined;
      const segment: RenderSegment = { start: start + part.start, end: start + part.end, kind: 'block', message: m, block: b };
      segments.push(withSource(callId === undefined ? segment : { ...segment, callId }, block?.source));
    });
  });
  const text = TOOLS_OPEN + layout.toolTexts.join(',') + MESSAGES_OPEN + layout.messageTexts.join(',') + CLOSE;
  return { text, boundaryOffset: layout.boundaryOffset, segments };
}

function withSource(segment: RenderSegment, source: RenderSegment['source']): RenderSegment {
  return source ? { ...segment, source } : segment;
}
