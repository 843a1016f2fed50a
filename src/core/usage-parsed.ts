/**
 * A request log's usage read from the JSON nodes its reader parsed, instead of
 * `JSON.parse` of the whole line again (usage.ts `UsageScanner.parsed`). It
 * gives what `JSON.parse` of the line gives the scanner: the record's
 * `response` (its last occurrence, as `JSON.parse` keeps) as plain values,
 * the request's `model` / `modelId`, and whether the request names a key
 * (`cache_control`, `cachePoint`), read from its text. Undefined when the
 * nodes cannot tell exactly (a usage key written with escapes): the line is
 * then parsed as before.
 *
 * One difference: a request that writes a key twice (`JSON.parse` keeps the
 * last) and names `cache_control` only in the copy that is dropped is said to
 * ask for caching.
 */
import type { JsonNode, JsonObject } from './json/parse';
import type { SourceLine } from './text';

type Obj = Record<string, unknown>;

export interface ParsedUsage {
  /** What `JSON.parse` of the line gives the usage reader (undefined: the line is not an object). */
  readonly record: Obj | undefined;
  /** The request has a key `key` somewhere (what `JSON.stringify(request).includes('"key"')` says). */
  readonly asks: (key: string) => boolean;
}

/** The words a line must hold for the usage reader to parse it at all. */
const USAGE_WORDS = /usage|turn_context|token_count/;

/** A `\u` escape of a character of `"cache_control"` / `"cachePoint"` (a quote or an ASCII letter): the text alone cannot tell. */
const ASCII_ESCAPE = /\\u00(?:22|[4-7][0-9a-fA-F])/;

export function parsedRecord(node: JsonNode, line: SourceLine): ParsedUsage | undefined {
  // `JSON.parse` of a line with a byte order mark fails: leave it to the parse.
  if (line.text.charCodeAt(0) === 0xfeff) return undefined;
  const raw = (n: JsonNode) => line.text.slice(n.start - line.offset, n.end - line.offset);
  if (node.type !== 'object') return { record: undefined, asks: () => false };
  const response = lastProp(node, 'response');
  const request = lastProp(node, 'request');
  const requestText = request?.type === 'object' ? raw(request) : undefined;
  const asks = (key: string) => requestText !== undefined && textAsks(requestText, key);
  if (response?.type !== 'object') return { record: {}, asks };
  const plainResponse = plain(response) as Obj;
  // Without the words in the response's own text, the line is parsed only when something else holds them: leave that case to the parse.
  if (!USAGE_WORDS.test(raw(response)) && ('usage' in plainResponse || 'usageMetadata' in plainResponse)) return undefined;
  const record: Obj = { response: plainResponse };
  if (request?.type === 'object') record.request = requestFields(request);
  return { record, asks };
}

function textAsks(text: string, key: string): boolean {
  if (text.includes(`"${key}"`)) return true;
  if (text.indexOf('\\u00') < 0 || !ASCII_ESCAPE.test(text)) return false;
  return JSON.stringify(JSON.parse(text)).includes(`"${key}"`);
}

/** The request's fields the usage reader reads (its model). */
function requestFields(request: JsonObject): Obj {
  const out: Obj = {};
  for (const key of ['model', 'modelId']) {
    const value = lastProp(request, key);
    if (value) out[key] = plain(value);
  }
  return out;
}

/** The value of a key's last occurrence (the one `JSON.parse` keeps). */
function lastProp(node: JsonObject, key: string): JsonNode | undefined {
  for (let i = node.properties.length - 1; i >= 0; i--) {
    const p = node.properties[i];
    if (p?.key === key) return p.value;
  }
  return undefined;
}

/** The value `JSON.parse` gives for a node: own data properties (`__proto__` included), the last of duplicate keys. */
function plain(node: JsonNode): unknown {
  switch (node.type) {
    case 'object': {
      const out: Obj = {};
      for (const p of node.properties) Object.defineProperty(out, p.key, { value: plain(p.value), enumerable: true, writable: true, configurable: true });
      return out;
    }
    case 'array':
      return node.items.map(plain);
    case 'string':
    case 'boolean':
      return node.value;
    case 'number':
      return Number(node.raw);
    case 'null':
      return null;
  }
}
