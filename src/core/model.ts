/**
 * The neutral model every format is read into: a context window of tool
 * schemas and messages, with the generation boundary between what the model
 * has consumed and what it has not. Every part remembers where in the source
 * file it came from, so findings and fixes land on the file's own bytes.
 */
import type { JsonNode } from './json/parse';
import type { SourceRange } from './text';

export type Role = 'system' | 'user' | 'assistant' | 'tool';

/** Which format a window was read from; rules with provider-specific positions read it. */
export type FormatId =
  | 'native'
  | 'anthropic'
  | 'openai-chat'
  | 'openai-responses'
  | 'claude-code'
  | 'codex'
  | 'inspect'
  | 'otel'
  | 'gemini'
  | 'gemini-cli'
  | 'bedrock';

/** A tool's schema as declared in the registry (`tools`). */
export interface ToolSchema {
  readonly name: string;
  /** Version label, when the format has one (native trace `version`). */
  readonly version?: string;
  /** The declaration as written (rendered as-is: key order and numbers kept). */
  readonly declaration: JsonNode;
  /** The element of the `tools` array it came from. */
  readonly source?: SourceRange;
}

export interface TextBlock {
  readonly kind: 'text';
  readonly text: string;
  readonly source?: SourceRange;
}

/**
 * Prefix of the id a reader gives a call the file has no id for, paired by
 * position (Gemini): `position:contents[1].parts[0]`. Messages say it is a
 * place, not an id (`idText` in rules/common.ts).
 */
export const POSITIONAL_ID = 'position:';

/** A call the model made: `tool_use`, `tool_calls[i]`, `function_call`, … */
export interface ToolCall {
  readonly kind: 'tool_call';
  readonly id: string;
  readonly name: string;
  /** The input as written: an object, or a string holding JSON (OpenAI `arguments`). */
  readonly input: JsonNode | undefined;
  /** The schema version the call was made against, when the format records it. */
  readonly schemaVersion?: string;
  /** The block / array element holding the call. */
  readonly source?: SourceRange;
  /** The id's string literal, where diagnostics on the id point. */
  readonly idSource?: SourceRange;
  /** The array the call is an element of (for whole-element edits). */
  readonly container?: SourceRange;
}

/** A result handed back for a call: `tool_result`, a `tool` message, `function_call_output`, … */
export interface ToolResult {
  readonly kind: 'tool_result';
  readonly callId: string;
  /** Tool name, when the format repeats it on the result. */
  readonly name?: string;
  readonly content: JsonNode | undefined;
  readonly isError?: boolean;
  readonly source?: SourceRange;
  readonly idSource?: SourceRange;
  readonly container?: SourceRange;
}

/**
 * Anything else the model reads that we do not interpret but must keep
 * byte-exact: thinking with its signature, reasoning, images, compaction items.
 */
export interface OpaqueBlock {
  readonly kind: 'opaque';
  /** The provider's block type (`thinking`, `reasoning`, `image`, …). */
  readonly type: string;
  readonly value: JsonNode;
  readonly source?: SourceRange;
}

export type Block = TextBlock | ToolCall | ToolResult | OpaqueBlock;

/**
 * Key of `Message[CARRIED_FROM]`: the first reading of the same message when a
 * reader carried it over unchanged from an earlier record (each request of a
 * request log repeats the history before it). Same bytes, so the same render;
 * other source ranges. A non-enumerable symbol property: JSON output, key
 * listings and spread copies (which may change the blocks) do not have it.
 */
export const CARRIED_FROM: unique symbol = Symbol('carriedFrom');

export interface Message {
  readonly role: Role;
  readonly blocks: readonly Block[];
  /** The array element (or line) the message came from. */
  readonly source?: SourceRange;
  /** The array the message is an element of (for whole-element edits). */
  readonly container?: SourceRange;
  /**
   * Where a user finds the message, in the format's own terms, when it is not
   * an element of a messages array: `line 18` (a Claude Code record, a Codex
   * rollout item). Messages of findings name it (`messageName` in rules/common.ts).
   */
  readonly place?: string;
  /** True when this message marks elided history (a summary, a compaction item, our marker). */
  readonly elision?: boolean;
  /** See `CARRIED_FROM`: caches keyed by message (renders) share their entry through it. */
  readonly [CARRIED_FROM]?: Message;
}

