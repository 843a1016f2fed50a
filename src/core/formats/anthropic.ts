/**
 * Anthropic Messages API request bodies (`POST /v1/messages`) and logs of them.
 *
 * `system` (a string or text blocks) becomes a leading system message; `tools`
 * the registry (each declaration kept as written, minus `cache_control`);
 * `messages[i]` one message each, 1:1 with the array. Blocks: `text`,
 * `tool_use` → call, `tool_result` → result, everything else (thinking with its
 * signature, redacted_thinking, images, documents, server-tool blocks,
 * compaction) is kept as an opaque block, its values byte-exact (its wrapper
 * keys sorted: see `opaqueValue`); a `compaction` block marks its message as
 * elided history. `cache_control` is dropped everywhere: it is a
 * caching hint, not something the model reads, and clients move it every turn.
 */
import type { JsonArray, JsonNode, JsonObject } from '../json/parse';
import { asArray, asObject, asString, callInput, prop, propString, rangeOf } from '../json/nodes';
import type { Block, ContextWindow, Message, ToolSchema } from '../model';
import type { FormatAdapter } from '../transcript';
import type { SourceRange } from '../text';
import { neutralRole } from './common';
import { opaqueValue, partsToBlocks, stripCacheControl, textMessage } from './provider-common';
import { classifyProviderHead } from './provider-sniff';
import type { ParsedRequest, ProviderCodec } from './request-log';
import { readRequestLog, requestLogLines } from './request-log';

export const anthropicCodec: ProviderCodec = {
  format: 'anthropic',
  label: 'Anthropic Messages',
  isRequest: (body) => asArray(prop(body, 'messages')) !== undefined && prop(body, 'contents') === undefined,
  readRequest: readAnthropicRequest,
  readResponse: readAnthropicResponse,
  carrier: {
    messagesArray: (body) => asArray(prop(body, 'messages')),
    readRequest: readAnthropicBody,
    readElement: (node, container) => readAnthropicMessage(node, undefined, container),
  },
};

export const anthropicAdapter: FormatAdapter = {
  id: 'anthropic',
  label: 'Anthropic Messages request bodies',
  sniff: (head) => classifyProviderHead(head) === 'anthropic',
  read: (input) => readRequestLog(input, anthropicCodec),
  lineReader: (file, firstLine, asked) => requestLogLines(file, firstLine, () => anthropicCodec, asked),
};

/** Reads a request body. */
export function readAnthropicRequest(body: JsonObject): ParsedRequest {
  return readAnthropicBody(body, []).request;
}

/**
 * Reads a request body whose leading elements of `messages` the parser
 * skipped (`carried`: their messages, a request log's repeated history); also
 * returns the messages of all elements of `messages`, in order.
 */
function readAnthropicBody(body: JsonObject, carried: readonly Message[]): { request: ParsedRequest; items: readonly Message[] } {
  const toolsNode = asArray(prop(body, 'tools'));
  const messagesNode = asArray(prop(body, 'messages'));
  const system = systemMessage(prop(body, 'system'));
  const messagesRange = rangeOf(messagesNode);
  const items = carried.concat((messagesNode?.items ?? []).map((item) => readAnthropicMessage(item, messagesNode, messagesRange)));
  const messages = system ? [system].concat(items) : items;
  const window: ContextWindow = {
    format: 'anthropic',
    tools: (toolsNode?.items ?? []).map(readTool),
    messages,
    boundary: messages.length,
    live: false,
    source: rangeOf(body),
    toolsSource: rangeOf(toolsNode),
    messagesSource: rangeOf(messagesNode),
  };
  return { request: { window, preamble: 0 }, items };
}

/** The assistant message of a logged response (`content[]`); [] for errors and streams. */
export function readAnthropicResponse(body: JsonNode | undefined): Message[] {
  const content = asArray(prop(body, 'content'));
  if (!content || propString(body, 'type') === 'error') return [];
  const contentRange = rangeOf(content);
  const blocks = content.items.map((block) => readBlock(block, contentRange));
  return [{ role: 'assistant', blocks, source: rangeOf(body), elision: hasCompaction(blocks) || undefined }];
}

function readTool(node: JsonNode): ToolSchema {
  const name = propString(node, 'name') ?? propString(node, 'type') ?? '';
  return { name, declaration: stripCacheControl(node), source: rangeOf(node) };
}

function systemMessage(node: JsonNode | undefined): Message | undefined {
  if (node?.type === 'string') return node.value === '' ? undefined : textMessage('system', node);
  if (node?.type !== 'array' || node.items.length === 0) return undefined;
  return { role: 'system', blocks: partsToBlocks(node, ['text']), source: rangeOf(node) };
}

/** One element of `messages`: role, and content as a string or blocks. */
export function readAnthropicMessage(node: JsonNode, container: JsonArray | undefined, containerRange = rangeOf(container)): Message {
  const role = neutralRole(propString(node, 'role'), 'user');
  const content = prop(node, 'content');
  let blocks: Block[];
  if (content?.type === 'string') blocks = [{ kind: 'text', text: content.value, source: rangeOf(content) }];
  else if (content?.type === 'array') {
    // One range object per array, shared by its elements (a request of a million calls holds each once).
    const contentRange = rangeOf(content);
    blocks = content.items.map((block) => readBlock(block, contentRange));
  }
  else blocks = node.type === 'object' ? [] : [{ kind: 'opaque', type: node.type, value: node, source: rangeOf(node) }];
  return { role, blocks, source: rangeOf(node), container: containerRange, elision: hasCompaction(blocks) || undefined };
}

function readBlock(node: JsonNode, container: SourceRange | undefined): Block {
  const block = asObject(node);
  const type = propString(block, 'type');
  const source = rangeOf(node);
  if (block && type === 'text') {
    const text = propString(block, 'text');
    if (text !== undefined) return { kind: 'text', text, source };
  }
  if (block && type === 'tool_use') {
    const id = prop(block, 'id');
    return {
      kind: 'tool_call',
      id: asString(id)?.value ?? '',
      name: propString(block, 'name') ?? '',
      input: callInput(prop(block, 'input')),
      source,
      idSource: rangeOf(id),
      container,
    };
  }
  if (block && type === 'tool_result') {
    const id = prop(block, 'tool_use_id');
    const content = prop(block, 'content');
    return {
      kind: 'tool_result',
      callId: asString(id)?.value ?? '',
      content: content && stripCacheControl(content),
      isError: asBoolean(prop(block, 'is_error')) || undefined,
      source,
      idSource: rangeOf(id),
      container,
    };
  }
  return { kind: 'opaque', type: type ?? node.type, value: opaqueValue(node), source };
}

function asBoolean(node: JsonNode | undefined): boolean {
  return node?.type === 'boolean' && node.value;
}

function hasCompaction(blocks: readonly Block[]): boolean {
  return blocks.some((b) => b.kind === 'opaque' && b.type === 'compaction');
}
