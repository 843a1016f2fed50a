/**
 * The message shapes found in OpenTelemetry GenAI / Langfuse exports, read
 * into neutral messages:
 *
 * - OTel GenAI semconv (`gen_ai.input.messages`, Langfuse `input`/`output`):
 *   `{role, parts:[{type:"text",content} | {type:"tool_call",id,name,arguments}
 *   | {type:"tool_call_response",id,response|result}]}`. A tool-call `id` may be
 *   an array `[run_id, call_id]` (Microsoft Agent Framework on the Assistants
 *   API): the last string, the call id, is the pairing key.
 * - OpenAI Responses input items and Chat Completions messages, as frameworks
 *   log their raw requests (read by those formats' own readers).
 * - LangChain message dicts (Langfuse's LangChain integration): Chat-like,
 *   with the calls in `tool_calls` (LangChain's `{name, args, id}`, or
 *   OpenAI's shape) and/or `additional_kwargs.tool_calls` (OpenAI's shape, the
 *   only place older integrations keep them); the role may be a LangChain
 *   `type` (`ai`, `human`, `tool`).
 * - OpenInference flattened attributes (`llm.input_messages.<i>.message.*`),
 *   used when the observation has no message list of its own; contents after
 *   the first and a legacy `function_call_name` are kept as opaque blocks, so
 *   `unread-parts.ts` names or counts what is not read.
 */
import type { JsonArray, JsonNode } from '../../json/parse';
import type { Block, Message, ToolCall, ToolSchema } from '../../model';
import { readChatMessage } from '../openai-chat';
import { readItem } from '../openai-responses';
import { asArray, asString, prop, rangeOf } from '../../json/nodes';
import { neutralRole } from '../common';

/** Reads a list of messages in whichever of the known shapes each element has. */
export function readMessageList(list: JsonArray): Message[] {
  return list.items.map((node) => readAnyMessage(node, list));
}

function readAnyMessage(node: JsonNode, container: JsonArray): Message {
  if (asArray(prop(node, 'parts'))) return readSemconvMessage(node, container);
  if (isLangChainMessage(node)) return readLangChainMessage(node, container);
  if (prop(node, 'tool_calls') !== undefined || prop(node, 'tool_call_id') !== undefined) return readChatMessage(node, container);
  return readItem(node, container);
}

/** A LangChain message dict: `additional_kwargs`, or calls in LangChain's own `{name, args}` shape. */
export function isLangChainMessage(node: JsonNode | undefined): boolean {
  if (node?.type !== 'object') return false;
  if (prop(node, 'additional_kwargs') !== undefined) return true;
  return (asArray(prop(node, 'tool_calls'))?.items ?? []).some((call) => prop(call, 'args') !== undefined);
}

/** Read as a Chat message (content, tool result, other keys opaque), with the calls from wherever LangChain put them. */
function readLangChainMessage(node: JsonNode, container: JsonArray): Message {
  const role = asString(prop(node, 'role'))?.value ?? LANGCHAIN_TYPES[asString(prop(node, 'type'))?.value ?? ''];
  const chat = readChatMessage(node, container);
  const base = { ...chat, role: neutralRole(role, 'user') };
  if (role === 'tool' && chat.role !== 'tool') {
    const id = asString(prop(node, 'tool_call_id'));
    return { ...base, blocks: [{ kind: 'tool_result', callId: id?.value ?? '', content: prop(node, 'content'), source: rangeOf(node), idSource: rangeOf(id) }] };
  }
  const calls = langChainCalls(node);
  if (calls.length === 0) return base;
  return { ...base, blocks: [...chat.blocks.filter((b) => b.kind !== 'tool_call'), ...calls] };
}

const LANGCHAIN_TYPES: Record<string, string> = { ai: 'assistant', human: 'user', system: 'system', tool: 'tool', function: 'tool' };

