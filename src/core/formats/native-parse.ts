/**
 * Reads the native trace's Tool and Message shapes from positional JSON into
 * the neutral model, keeping every source range the fix planner edits by:
 * element ranges, id string ranges and the arrays they sit in.
 */
import { exact, type JsonNode } from '../json/parse';
import { callInput, prop, propString, rangeOf } from '../json/nodes';
import type { Block, Message, Role, ToolCall, ToolResult, ToolSchema } from '../model';
import type { SourceRange } from '../text';

/**
 * Something that does not fit the format, skipped or read with a fallback:
 * one occurrence of a cause, said once per cause per file by the reader
 * (`Unseen.note`: "<verb> <count> <noun>s <cause> (first at line L): <why>").
 */
export interface Skip {
  readonly noun: string;
  readonly cause: string;
  readonly why: string;
  /** Default "Skipped". */
  readonly verb?: string;
  readonly range: SourceRange;
}

/** Collects what did not fit the format. */
export type SkipSink = (skip: Skip) => void;

const ROLES: ReadonlySet<string> = new Set(['system', 'user', 'assistant', 'tool']);
const NOT_READ = 'not part of the context as read';
const NOT_PAIRED = 'not paired with anything';

function skip(sink: SkipSink, node: JsonNode, noun: string, cause: string, why: string, verb?: string): undefined {
  sink({ noun, cause, why, range: rangeOf(node) ?? { start: 0, end: 0 }, ...(verb !== undefined && { verb }) });
  return undefined;
}

/** A version label: a string, or a number by its raw text. */
function versionOf(node: JsonNode | undefined): string | undefined {
  if (node?.type === 'string') return node.value;
  if (node?.type === 'number') return node.raw;
  return undefined;
}

export function parseTools(array: JsonNode, sink: SkipSink): ToolSchema[] {
  if (array.type !== 'array') return skip(sink, array, '`tools` value', `of JSON type ${array.type}`, 'read as no tools') ?? [];
  const tools: ToolSchema[] = [];
  for (const node of array.items) {
    const tool = parseTool(node, sink);
    if (tool) tools.push(tool);
  }
  return tools;
}

/** One element of `tools`; undefined (and a skip) without a string `name`. */
export function parseTool(node: JsonNode, sink: SkipSink): ToolSchema | undefined {
  const name = propString(node, 'name');
  if (name === undefined) return skip(sink, node, 'tool', 'without a string `name`', 'not in the registry');
  const version = versionOf(prop(node, 'version'));
  const source = rangeOf(node);
  return { name, declaration: node, ...(version !== undefined && { version }), ...(source && { source }) };
}

export function parseMessages(array: JsonNode, sink: SkipSink): Message[] {
  if (array.type !== 'array') return skip(sink, array, '`messages` value', `of JSON type ${array.type}`, 'read as no messages') ?? [];
  const container = rangeOf(array);
  const messages: Message[] = [];
  for (const node of array.items) {
    const message = parseMessage(node, container, sink);
    if (message) messages.push(message);
  }
  return messages;
}

/** One element of `messages`; undefined (and a skip) when it is not a message. */
export function parseMessage(node: JsonNode, container: SourceRange | undefined, sink: SkipSink): Message | undefined {
  if (node.type !== 'object') return skip(sink, node, 'message', `of JSON type ${node.type}`, NOT_READ);
  const role = propString(node, 'role');
  if (role === undefined || !ROLES.has(role)) return skip(sink, node, 'message', `with role ${JSON.stringify(role ?? null)}`, 'the roles of the trace are system, user, assistant and tool');
  const source = rangeOf(node);
  const blocks = role === 'tool' ? toolMessageBlocks(node, source, container, sink) : contentBlocks(node, sink);
  const calls = prop(node, 'tool_calls');
  if (calls?.type === 'array') {
    const callContainer = rangeOf(calls);
    for (const item of calls.items) {
      const call = parseToolCall(item, callContainer, sink);
      if (call) blocks.push(call);
    }
  } else if (calls && calls.type !== 'null') {
    skip(sink, calls, '`tool_calls` value', `of JSON type ${calls.type}`, 'no calls are read from it');
  }
  const elision = prop(node, 'elision');
  if (source && container && !(elision?.type === 'boolean' && elision.value)) return { role: role as Role, blocks: exact(blocks), source, container };
  return {
    role: role as Role,
    blocks: exact(blocks),
    ...(source && { source }),
    ...(container && { container }),
    ...(elision?.type === 'boolean' && elision.value && { elision: true }),
  };
}

