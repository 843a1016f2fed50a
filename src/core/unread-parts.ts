/**
 * Parts a reader kept as opaque bytes although they hold a tool call or result
 * in a shape it does not read (a Chat message's legacy `function_call`, a
 * Gemini `functionCall` part in a file read as another format, a block type
 * the reader does not know): their pairing is not checked, so the check must
 * not look clean. `check.ts` counts them over every window and says so once,
 * in an info finding with the count and the first location.
 */
import { finding, type Finding, type RelatedLocation } from './findings';
import { CarriedMessage } from './formats/carried-message';
import type { JsonNode, JsonObject } from './json/parse';
import { CARRIED_FROM, type ContextWindow, type FormatId, type Message, type OpaqueBlock } from './model';
import type { Shift } from './shift';
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
/** Content part types of OpenAI Chat Completions messages the reader keeps as bytes (text is read). */
const CHAT_PARTS: ReadonlySet<string> = new Set(['text', 'image_url', 'input_audio', 'file', 'refusal', 'audio', 'thinking', 'redacted_thinking']);
/** Item and content part types of the OpenAI Responses API the reader keeps as bytes (calls with a `call_id` are read). */
const RESPONSES_PARTS: ReadonlySet<string> = new Set([
  'message', 'reasoning', 'item_reference', 'compaction', 'file_search_call', 'web_search_call', 'computer_call', 'computer_call_output',
  'image_generation_call', 'code_interpreter_call', 'local_shell_call', 'local_shell_call_output', 'shell_call', 'shell_call_output',
  'apply_patch_call', 'apply_patch_call_output', 'mcp_list_tools', 'mcp_approval_request', 'mcp_approval_response', 'mcp_call',
  'input_text', 'input_image', 'input_file', 'input_audio', 'output_text', 'refusal', 'summary_text', 'reasoning_text',
]);
/** Fields of a Gemini `Part` (both spellings the REST API accepts); a part is unknown when it has any other key. */
const GEMINI_PART_KEYS: ReadonlySet<string> = new Set([
  'text', 'thought', 'thoughtSignature', 'thought_signature', 'inlineData', 'inline_data', 'fileData', 'file_data', 'executableCode', 'executable_code',
  'codeExecutionResult', 'code_execution_result', 'videoMetadata', 'video_metadata', 'partMetadata', 'part_metadata', 'mediaResolution', 'media_resolution',
]);
/** Members of a Bedrock Converse `ContentBlock` the reader keeps as bytes (text, toolUse, toolResult are read). */
const BEDROCK_BLOCKS: ReadonlySet<string> = new Set(['text', 'image', 'document', 'video', 'audio', 'guardContent', 'cachePoint', 'reasoningContent', 'citationsContent', 'searchResult']);
/** Codex rollouts hold Responses items, plus the tool-search items Codex writes (the reader's `INPUT_ITEMS`). */
const CODEX_PARTS: ReadonlySet<string> = new Set([...RESPONSES_PARTS, 'tool_search_call', 'tool_search_output']);
/** Types of an Inspect AI `ChatMessage` content list (`Content` in `inspect_ai`; `tool_use` is a server-side tool, not a call to pair). */
const INSPECT_CONTENT: ReadonlySet<string> = new Set(['text', 'reasoning', 'image', 'audio', 'video', 'data', 'tool_use', 'document']);
/**
 * Part types the OTel reader keeps as bytes. It reads messages of several
 * shapes, so this is their union: OTel GenAI semconv parts (`tool_call` and
 * `tool_call_response` are read), Chat and Responses parts (raw requests),
 * Anthropic blocks and LangChain standard blocks (a LangChain message's
 * content). A `tool_call` anywhere it is not read stays a tool-shaped part.
 */
const OTEL_PARTS: ReadonlySet<string> = new Set([
  'reasoning', 'blob', 'file', 'uri', 'server_tool_call', 'server_tool_call_response', 'text-plain', 'non_standard', 'server_tool_result',
  ...CHAT_PARTS, ...RESPONSES_PARTS, ...ANTHROPIC_BLOCKS,
]);