/** `tool_calls` when it holds any, else `additional_kwargs.tool_calls`: two copies of the same calls, read once. */
function langChainCalls(node: JsonNode): ToolCall[] {
  const top = asArray(prop(node, 'tool_calls'));
  const list = top && top.items.length > 0 ? top : asArray(prop(prop(node, 'additional_kwargs'), 'tool_calls'));
  return (list?.items ?? []).map((call): ToolCall => {
    const id = asString(prop(call, 'id'));
    const fn = prop(call, 'function');
    const name = asString(prop(fn ?? call, 'name'));
    return { kind: 'tool_call', id: id?.value ?? '', name: name?.value ?? '', input: prop(fn, 'arguments') ?? prop(call, 'args'), source: rangeOf(call), idSource: rangeOf(id), container: rangeOf(list) };
  });
}

/** True when a node looks like a list of messages of any known shape. */
export function isMessageList(node: JsonNode | undefined): node is JsonArray {
  const list = asArray(node);
  return !!list && list.items.length > 0 && list.items.every((item) => item.type === 'object' && (prop(item, 'role') !== undefined || prop(item, 'type') !== undefined));
}

function readSemconvMessage(node: JsonNode, container: JsonArray): Message {
  const role = neutralRole(asString(prop(node, 'role'))?.value, 'user');
  const parts = asArray(prop(node, 'parts'));
  const blocks = (parts?.items ?? []).map((part) => semconvPart(part, parts));
  return { role, blocks, source: rangeOf(node), container: rangeOf(container) };
}

function semconvPart(part: JsonNode, parts: JsonArray | undefined): Block {
  const type = asString(prop(part, 'type'))?.value ?? '';
  const source = rangeOf(part);
  const id = callIdOf(prop(part, 'id'));
  if (type === 'text') {
    const content = asString(prop(part, 'content'));
    if (content) return { kind: 'text', text: content.value, source };
  }
  if (type === 'tool_call') {
    return {
      kind: 'tool_call',
      id: id?.value ?? '',
      name: asString(prop(part, 'name'))?.value ?? '',
      input: prop(part, 'arguments'),
      source,
      idSource: rangeOf(id),
      container: rangeOf(parts),
    };
  }
  if (type === 'tool_call_response') {
    return {
      kind: 'tool_result',
      callId: id?.value ?? '',
      name: asString(prop(part, 'name'))?.value,
      content: prop(part, 'response') ?? prop(part, 'result'),
      source,
      idSource: rangeOf(id),
      container: rangeOf(parts),
    };
  }
  return { kind: 'opaque', type: type || part.type, value: part, source };
}

/** A call id: a string, or the last string of an array such as `[run_id, call_id]`. */
function callIdOf(node: JsonNode | undefined) {
  const direct = asString(node);
  if (direct) return direct;
  const items = asArray(node)?.items ?? [];
  for (let i = items.length - 1; i >= 0; i--) {
    const item = asString(items[i]);
    if (item) return item;
  }
  return undefined;
}

/** Tool declarations from whichever attribute carries them. */
export function readTools(attributes: JsonNode | undefined, output: JsonNode | undefined): ToolSchema[] {
  const definitions = asArray(prop(attributes, 'gen_ai.tool.definitions'));
  if (definitions) return definitions.items.map(toolSchema);
  const parameters = prop(attributes, 'model_request_parameters');
  const pydantic = [...(asArray(prop(parameters, 'function_tools'))?.items ?? []), ...(asArray(prop(parameters, 'output_tools'))?.items ?? [])];
  if (pydantic.length > 0) return pydantic.map(toolSchema);
  const flattened = flattenedIndexed(attributes, 'llm.tools.').map((entry) => entry.fields.get('tool.json_schema')).filter((n): n is JsonNode => !!n);
  if (flattened.length > 0) return flattened.map(toolSchema);
  return (asArray(prop(output, 'tools'))?.items ?? []).map(toolSchema);
}

function toolSchema(node: JsonNode): ToolSchema {
  const name = asString(prop(node, 'name')) ?? asString(prop(prop(node, 'function'), 'name'));
  return { name: name?.value ?? '', declaration: node, source: rangeOf(node) };
}

