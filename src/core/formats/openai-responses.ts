/**
 * OpenAI Responses API request bodies (`POST /v1/responses`) and logs of them.
 *
 * `instructions` becomes a leading system message. `input` is a string (one user
 * message) or items, each item becoming its own message so the element ranges
 * map 1:1 to `input`: `{role, content}` messages; `function_call` /
 * `custom_tool_call` / any `*_call` with a `call_id` → an assistant message
 * with one call keyed by `call_id` (not the item `id`); `*_call_output` → a tool
 * message with one result; `reasoning`, server-side tool items, `compaction`
 * (marked as elided history) and anything else → opaque blocks (values
 * byte-exact, wrapper keys sorted: see `opaqueValue`).
 * Item `status` and message / call item `id`s are not read by the model and are
 * left out.
 *
 * `previous_response_id` / `conversation` put the start of the context in
 * server-side state: the window records it (`serverState`), so a result whose
 * call is not in the request is reported as info, not as an orphan. In a log, a
 * request continuing the previous exchange's state is judged as the window the
 * model actually reads: the previous request and response, then the new input.
 */
import type { JsonArray, JsonNode, JsonObject } from '../json/parse';
import { asArray, asObject, asString, prop, propString, rangeOf } from '../json/nodes';
import type { Block, ContextWindow, Message, Role, ServerState, ToolSchema } from '../model';
import type { SourceRange } from '../text';
import type { FormatAdapter } from '../transcript';
import { neutralRole } from './common';
import { opaqueValue, partsToBlocks, textMessage } from './provider-common';
import { classifyProviderHead } from './provider-sniff';
import type { Continuation, LoggedExchange, ParsedRequest, ProviderCodec } from './request-log';
import { consumedWindow, readRequestLog, requestLogLines } from './request-log';
import { exactWindow, isShallow, withExact } from './carry';

export const openaiResponsesCodec: ProviderCodec = {
  format: 'openai-responses',
  label: 'OpenAI Responses',
  isRequest: (body) =>
    prop(body, 'messages') === undefined &&
    prop(body, 'contents') === undefined &&
    prop(body, 'output') === undefined &&
    ['input', 'instructions', 'previous_response_id', 'conversation', 'prompt'].some((k) => prop(body, k) !== undefined),
  readRequest: readResponsesRequest,
  readResponse: readResponsesOutput,
  continueFrom: continueResponses,
  carrier: {
    messagesArray: (body) => asArray(prop(body, 'input')),
    readRequest: (body, carried) => {
      const request = readResponsesRequest(body, carried);
      return { request, items: request.preamble > 0 ? request.window.messages.slice(request.preamble) : request.window.messages };
    },
    readElement: (node, container) => readItem(node, undefined, container),
  },
};

export const openaiResponsesAdapter: FormatAdapter = {
  id: 'openai-responses',
  label: 'OpenAI Responses request bodies',
  sniff: (head) => classifyProviderHead(head) === 'openai-responses',
  read: (input) => readRequestLog(input, openaiResponsesCodec),
  lineReader: (file, firstLine, asked) => requestLogLines(file, firstLine, () => openaiResponsesCodec, asked),
};

/**
 * Reads a request body. `carried`: the messages of the leading `input` items
 * that the parser skipped (a request log's repeated history, see carry.ts).
 */
export function readResponsesRequest(body: JsonObject, carried: readonly Message[] = []): ParsedRequest {
  const toolsNode = asArray(prop(body, 'tools'));
  const inputNode = prop(body, 'input');
  const instructions = prop(body, 'instructions');
  const preamble = instructions?.type === 'string' && instructions.value !== '' ? [textMessage('system', instructions)] : [];
  const items = asArray(inputNode);
  const input = items ? carried.concat(readItems(items)) : inputNode?.type === 'string' ? [textMessage('user', inputNode)] : [];
  const messages = preamble.length > 0 ? preamble.concat(input) : input;
  const window: ContextWindow = {
    format: 'openai-responses',
    tools: (toolsNode?.items ?? []).map(readTool),
    messages,
    boundary: messages.length,
    live: false,
    serverState: serverStateOf(body),
    source: rangeOf(body),
    toolsSource: rangeOf(toolsNode),
    messagesSource: rangeOf(inputNode),
  };
  return { window, preamble: preamble.length };
}

/** The `output[]` items of a logged response, one message each. */
export function readResponsesOutput(body: JsonNode | undefined): Message[] {
  const output = asArray(prop(body, 'output'));
  return output ? readItems(output) : [];
}

function readTool(node: JsonNode): ToolSchema {
  const name = propString(node, 'name') ?? propString(node, 'server_label') ?? propString(node, 'type') ?? '';
  return { name, declaration: node, source: rangeOf(node) };
}

