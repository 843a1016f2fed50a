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
import { lineIndexOf, lineSlice, type SourceLine } from './text';
import { toValue } from './json/nodes';

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

/**
 * First occurrences of strings in a line's text, found from those in an
 * earlier line whose first `shared` characters it repeats (a request log's
 * carried history): only the part after them is searched.
 */
export class LineScan {
  private readonly found = new Map<string, number>();

  constructor(
    readonly line: SourceLine,
    private previous: LineScan | undefined = undefined,
    private readonly shared = 0,
  ) {}

  /** The index of the first occurrence of `needle`, -1 when none. */
  first(needle: string): number {
    let at = this.found.get(needle);
    if (at === undefined) {
      const before = this.previous?.found.get(needle);
      if (before !== undefined && before >= 0 && before + needle.length <= this.shared) at = before;
      else at = lineIndexOf(this.line, needle, before === undefined ? 0 : Math.max(0, this.shared - needle.length + 1));
      this.found.set(needle, at);
    }
    return at;
  }

  /** The first occurrence at or after `from`. */
  firstFrom(needle: string, from: number): number {
    const at = this.first(needle);
    return at < 0 || at >= from ? at : lineIndexOf(this.line, needle, from);
  }

  /** Forgets the earlier line (its occurrences are no longer looked at). */
  release(): void {
    this.previous = undefined;
  }
}

export function parsedRecord(node: JsonNode, line: SourceLine, scan: LineScan = new LineScan(line)): ParsedUsage | undefined {
  // `JSON.parse` of a line with a byte order mark fails: leave it to the parse. (Only a first line can be read with one, and it repeats no line.)
  if (!line.rest && line.text.charCodeAt(0) === 0xfeff) return undefined;
  const raw = (n: JsonNode) => lineSlice(line, n.start - line.offset, n.end - line.offset);
  if (node.type !== 'object') return { record: undefined, asks: () => false };
  const response = lastProp(node, 'response');
  const request = lastProp(node, 'request');
  const asks = (key: string) => request?.type === 'object' && textAsks(scan, request.start - line.offset, request.end - line.offset, key);
  if (response?.type !== 'object') return { record: {}, asks };
  const plainResponse = toValue(response) as Obj;
  // Without the words in the response's own text, the line is parsed only when something else holds them: leave that case to the parse.
  if (!USAGE_WORDS.test(raw(response)) && ('usage' in plainResponse || 'usageMetadata' in plainResponse)) return undefined;
  const record: Obj = { response: plainResponse };
  if (request?.type === 'object') record.request = requestFields(request);
  return { record, asks };
}

/** What `JSON.stringify` of the request (the text from `start` to `end`) says of `"key"`. */
function textAsks(scan: LineScan, start: number, end: number, key: string): boolean {
  const quoted = `"${key}"`;
  const at = scan.firstFrom(quoted, start);
  if (at >= 0 && at + quoted.length <= end) return true;
  const escape = scan.firstFrom('\\u00', start);
  if (escape < 0 || escape >= end) return false;
  const text = lineSlice(scan.line, start, end);
  return ASCII_ESCAPE.test(text) && JSON.stringify(JSON.parse(text)).includes(quoted);
}

/** The request's fields the usage reader reads (its model). */
function requestFields(request: JsonObject): Obj {
  const out: Obj = {};
  for (const key of ['model', 'modelId']) {
    const value = lastProp(request, key);
    if (value) out[key] = toValue(value);
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