/** `content` as blocks: a string is one text block; null or absent is none; an array is read per part. */
function contentBlocks(message: JsonNode, sink: SkipSink): Block[] {
  const content = prop(message, 'content');
  if (!content || content.type === 'null') return [];
  if (content.type === 'string') return [textBlock(content.value, content)];
  if (content.type !== 'array') return skip(sink, content, '`content` value', `of JSON type ${content.type}`, 'read as no content (a string or an array of parts is)') ?? [];
  const blocks: Block[] = [];
  const container = rangeOf(content);
  for (const part of content.items) {
    const block = contentPart(part, container, sink);
    if (block) blocks.push(block);
  }
  return blocks;
}

function textBlock(text: string, node: JsonNode): Block {
  const source = rangeOf(node);
  return { kind: 'text', text, ...(source && { source }) };
}

function contentPart(part: JsonNode, container: SourceRange | undefined, sink: SkipSink): Block | undefined {
  if (part.type === 'string') return textBlock(part.value, part);
  const type = propString(part, 'type');
  if (part.type !== 'object' || type === undefined) return skip(sink, part, 'content part', 'without a `type`', NOT_READ);
  const text = propString(part, 'text');
  if (type === 'text' && text !== undefined) return textBlock(text, part);
  if (type === 'tool_use') return parseToolCall(part, container, sink);
  if (type === 'tool_result') return parseResultPart(part, container, sink);
  const source = rangeOf(part);
  return { kind: 'opaque', type, value: part, ...(source && { source }) };
}

export function parseToolCall(node: JsonNode, container: SourceRange | undefined, sink: SkipSink): ToolCall | undefined {
  const idNode = prop(node, 'id');
  const name = propString(node, 'name');
  if (idNode?.type !== 'string' || name === undefined) return skip(sink, node, 'tool call', 'without a string `id` and `name`', NOT_PAIRED);
  const schemaVersion = versionOf(prop(node, 'schema_version'));
  const source = rangeOf(node);
  const idSource = rangeOf(idNode);
  const input = callInput(prop(node, 'input') ?? prop(node, 'arguments'));
  // The common shape as one literal: its properties live in the object (spreads would add a second array per call).
  if (schemaVersion === undefined && source && idSource && container) return { kind: 'tool_call', id: idNode.value, name, input, source, idSource, container };
  return {
    kind: 'tool_call',
    id: idNode.value,
    name,
    input,
    ...(schemaVersion !== undefined && { schemaVersion }),
    ...(source && { source }),
    ...(idSource && { idSource }),
    ...(container && { container }),
  };
}

/** A `tool` message: one result for `tool_call_id`, its content as the result's content. */
function toolMessageBlocks(node: JsonNode, source: SourceRange | undefined, container: SourceRange | undefined, sink: SkipSink): Block[] {
  const idNode = prop(node, 'tool_call_id');
  if (idNode?.type !== 'string') return skip(sink, node, '`tool` message', 'without a string `tool_call_id` as text', NOT_PAIRED, 'Read') ?? contentBlocks(node, sink);
  return [resultBlock(node, idNode, 'content', source, container)];
}

function parseResultPart(node: JsonNode, container: SourceRange | undefined, sink: SkipSink): ToolResult | undefined {
  const idNode = prop(node, 'tool_use_id');
  if (idNode?.type !== 'string') return skip(sink, node, 'tool_result part', 'without a string `tool_use_id`', NOT_PAIRED);
  return resultBlock(node, idNode, 'content', rangeOf(node), container);
}

function resultBlock(
  node: JsonNode,
  idNode: JsonNode & { type: 'string' },
  contentKey: string,
  source: SourceRange | undefined,
  container: SourceRange | undefined,
): ToolResult {
  const content = prop(node, contentKey);
  const name = propString(node, 'name');
  const isError = prop(node, 'is_error');
  const idSource = rangeOf(idNode);
  const value = content?.type === 'null' ? undefined : content;
  if (name === undefined && !(isError?.type === 'boolean' && isError.value) && source && idSource && container) {
    return { kind: 'tool_result', callId: idNode.value, content: value, source, idSource, container };
  }
  return {
    kind: 'tool_result',
    callId: idNode.value,
    content: value,
    ...(name !== undefined && { name }),
    ...(isError?.type === 'boolean' && isError.value && { isError: true }),
    ...(source && { source }),
    ...(idSource && { idSource }),
    ...(container && { container }),
  };
}