/** Attributes `<prefix><i>.<rest>`, grouped by index in numeric order. */
function flattenedIndexed(attributes: JsonNode | undefined, prefix: string): { index: number; fields: Map<string, JsonNode> }[] {
  const byIndex = new Map<number, Map<string, JsonNode>>();
  if (attributes?.type !== 'object') return [];
  for (const p of attributes.properties) {
    if (!p.key.startsWith(prefix)) continue;
    const match = /^(\d+)\.(.+)$/.exec(p.key.slice(prefix.length));
    if (!match) continue;
    const index = Number(match[1]);
    let fields = byIndex.get(index);
    if (!fields) byIndex.set(index, (fields = new Map()));
    fields.set(match[2] ?? '', p.value);
  }
  return [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([index, fields]) => ({ index, fields }));
}

/** OpenInference `llm.input_messages.*` / `llm.output_messages.*` as messages. */
export function readOpenInference(attributes: JsonNode | undefined, which: 'input' | 'output'): Message[] {
  return flattenedIndexed(attributes, `llm.${which}_messages.`).map(({ fields }) => openInferenceMessage(fields));
}

function openInferenceMessage(fields: Map<string, JsonNode>): Message {
  const roleNode = fields.get('message.role');
  const role = neutralRole(asString(roleNode)?.value, 'user');
  const content = fields.get('message.content') ?? fields.get('message.contents.0.message_content.text');
  const blocks: Block[] = [];
  const toolCallId = asString(fields.get('message.tool_call_id'));
  if (role === 'tool' && toolCallId) {
    blocks.push({ kind: 'tool_result', callId: toolCallId.value, content, source: rangeOf(content ?? toolCallId), idSource: rangeOf(toolCallId) });
  } else {
    const text = asString(content);
    if (text) blocks.push({ kind: 'text', text: text.value, source: rangeOf(text) });
  }
  blocks.push(...laterContents(fields), ...legacyFunctionCall(fields));
  for (let j = 0; fields.has(`message.tool_calls.${j}.tool_call.id`) || fields.has(`message.tool_calls.${j}.tool_call.function.name`); j++) {
    const id = asString(fields.get(`message.tool_calls.${j}.tool_call.id`));
    const name = asString(fields.get(`message.tool_calls.${j}.tool_call.function.name`));
    const args = fields.get(`message.tool_calls.${j}.tool_call.function.arguments`);
    blocks.push({ kind: 'tool_call', id: id?.value ?? '', name: name?.value ?? '', input: args, source: rangeOf(id ?? name), idSource: rangeOf(id) });
  }
  const first = blocks.find((b) => b.source)?.source ?? rangeOf(roleNode);
  return { role, blocks, source: first };
}

/** A value standing for flattened attributes: one property per attribute (no key positions), so unread-parts can name or count it. */
function attributeObject(entries: readonly [string, JsonNode][]): JsonNode {
  const values = entries.map(([, value]) => value);
  const start = Math.min(...values.map((v) => v.start));
  const end = Math.max(...values.map((v) => v.end));
  return { type: 'object', start, end, properties: entries.map(([key, value]) => ({ key, keyStart: -1, keyEnd: -1, value })) };
}

/** `message.contents.<k>` after the first: more text, or parts of another type kept as bytes (their type named). */
function laterContents(fields: Map<string, JsonNode>): Block[] {
  const blocks: Block[] = [];
  for (let k = 1; fields.has(`message.contents.${k}.message_content.type`) || fields.has(`message.contents.${k}.message_content.text`); k++) {
    const type = asString(fields.get(`message.contents.${k}.message_content.type`));
    const text = asString(fields.get(`message.contents.${k}.message_content.text`));
    if (text && (!type || type.value === 'text')) blocks.push({ kind: 'text', text: text.value, source: rangeOf(text) });
    else if (type) blocks.push({ kind: 'opaque', type: type.value, value: attributeObject([['type', type]]), source: rangeOf(type) });
  }
  return blocks;
}

/** A legacy `message.function_call_name` / `_arguments_json`: a call without an id, in a shape this reader does not pair (counted as unread). */
function legacyFunctionCall(fields: Map<string, JsonNode>): Block[] {
  const name = fields.get('message.function_call_name');
  if (!name) return [];
  const args = fields.get('message.function_call_arguments_json');
  const value = attributeObject([['function_call', name], ...(args ? [['arguments', args] as [string, JsonNode]] : [])]);
  return [{ kind: 'opaque', type: 'function_call', value, source: rangeOf(name) }];
}