/** The names a part of one format is typed by; none when the block is not a typed part (a Chat message's extra field). */
type PartNames = (block: OpaqueBlock & { readonly value: JsonObject }) => readonly string[];
/** The name of a part without a `type`, where such a value is a part. */
const UNTYPED = '\0untyped';
/** A part named by its `type` (`untyped`: whether a value without one is a part all the same). */
const byType = (untyped: boolean): PartNames => ({ value }) => {
  const type = value.properties.find((p) => p.key === 'type')?.value;
  if (type?.type === 'string') return [type.value];
  return untyped ? [UNTYPED] : [];
};
/** A part named by its keys (Gemini parts, Bedrock content blocks). */
const byKeys: PartNames = ({ value }) => value.properties.map((p) => p.key);
/** Gemini CLI parts by key; its `thoughts` entries (`{subject, description}`) are opaque blocks of type `thought` that are no parts. */
const cliParts: PartNames = (block) => {
  const keys = byKeys(block);
  return block.type === 'thought' && !keys.some((k) => GEMINI_PART_KEYS.has(k)) ? [] : keys;
};
/** A Chat message's extra field (`{name: …}`, LangChain's `{type: "ai"}`): one key, the block's type. Not a part. */
const isExtraField = (block: OpaqueBlock & { readonly value: JsonObject }) => block.value.properties.length === 1 && block.value.properties[0]?.key === block.type;
/** Parts of Chat-like messages, whose extra fields are opaque blocks too (`untyped`: as in `byType`). */
const chatParts = (untyped: boolean): PartNames => (block) => (isExtraField(block) ? [] : byType(untyped)(block));

/** The part types each format's reader knows and keeps as bytes; formats not listed are not checked for unknown types. */
const KNOWN_OPAQUE: Partial<Record<FormatId, { readonly known: ReadonlySet<string>; readonly names: PartNames }>> = {
  anthropic: { known: ANTHROPIC_BLOCKS, names: byType(true) },
  'claude-code': { known: ANTHROPIC_BLOCKS, names: byType(true) },
  'openai-chat': { known: CHAT_PARTS, names: chatParts(false) },
  'openai-responses': { known: RESPONSES_PARTS, names: byType(true) },
  gemini: { known: GEMINI_PART_KEYS, names: byKeys },
  bedrock: { known: BEDROCK_BLOCKS, names: byKeys },
  codex: { known: CODEX_PARTS, names: byType(true) },
  'gemini-cli': { known: GEMINI_PART_KEYS, names: cliParts },
  inspect: { known: INSPECT_CONTENT, names: byType(true) },
  otel: { known: OTEL_PARTS, names: chatParts(true) },
};
/** At most this many unknown type names are listed in the message. */
const MAX_TYPES = 5;

/** True when an opaque value is a call or result in a shape the reader did not read. */
export function isToolShaped(value: JsonNode): boolean {
  if (value.type !== 'object') return false;
  return value.properties.some((p) => TOOL_KEYS.has(p.key) || (p.key === 'type' && p.value.type === 'string' && TOOL_TYPES.has(p.value.value)));
}

/** A type name as the message says it. */
function shown(name: string): string {
  return name === UNTYPED ? 'no "type"' : JSON.stringify(name);
}

/**
 * Messages walked: a check's own, and those walked before it (its origin's
 * when it is a fork, a memo's prefix). Each own message is numbered as it is
 * walked, so a fork sees only what its origin had walked when it was made,
 * however long the origin goes on (a followed file keeps forks of its check
 * at line starts, to read an edited file again from there).
 */
class Walked {
  /** This walk's token, for the marks it leaves in carried messages (a symbol: a message keeps no walk alive). */
  private readonly id = Symbol('walk');
  /** The marks of the messages that keep none themselves. */
  private readonly own = new WeakMap<Message, number>();
  private count = 0;
  constructor(private before: WalkedSet[] = []) {}

  has(message: Message): boolean {
    return markOf(message, this.id, this.own) !== undefined || this.before.some((set) => set.has(message));
  }

  add(message: Message): void {
    const at = ++this.count;
    // A request log's carried messages keep the mark themselves; any other message (or one another walk marked) in `own`.
    if (!(message instanceof CarriedMessage && message.markWalked(this.id, at))) this.own.set(message, at);
  }

  /**
   * Counts the messages of `set` as walked too. A followed file's memo hands
   * its set over at every window (the same set while it resumes, a new one
   * each time it starts again), so a set already looked up is not added again
   * and the sets are capped as a fork's are.
   */
  inherit(set: { has(message: Message): boolean }): void {
    if (!this.before.includes(set)) this.before = capped([...this.before, set]);
  }

  /**
   * A fork looks up at most `MAX_WALKED_SETS` sets (a followed file forks
   * forks of forks, one more each time it is read again from a checkpoint).
   */
  fork(): Walked {
    // Not `this`: a fork keeps its origin's marks, not the sets its origin looks up (forks of forks would keep them all).
    const [id, own, upTo] = [this.id, this.own, this.count];
    const before = this.count === 0 ? [...this.before] : [...this.before, { has: (message: Message) => (markOf(message, id, own) ?? Infinity) <= upTo }];
    return new Walked(capped(before));
  }
}

/**
 * At most `MAX_WALKED_SETS` sets: past it the oldest but the first are
 * forgotten, and a message walked there is walked again when seen, which adds
 * nothing (parts are keyed by value).
 */
