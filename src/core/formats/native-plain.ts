/**
 * Reads a native message straight from a plain JS value (a library caller's
 * object), without building the JSON nodes of its envelope: the same message
 * as `parseMessage(fromValue(value), undefined, sink)` (property-tested), only
 * the values a block keeps as JSON (a call's input, a result's content, an
 * opaque block) are converted. Plain values have no source ranges.
 */
import { fromValue } from '../json/nodes';
import type { Block, Message, Role, ToolCall, ToolResult } from '../model';

type Record = { readonly [key: string]: unknown };

function isRecord(value: unknown): value is Record {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isEnumerable = Object.prototype.propertyIsEnumerable;

/** An own enumerable property, as `fromValue` sees it (`undefined` when it would leave it out). */
function own(value: Record, key: string): unknown {
  const v = value[key];
  return v !== undefined && isEnumerable.call(value, key) ? v : undefined;
}

function ownString(value: Record, key: string): string | undefined {
  const v = own(value, key);
  return typeof v === 'string' ? v : undefined;
}

/** A version label: a string, or a number by the text `fromValue` gives it. */
function versionOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  return undefined;
}

/** The role of a value the reader reads as a message, or undefined when it is not one (skipped). */
export function plainRole(value: unknown): Role | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  // `isRecord` and `ownString(value, 'role')`, the cheap tests first (the stateless guard asks for every message).
  const role = (value as Record).role;
  if ((role !== 'user' && role !== 'assistant' && role !== 'system' && role !== 'tool') || Array.isArray(value) || !ownEnumerableRole(value)) return undefined;
  return role as Role;
}

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * `isEnumerable.call(value, 'role')`, about four times cheaper: a key `for…in`
 * lists (enumerable, own or inherited: it skips non-enumerable properties and
 * those they shadow) that is an own property. Asked of the `for…in` key, V8
 * answers `hasOwnProperty` from the object's enumeration cache, without a lookup.
 */
function ownEnumerableRole(value: object): boolean {
  for (const key in value) if (key === 'role') return hasOwn.call(value, key);
  return false;
}

export function readPlainMessage(value: unknown): Message | undefined {
  const role = plainRole(value);
  return role === undefined ? undefined : readPlainMessageAs(value, role);
}

/**
 * `readPlainMessage` of a value whose role was read already (`plainRole`): the
 * role is not read again (a getter may not give it twice).
 */
export function readPlainMessageAs(value: unknown, role: Role): Message {
  const record = value as Record;
  const blocks = role === 'tool' ? toolMessageBlocks(record) : contentBlocks(record);
  const calls = own(record, 'tool_calls');
  if (Array.isArray(calls)) {
    for (const item of calls) {
      const call = toolCall(item);
      if (call) blocks.push(call);
    }
  }
  return own(record, 'elision') === true ? { role, blocks, elision: true } : { role, blocks };
}

/**
 * The text of the first block `readPlainMessage` reads from `value` (a value
 * it reads as a message, whose `role` was read already) when that block is
 * text, else undefined: found without reading the message.
 */
export function plainFirstText(value: unknown, role: Role): string | undefined {
  const record = value as Record;
  if (role === 'tool' && ownString(record, 'tool_call_id') !== undefined) return undefined;
  const content = own(record, 'content');
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  for (const part of content) {
    const block = contentPart(part);
    if (block) return block.kind === 'text' ? block.text : undefined;
  }
  // Its first block, if any, is one of its `tool_calls`.
  return undefined;
}

function contentBlocks(message: Record): Block[] {
  const content = own(message, 'content');
  if (typeof content === 'string') return [{ kind: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  const blocks: Block[] = [];
  for (const part of content) {
    const block = contentPart(part);
    if (block) blocks.push(block);
  }
  return blocks;
}

function contentPart(part: unknown): Block | undefined {
  if (typeof part === 'string') return { kind: 'text', text: part };
  if (!isRecord(part)) return undefined;
  const type = ownString(part, 'type');
  if (type === undefined) return undefined;
  const text = ownString(part, 'text');
  if (type === 'text' && text !== undefined) return { kind: 'text', text };
  if (type === 'tool_use') return toolCall(part);
  if (type === 'tool_result') {
    const id = ownString(part, 'tool_use_id');
    return id === undefined ? undefined : result(part, id);
  }
  return { kind: 'opaque', type, value: fromValue(part) };
}

function toolCall(node: unknown): ToolCall | undefined {
  if (!isRecord(node)) return undefined;
  const id = ownString(node, 'id');
  const name = ownString(node, 'name');
  if (id === undefined || name === undefined) return undefined;
  const schemaVersion = versionOf(own(node, 'schema_version'));
  const input = own(node, 'input');
  const args = own(node, 'arguments');
  const call: { -readonly [K in keyof ToolCall]: ToolCall[K] } = { kind: 'tool_call', id, name, input: input !== undefined ? fromValue(input) : args !== undefined ? fromValue(args) : undefined };
  if (schemaVersion !== undefined) call.schemaVersion = schemaVersion;
  return call;
}

function toolMessageBlocks(message: Record): Block[] {
  const id = ownString(message, 'tool_call_id');
  return id === undefined ? contentBlocks(message) : [result(message, id)];
}

function result(node: Record, callId: string): ToolResult {
  const value = own(node, 'content');
  const content = value === undefined ? undefined : fromValue(value);
  const name = ownString(node, 'name');
  const read: { -readonly [K in keyof ToolResult]: ToolResult[K] } = { kind: 'tool_result', callId, content: content?.type === 'null' ? undefined : content };
  if (name !== undefined) read.name = name;
  if (own(node, 'is_error') === true) read.isError = true;
  return read;
}
