/**
 * Helpers shared by the provider request-body adapters (Anthropic Messages,
 * OpenAI Chat Completions, OpenAI Responses): dropping fields the model never
 * reads, reading text parts, unwrapping logged bodies. Node accessors live in
 * `json/nodes.ts`, helpers for every reader in `formats/common.ts`.
 */
import type { JsonArray, JsonNode } from '../json/parse';
import { prop, propString, rangeOf } from '../json/nodes';
import type { Block, Message, Role } from '../model';

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
    const type = propString(part, 'type');
    const text = propString(part, 'text');
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