function capped(sets: WalkedSet[]): WalkedSet[] {
  return sets.length > MAX_WALKED_SETS ? [sets[0]!, ...sets.slice(1 - MAX_WALKED_SETS)] : sets;
}

type WalkedSet = { has(message: Message): boolean };

/** Where the walk whose token is `id` (its marks not kept in the message in `own`) marked `message` (its count then), if it did. */
function markOf(message: Message, id: symbol, own: WeakMap<Message, number>): number | undefined {
  return (message instanceof CarriedMessage ? message.walkedAt(id) : undefined) ?? own.get(message);
}

/** The most sets of messages walked before it a fork looks up (`Walked.fork`). */
const MAX_WALKED_SETS = 8;

/**
 * What a check has counted so far: the parts, keyed by the JSON value they
 * were read from (the same part in several windows counts once; parts of one
 * JSON string, or inside a compressed `.eval`, share a range but not a value),
 * and the messages already walked.
 */
export interface UnreadParts {
  readonly parts: Map<JsonNode, SourceRange>;
  /** Parts of a type the reader does not know (not tool-shaped). */
  readonly unknown: Map<JsonNode, { readonly range: SourceRange; readonly type: string }>;
  /** Messages walked already (walking one again changes nothing: parts are keyed by their JSON value). */
  readonly walked: Walked;
  /** Stands for what was counted and walked: a new object after each window, a fork's is its origin's (`UnreadMemo`). */
  state: object;
  /** The messages of the last window walked (`collectUnreadParts`): a message at the same place in the next is walked already. */
  last?: readonly Message[];
}

export function unreadParts(): UnreadParts {
  return { parts: new Map(), unknown: new Map(), walked: new Walked(), state: {} };
}

/** An independent copy: messages walked by the copy are not marked walked in `unread`. */
export function forkUnreadParts(unread: UnreadParts): UnreadParts {
  return { parts: new Map(unread.parts), unknown: new Map(unread.unknown), walked: unread.walked.fork(), state: unread.state };
}

/**
 * The parts of a later reading (`later`) with those counted before offset
 * `from` taken from `before` (a reading of an edited text up to there), the
 * rest moved by `shift`: a part is counted where it is first read, so the
 * later windows' parts are those after `from` (in the order they were
 * counted, after `before`'s).
 */
export function splicedUnreadParts(before: UnreadParts, later: UnreadParts, from: number, shift: Shift): UnreadParts {
  const parts = new Map(before.parts);
  for (const [value, range] of later.parts) if (range.start >= from) parts.set(value, shift.range(range));
  const unknown = new Map(before.unknown);
  for (const [value, part] of later.unknown) if (part.range.start >= from) unknown.set(value, { ...part, range: shift.range(part.range) });
  return { parts, unknown, walked: later.walked.fork(), state: {}, ...(later.last && { last: later.last }) };
}

/**
 * What the unread-parts counts of a followed file's final windows share from
 * one report to the next (each report's fork holds it): the last window counted,
 * the state it was counted from, and the counts after all but its last
 * message, with those messages walked. A window counted from the same state
 * that starts with the same message objects starts from these counts and
 * walks only from the old last message on (it may have grown or been replaced),
 * so its counts are those a walk of all its messages gives, in the same order.
 */
export class UnreadMemo {
  private from: object | undefined;
  private messages: readonly Message[] = [];
  private parts = new Map<JsonNode, SourceRange>();
  private unknown = new Map<JsonNode, { readonly range: SourceRange; readonly type: string }>();
  private walked = new WeakSet<Message>();

  /** Counts `window` into `unread` as `collectUnreadParts` does, from the memo when it applies; returns the index of the first message walked. */
  collect(window: ContextWindow, unread: UnreadParts): number {
    const messages = window.messages;
    const start = this.resumes(messages, unread.state) ? this.messages.length - 1 : 0;
    if (start > 0) {
      copyInto(unread.parts, this.parts);
      copyInto(unread.unknown, this.unknown);
    } else Object.assign(this, { from: unread.state, walked: new WeakSet<Message>() });
    unread.walked.inherit(this.walked);
    const prefix = Math.max(0, messages.length - 1);
    collectMessages(window.format, messages, start, prefix, unread, this.walked);
    Object.assign(this, { messages, parts: new Map(unread.parts), unknown: new Map(unread.unknown) });
    collectMessages(window.format, messages, prefix, messages.length, unread, unread.walked);
    unread.state = {};
    return start;
  }

