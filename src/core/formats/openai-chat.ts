/**
 * OpenAI Chat Completions request bodies (`POST /v1/chat/completions`, and the
 * many OpenAI-compatible endpoints) and logs of them.
 *
 * `messages[i]` becomes one message each (system / developer → system). An
 * assistant's `tool_calls[j]` become calls whose input is the `arguments` string
 * as written; a `role:"tool"` message becomes one result for its `tool_call_id`.
 * Only what the model reads is kept: `content: null`, an absent `content`,
 * `refusal: null` and `annotations` all read alike, so replaying a response
 * without them is still byte-identical. Any other non-empty field of a message
 * (`name`, `refusal`, `audio`, `reasoning_content`, a Gemini `thought_signature`
 * or `extra_content`) is kept byte-exact as an opaque block, in key order, so
 * dropping one from a consumed message is a visible change.
 */
import type { JsonArray, JsonNode, JsonObject } from '../json/parse';
import { asArray, asObject, asString, hasContent, prop, propString, rangeOf } from '../json/nodes';
import type { Block, ContextWindow, Message, ToolCall, ToolSchema } from '../model';
import type { SourceRange } from '../text';
import type { FormatAdapter } from '../transcript';
import { neutralRole } from './common';
import { partsToBlocks, stripCacheControl } from './provider-common';
import { classifyProviderHead } from './provider-sniff';
import type { ParsedRequest, ProviderCodec } from './request-log';
import { readRequestLog, requestLogLines } from './request-log';

export const openaiChatCodec: ProviderCodec = {
  format: 'openai-chat',
  label: 'OpenAI Chat Completions',
  isRequest: (body) => asArray(prop(body, 'messages')) !== undefined && prop(body, 'contents') === undefined,
  readRequest: readChatRequest,
  readResponse: readChatResponse,
  carrier: {
    messagesArray: (body) => asArray(prop(body, 'messages')),
    readRequest: (body, carried) => {
      const request = readChatRequest(body, carried);
      return { request, items: request.window.messages };
    },
    readElement: (node, container) => readChatMessage(node, undefined, container),
  },
};

export const openaiChatAdapter: FormatAdapter = {
  id: 'openai-chat',
  label: 'OpenAI Chat Completions request bodies',
  sniff: (head) => classifyProviderHead(head) === 'openai-chat',
  read: (input) => readRequestLog(input, openaiChatCodec),
  lineReader: (file, firstLine, asked) => requestLogLines(file, firstLine, () => openaiChatCodec, asked),
};

/**
 * Reads a request body. `carried`: the messages of the leading elements of
 * `messages` that the parser skipped (a request log's repeated history, see carry.ts).
 */
export function readChatRequest(body: JsonObject, carried: readonly Message[] = []): ParsedRequest {
  const toolsNode = asArray(prop(body, 'tools'));
  const functionsNode = asArray(prop(body, 'functions'));
  const messagesNode = asArray(prop(body, 'messages'));
  const messagesRange = rangeOf(messagesNode);
  const messages = carried.concat((messagesNode?.items ?? []).map((item) => readChatMessage(item, messagesNode, messagesRange)));
  const window: ContextWindow = {
    format: 'openai-chat',
    tools: [...(toolsNode?.items ?? []), ...(functionsNode?.items ?? [])].map(readTool),
    messages,
    boundary: messages.length,
    live: false,
    source: rangeOf(body),
    toolsSource: rangeOf(toolsNode ?? functionsNode),
    messagesSource: rangeOf(messagesNode),
  };
  return { window, preamble: 0 };
}

/** `choices[0].message` of a logged response; [] when there is none. */
export function readChatResponse(body: JsonNode | undefined): Message[] {
  const choice = asArray(prop(body, 'choices'))?.items[0];
  const message = asObject(prop(choice, 'message'));
  return message ? [readChatMessage(message, undefined)] : [];
}

function readTool(node: JsonNode): ToolSchema {
  const type = propString(node, 'type');
  const inner = prop(node, type ?? 'function') ?? prop(node, 'function');
  const name = propString(inner, 'name') ?? propString(node, 'name') ?? type ?? '';
  return { name, declaration: node, source: rangeOf(node) };
}

/** Fields that are read structurally, or that the model never reads (`annotations`: response metadata). */
const STRUCTURAL_KEYS = ['role', 'content', 'tool_calls', 'tool_call_id', 'annotations'];

/** One element of `messages` (or a response's message); `containerRange`: the range of `container` (the elements of one array share one). */
export function readChatMessage(node: JsonNode, container: JsonArray | undefined, containerRange = rangeOf(container)): Message {
  const role = neutralRole(propString(node, 'role'), 'user');
  // One literal: V8 gives each object that a spread of common fields makes a hidden class of its own (~230 bytes a message carried to the end of a log).
  return { role, source: rangeOf(node), container: containerRange, blocks: chatBlocks(node, containerRange) };
}

function chatBlocks(node: JsonNode, container: SourceRange | undefined): Block[] {
  const message = asObject(node);
  if (!message) return [{ kind: 'opaque', type: node.type, value: node, source: rangeOf(node) }];
  if (propString(message, 'role') === 'tool') return [toolResult(message, container)];
  const calls = asArray(prop(message, 'tool_calls'));
  // Joined with concat, not spreads or pushes: those leave room for 16 more elements in an array kept as long as its message.
  return contentBlocks(prop(message, 'content')).concat(extraBlocks(message), (calls?.items ?? []).map((call) => toolCall(call, calls)));
}

function contentBlocks(content: JsonNode | undefined): Block[] {
  if (content?.type === 'string') return content.value === '' ? [] : [{ kind: 'text', text: content.value, source: rangeOf(content) }];
  if (content?.type === 'array') return partsToBlocks(content, ['text']);
  return [];
}

/** Every other non-empty field, as opaque blocks in key order (source key order varies between writers). */
function extraBlocks(message: JsonObject): Block[] {
  return message.properties
    .filter((p) => !STRUCTURAL_KEYS.includes(p.key) && hasContent(p.value))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((p): Block => {
      // Keep the key with the value, so the field it came from is part of the rendered bytes.
      const value: JsonNode = { type: 'object', start: p.keyStart, end: p.value.end, properties: [p] };
      return { kind: 'opaque', type: p.key, value, source: rangeOf(value) };
    });
}

function toolCall(node: JsonNode, container: JsonArray | undefined): ToolCall {
  const id = prop(node, 'id');
  const type = propString(node, 'type') ?? 'function';
  const inner = prop(node, type) ?? prop(node, 'function');
  return {
    kind: 'tool_call',
    id: asString(id)?.value ?? '',
    name: propString(inner, 'name') ?? '',
    input: prop(inner, 'arguments') ?? prop(inner, 'input'),
    source: rangeOf(node),
    idSource: rangeOf(id),
    container: rangeOf(container),
  };
}

function toolResult(message: JsonObject, container: SourceRange | undefined): Block {
  const id = prop(message, 'tool_call_id');
  const content = prop(message, 'content');
  return {
    kind: 'tool_result',
    callId: asString(id)?.value ?? '',
    name: propString(message, 'name'),
    content: content && stripCacheControl(content),
    source: rangeOf(message),
    idSource: rangeOf(id),
    container,
  };
}