/** Where the pairing of a window continues outside it (OpenAI Responses server state). */
export interface ServerState {
  readonly kind: 'previous_response_id' | 'conversation';
  readonly id: string;
  readonly source?: SourceRange;
}

/** One context window: what a model reads, and how much of it it has already read. */
export interface ContextWindow {
  readonly format: FormatId;
  /** The active tool registry, in provider order. */
  readonly tools: readonly ToolSchema[];
  /**
   * Every tool version this transcript has declared so far (native trace), so that
   * historical calls stay resolvable. Undefined where the format has none: then
   * every call in the window counts as referencing its schema.
   */
  readonly historicalTools?: readonly ToolSchema[];
  readonly messages: readonly Message[];
  /** How many leading messages the model has consumed (0..messages.length). */
  readonly boundary: number;
  /**
   * A live window (native trace, session transcript): a call still pending at the
   * frontier is not an orphan. A provider request body is not live: every call must
   * already have its result.
   */
  readonly live: boolean;
  readonly serverState?: ServerState;
  /** The object (or line) the window was read from. */
  readonly source?: SourceRange;
  /** The `tools` array, when the window has one in the source. */
  readonly toolsSource?: SourceRange;
  /** The messages array (`messages`, `input`, `contents`), when the window has one. */
  readonly messagesSource?: SourceRange;
}

/** Who proposed a rewrite. `self_edit` is untrusted; request logs and snapshots say `request` / `snapshot`. */
export type RewriteSource = 'policy' | 'compaction' | 'self_edit' | 'runtime' | 'request' | 'snapshot';

/** A proposed replacement of a window, judged against the state just before it. */
export interface Rewrite {
  readonly source: RewriteSource;
  readonly before: ContextWindow;
  readonly after: ContextWindow;
  /** False when the trace records that the runtime did not apply it. */
  readonly applied: boolean;
  /** The event / line that proposed it. */
  readonly range?: SourceRange;
  /** The conversation of the file it belongs to (`ThreadInfo.id`; 1-based, 1 or none: the main one). */
  readonly thread?: number;
}

/** A call with its result(s), as found in one window. */
export interface ToolPair {
  readonly id: string;
  readonly call?: { readonly message: number; readonly block: number; readonly value: ToolCall };
  readonly results: readonly { readonly message: number; readonly block: number; readonly value: ToolResult }[];
}

export function toolCalls(message: Message): ToolCall[] {
  return message.blocks.filter((b): b is ToolCall => b.kind === 'tool_call');
}

export function toolResults(message: Message): ToolResult[] {
  return message.blocks.filter((b): b is ToolResult => b.kind === 'tool_result');
}

/** The id that pairs a call with its results: a call's own id, a result's `callId`. */
export function pairId(block: ToolCall | ToolResult): string {
  return block.kind === 'tool_call' ? block.id : block.callId;
}

/** The key of a call or result (block b of message m) in `toolPairs`: its id; an empty id is no id, so each such block stands alone. */
export function pairKey(id: string, m: number, b: number): string {
  return id === '' ? `\u0000${m}.${b}` : id;
}

/** Indexes the calls and results of a window by id, in order of appearance. */
export function toolPairs(window: ContextWindow): Map<string, ToolPair> {
  type Entry = { id: string; call?: ToolPair['call']; results: ToolPair['results'][number][] };
  const pairs = new Map<string, Entry>();
  const entry = (id: string, m: number, b: number) => {
    const key = pairKey(id, m, b);
    let pair = pairs.get(key);
    if (!pair) pairs.set(key, (pair = { id, results: [] }));
    return pair;
  };
  const messages = window.messages;
  for (let m = 0; m < messages.length; m++) {
    const blocks = (messages[m] as Message).blocks;
    for (let b = 0; b < blocks.length; b++) {
      const block = blocks[b] as Block;
      if (block.kind === 'tool_call') {
        const pair = entry(block.id, m, b);
        if (!pair.call) pair.call = { message: m, block: b, value: block };
      } else if (block.kind === 'tool_result') {
        const pair = entry(block.callId, m, b);
        const member = { message: m, block: b, value: block };
        // `[member]` is one element long; a push onto `[]` would keep room for 16.
        if (pair.results.length === 0) pair.results = [member];
        else pair.results.push(member);
      }
    }
  }
  return pairs;
}