  /** Whether `messages`, counted from `state`, start with the memo's messages but its last. */
  private resumes(messages: readonly Message[], state: object): boolean {
    const kept = this.messages.length - 1;
    if (state !== this.from || kept < 1 || messages.length <= kept) return false;
    for (let i = 0; i < kept; i++) if (messages[i] !== this.messages[i]) return false;
    return true;
  }
}

function copyInto<K, V>(target: Map<K, V>, source: ReadonlyMap<K, V>): void {
  target.clear();
  for (const [key, value] of source) target.set(key, value);
}

/**
 * Adds the tool-shaped opaque parts of a window. A message already walked (the
 * same object in a later window) or carried over from an earlier request of a
 * log (the same bytes) is not walked again, so the history a request log repeats
 * costs nothing here.
 */
export function collectUnreadParts(window: ContextWindow, unread: UnreadParts): void {
  collectMessages(window.format, window.messages, 0, window.messages.length, unread, unread.walked, unread.last);
  unread.last = window.messages;
  unread.state = {};
}

/**
 * Adds the parts of `messages[from..to)` not walked yet, marking them walked
 * in `walked`; `last`: messages walked in that order (one at the same place
 * is known without a lookup: a request log's next window holds its
 * predecessor's carried messages where they were).
 */
function collectMessages(format: FormatId, messages: readonly Message[], from: number, to: number, unread: UnreadParts, walked: { add(message: Message): unknown }, last?: readonly Message[]): void {
  const table = KNOWN_OPAQUE[format];
  for (let i = from; i < to; i++) {
    const message = messages[i] as Message;
    if (message === last?.[i] || unread.walked.has(message) || message[CARRIED_FROM]) continue;
    walked.add(message);
    for (const block of message.blocks) {
      if (block.kind !== 'opaque' || !block.source) continue;
      const value = block.value;
      const names = table && value.type === 'object' ? table.names({ ...block, value }) : [];
      const unknown = names.filter((name) => !table?.known.has(name));
      if (names.length > 0 && unknown.length === 0) continue;
      if (isToolShaped(value)) unread.parts.set(value, block.source);
      else if (unknown.length > 0) unread.unknown.set(value, { range: block.source, type: unknown.map(shown).join('+') });
    }
  }
}

/** Where the first part is: its line, or, for a part with no bytes of its own in the file (inside a compressed `.eval`), that it has none. */
function firstAt(range: SourceRange, lineOf: (offset: number) => number): string {
  return range.end > range.start ? `first at line ${lineOf(range.start)}` : 'inside a compressed entry, no line to show';
}

/** At most this many further parts are listed as related locations (as `Unseen` does for records). */
const MAX_RELATED = 20;

/** The parts in file order: the first, and the next ones with a place of their own as related locations. */
function inOrder<T extends { readonly range: SourceRange }>(parts: Iterable<T>, say: (part: T) => string): { first: T; related?: RelatedLocation[] } {
  const sorted = [...parts].sort((a, b) => a.range.start - b.range.start);
  const first = sorted[0]!;
  const related = sorted.slice(1, 1 + MAX_RELATED).filter((p) => p.range.end > p.range.start).map((p) => ({ range: p.range, message: say(p) }));
  return related.length > 0 ? { first, related } : { first };
}

/** The info findings for the parts a reader could not see (one per cause), or none; `lineOf` gives an offset's 1-based line. */
export function unreadPartsFinding(unread: UnreadParts, readerLabel: string, lineOf: (offset: number) => number): Finding[] {
  const out: Finding[] = [];
  if (unread.parts.size > 0) {
    const { first, related } = inOrder([...unread.parts.values()].map((range) => ({ range })), () => 'Also a tool call or result in a shape this reader does not read');
    const n = unread.parts.size;
    const what = `${n} part${n === 1 ? ' holds' : 's hold'} a tool call or result in a shape the ${readerLabel} reader does not read`;
    out.push(finding('record-skipped', first.range, `${what} (${firstAt(first.range, lineOf)}): ${n === 1 ? 'its' : 'their'} pairing is not checked`, related ? { related } : {}));
  }
  if (unread.unknown.size > 0) {
    const parts = [...unread.unknown.values()];
    const { first, related } = inOrder(parts, (p) => `Also a part of a type this reader does not know: ${p.type}`);
    const types = [...new Set(parts.map((p) => p.type))];
    const named = types.slice(0, MAX_TYPES).join(', ') + (types.length > MAX_TYPES ? `, … (${types.length} types)` : '');
    const n = parts.length;
    const message = `${n} part${n === 1 ? '' : 's'} of a type the ${readerLabel} reader does not know (${named}; ${firstAt(first.range, lineOf)}): kept as raw bytes, what ${n === 1 ? 'it holds' : 'they hold'} is not checked`;
    out.push(finding('record-skipped', first.range, message, related ? { related } : {}));
  }
  return out;
}
