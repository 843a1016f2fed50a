/**
 * Small helpers shared by the provider request-body adapters (Anthropic
 * Messages, OpenAI Chat Completions, OpenAI Responses): ranges of nodes,
 * dropping fields the model never reads, reading text parts.
 */
import type { JsonArray, JsonNode, JsonObject } from '../json/parse';
import { prop } from '../json/parse';
import type { Block, Message, Role } from '../model';
import type { SourceRange } from '../text';

/** The source range of a node, or undefined for nodes made in code (start = -1). */
export function rangeOf(node: { readonly start: number; readonly end: number } | undefined): SourceRange | undefined {
  if (!node || node.start < 0) return undefined;
  return { start: node.start, end: node.end };
}

export function asObject(node: JsonNode | undefined): JsonObject | undefined {
  return node?.type === 'object' ? node : undefined;
}

export function asArray(node: JsonNode | undefined): JsonArray | undefined {
  return node?.type === 'array' ? node : undefined;
}

export function asString(node: JsonNode | undefined): string | undefined {
  return node?.type === 'string' ? node.value : undefined;
}

/** True when a node carries something: not null, not `""`, `[]` or `{}`. */
export function hasContent(node: JsonNode | undefined): node is JsonNode {
  if (!node) return false;
  switch (node.type) {
    case 'null':
      return false;
    case 'string':
      return node.value !== '';
    case 'array':
      return node.items.length > 0;
    case 'object':
      return node.properties.length > 0;
    default:
      return true;
  }
}

/** The same object without the given keys (same node when none of them is present). */
export function withoutKeys(node: JsonNode, keys: readonly string[]): JsonNode {
  if (node.type !== 'object' || !node.properties.some((p) => keys.includes(p.key))) return node;
  return { ...node, properties: node.properties.filter((p) => !keys.includes(p.key)) };
}

/**
 * Drops `cache_control` (a caching hint the model never reads) from a block, and
 * from the blocks of an array one level down (tool_result content).
 */
export function stripCacheControl(node: JsonNode): JsonNode {
  if (node.type === 'array') {
    const items = node.items.map((item) => withoutKeys(item, CACHE_KEYS));
    return items.some((item, i) => item !== node.items[i]) ? { ...node, items } : node;
  }
  return withoutKeys(node, CACHE_KEYS);
}

const CACHE_KEYS = ['cache_control'];

/**
 * The value of an opaque block (thinking, reasoning, an image, a server-tool
 * item): without the fields the model never reads (`cache_control`, plus
 * `dropKeys`), and with its own keys in sorted order. The provider parses the
 * wrapper and never shows its key order to the model, and SDKs replay these
 * objects with their fields in another order than the response had; the values
 * inside (a signature, encrypted content, nested objects) stay exactly as written.
 */
export function opaqueValue(node: JsonNode, dropKeys: readonly string[] = []): JsonNode {
  const value = withoutKeys(stripCacheControl(node), dropKeys);
  if (value.type !== 'object') return value;
  const sorted = [...value.properties].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return sorted.every((p, i) => p === value.properties[i]) ? value : { ...value, properties: sorted };
}

/** Maps a provider role onto the neutral roles (`developer` is a system turn). */
export function neutralRole(role: string | undefined, fallback: Role): Role {
  switch (role) {
    case 'system':
    case 'developer':
      return 'system';
    case 'user':
      return 'user';
    case 'assistant':
    case 'model':
      return 'assistant';
    case 'tool':
    case 'function':
      return 'tool';
    default:
      return fallback;
  }
}

/** A message made of one text block, for `system` strings and `instructions`. */
export function textMessage(role: Role, node: JsonNode & { type: 'string' }): Message {
  const source = rangeOf(node);
  return { role, blocks: [{ kind: 'text', text: node.value, source }], source };
}

/**
 * The blocks of a content array of typed parts: the part types in `textTypes`
 * become text blocks, everything else is kept as an opaque block (see `opaqueValue`).
 */
export function partsToBlocks(parts: JsonArray, textTypes: readonly string[]): Block[] {
  return parts.items.map((part): Block => {
    const type = asString(prop(part, 'type'));
    const text = asString(prop(part, 'text'));
    if (type !== undefined && textTypes.includes(type) && text !== undefined) {
      return { kind: 'text', text, source: rangeOf(part) };
    }
    return { kind: 'opaque', type: type ?? part.type, value: opaqueValue(part), source: rangeOf(part) };
  });
}

/** A logged request or response, unwrapped from the `{ "body": … }` envelope some recorders add. */
export function bodyOf(node: JsonNode | undefined): JsonNode | undefined {
  const body = prop(node, 'body');
  return body?.type === 'object' && prop(node, 'messages') === undefined && prop(node, 'input') === undefined
    ? body
    : node;
}
