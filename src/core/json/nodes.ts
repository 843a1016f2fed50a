/**
 * Reading positional JSON nodes (see `parse.ts`): narrowing a node to one
 * type, its source range, whether it carries anything, a property by key, and
 * converting between nodes and plain JS values. Every reader uses these and
 * no other copies.
 */
import type { SourceRange } from '../text';
import type { JsonArray, JsonNode, JsonObject, JsonProperty, JsonString } from './parse';

/** The source range of a node, or undefined for nodes made in code (start = -1). */
export function rangeOf(node: { readonly start: number; readonly end: number } | undefined): SourceRange | undefined {
  if (!node || node.start < 0) return undefined;
  return { start: node.start, end: node.end };
}

/** The input of every call written `{}`: see `callInput`. */
const EMPTY_INPUT: JsonObject = Object.freeze({ type: 'object', start: -1, end: -1, properties: Object.freeze([]) as readonly never[] });

/**
 * A call's input as kept in the model. An empty object has nothing inside to
 * point at and renders as `{}` wherever it was, so every empty input is one
 * shared node without a source (as inputs made in code are): a million calls
 * written `"input":{}` hold one node, not a million.
 */
export function callInput(node: JsonNode | undefined): JsonNode | undefined {
  return node?.type === 'object' && node.properties.length === 0 ? EMPTY_INPUT : node;
}

export function asObject(node: JsonNode | undefined): JsonObject | undefined {
  return node?.type === 'object' ? node : undefined;
}

export function asArray(node: JsonNode | undefined): JsonArray | undefined {
  return node?.type === 'array' ? node : undefined;
}

/** The node when it is a string (its `value` is the text, `rangeOf` its place); `propString` reads a property's text. */
export function asString(node: JsonNode | undefined): JsonString | undefined {
  return node?.type === 'string' ? node : undefined;
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

/** The node as a count (a token count in a usage field): a finite number ≥ 0; a string holding one is read too (OTel attributes are strings). */
export function asCount(node: JsonNode | undefined): number | undefined {
  const text = node?.type === 'number' ? node.raw : node?.type === 'string' && /^\d{1,15}$/.test(node.value) ? node.value : undefined;
  const value = text === undefined ? NaN : Number(text);
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** Looks up a property of an object node. */
export function prop(node: JsonNode | undefined, key: string): JsonNode | undefined {
  if (node?.type !== 'object') return undefined;
  for (const p of node.properties) if (p.key === key) return p.value;
  return undefined;
}

/** The string value of a property, if it is a string. */
export function propString(node: JsonNode | undefined, key: string): string | undefined {
  const value = prop(node, key);
  return value?.type === 'string' ? value.value : undefined;
}

/**
 * Converts a node to the value `JSON.parse` gives for it (numbers via
 * `Number`): own data properties, `__proto__` included, the last of duplicate keys.
 */
export function toValue(node: JsonNode): unknown {
  switch (node.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const p of node.properties) {
        const value = toValue(p.value);
        if (p.key === '__proto__') Object.defineProperty(out, p.key, { value, enumerable: true, writable: true, configurable: true });
        else out[p.key] = value;
      }
      return out;
    }
    case 'array':
      return node.items.map(toValue);
    case 'string':
    case 'boolean':
      return node.value;
    case 'number':
      return Number(node.raw);
    case 'null':
      return null;
  }
}

/**
 * Builds a node from a plain JS value, for windows made in code (library
 * callers, the fix planner). Such nodes have no source: start = end = -1.
 */
export function fromValue(value: unknown): JsonNode {
  if (value === null || value === undefined) return { type: 'null', start: -1, end: -1 };
  switch (typeof value) {
    case 'string':
      return { type: 'string', value, start: -1, end: -1 };
    case 'number':
      return { type: 'number', raw: Number.isFinite(value) ? String(value) : 'null', start: -1, end: -1 };
    case 'boolean':
      return { type: 'boolean', value, start: -1, end: -1 };
    case 'object':
      return Array.isArray(value) ? { type: 'array', items: value.map(fromValue), start: -1, end: -1 } : fromRecord(value as Record<string, unknown>);
    default:
      return { type: 'null', start: -1, end: -1 };
  }
}

/** Own enumerable properties in `Object.keys` order, `undefined` ones left out (as JSON.stringify does). */
function fromRecord(record: Record<string, unknown>): JsonNode {
  const properties: JsonProperty[] = [];
  for (const key of Object.keys(record)) {
    const v = record[key];
    if (v !== undefined) properties.push({ key, keyStart: -1, keyEnd: -1, value: fromValue(v) });
  }
  return { type: 'object', properties, start: -1, end: -1 };
}