function serverStateOf(body: JsonObject): ServerState | undefined {
  const previous = prop(body, 'previous_response_id');
  if (previous?.type === 'string' && previous.value !== '') {
    return { kind: 'previous_response_id', id: previous.value, source: rangeOf(previous) };
  }
  const conversation = prop(body, 'conversation');
  const id = asString(conversation)?.value ?? propString(conversation, 'id');
  return id ? { kind: 'conversation', id, source: rangeOf(conversation) } : undefined;
}

/** The items of an `input` / `output` array, one message each; they share one range of the array. */
function readItems(array: JsonArray): Message[] {
  const range = rangeOf(array);
  return array.items.map((item) => readItem(item, array, range));
}

/** One `input` / `output` item as a message of its own; `containerRange`: the range of `container`. */
export function readItem(node: JsonNode, container: JsonArray | undefined, containerRange = rangeOf(container)): Message {
  const item = asObject(node);
  const type = propString(item, 'type');
  const role = propString(item, 'role');
  if (item && role !== undefined && (type === undefined || type === 'message')) {
    return itemMessage(node, containerRange, neutralRole(role, 'user'), contentBlocks(prop(item, 'content')));
  }
  const callId = propString(item, 'call_id');
  if (item && type?.endsWith('_call_output')) {
    return itemMessage(node, containerRange, 'tool', [callOutput(item, callId ?? propString(item, 'id') ?? '', containerRange)]);
  }
  if (item && type?.endsWith('_call') && callId !== undefined) {
    return itemMessage(node, containerRange, 'assistant', [call(item, type, callId, containerRange)]);
  }
  const value = opaqueValue(node, ['status']);
  const opaqueType = type ?? node.type;
  const blocks: Block[] = [{ kind: 'opaque', type: opaqueType, value, source: rangeOf(node) }];
  return { source: rangeOf(node), container: containerRange, role: itemRole(opaqueType), blocks, elision: opaqueType === 'compaction' || undefined };
}

/**
 * An item's message, made as one literal (as the opaque item's above): V8
 * gives each object that a spread of common fields makes a hidden class of
 * its own (~230 bytes a message carried to the end of a log).
 */
function itemMessage(node: JsonNode, container: SourceRange | undefined, role: Role, blocks: Block[]): Message {
  return { source: rangeOf(node), container, role, blocks };
}

/** Items the client writes (references, approvals) read as user turns; the rest is model output. */
function itemRole(type: string): Role {
  return type === 'item_reference' || type.endsWith('_response') ? 'user' : 'assistant';
}

function contentBlocks(content: JsonNode | undefined): Block[] {
  if (content?.type === 'string') return [{ kind: 'text', text: content.value, source: rangeOf(content) }];
  if (content?.type === 'array') return partsToBlocks(content, ['input_text', 'output_text', 'text']);
  return [];
}

function call(item: JsonObject, type: string, callId: string, container: SourceRange | undefined): Block {
  const id = prop(item, 'call_id');
  return {
    kind: 'tool_call',
    id: callId,
    name: propString(item, 'name') ?? type.slice(0, -'_call'.length),
    input: prop(item, 'arguments') ?? prop(item, 'input') ?? prop(item, 'action'),
    source: rangeOf(item),
    idSource: rangeOf(id),
    container,
  };
}

function callOutput(item: JsonObject, callId: string, container: SourceRange | undefined): Block {
  const id = prop(item, 'call_id') ?? prop(item, 'id');
  return {
    kind: 'tool_result',
    callId,
    content: prop(item, 'output'),
    source: rangeOf(item),
    idSource: rangeOf(id),
    container,
  };
}

/**
 * A request with `conversation` / `previous_response_id` is a delta. When the
 * previous exchange in the log is that state (same conversation, or the previous
 * response's id), the model reads: this request's instructions, the previous
 * context without its instructions, the previous output, then this input.
 */
function continueResponses(previous: LoggedExchange | undefined, current: ParsedRequest): Continuation {
  const state = current.window.serverState;
  if (!state) return { kind: 'self-contained' };
  // The first request of a log starts wherever the state is; its window carries `serverState`.
  if (!previous) return { kind: 'self-contained' };
  if (!continues(previous, state)) return { kind: 'unknown-state', reason: `${state.kind} ${state.id} is not the previous request's state` };
  const continued = (before: ContextWindow, window: ContextWindow): ContextWindow => {
    const history = before.messages.slice(previous.request.preamble);
    const own = window.messages;
    const messages = [...own.slice(0, current.preamble), ...history, ...own.slice(current.preamble)];
    return { ...window, messages, boundary: messages.length };
  };
  const before = consumedWindow(previous);
  const window = continued(before, current.window);
  if (!isShallow(before) && !isShallow(current.window)) return { kind: 'continued', window };
  return { kind: 'continued', window: withExact(window, () => continued(exactWindow(before), exactWindow(current.window))) };
}

function continues(previous: LoggedExchange, state: ServerState): boolean {
  if (state.kind === 'previous_response_id') return previous.responseId === state.id;
  return previous.request.window.serverState?.id === state.id || previous.responseConversation === state.id;
}
