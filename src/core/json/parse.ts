/**
 * A JSON parser that keeps what `JSON.parse` throws away: every value's source
 * offsets, object key order and the raw text of numbers. Findings point at
 * exact ranges and rendering can tell `1.0` from `1`.
 *
 * Offsets are UTF-16 code-unit offsets into the parsed string plus `base`, so a
 * line of a JSONL file can be parsed with the offset of the line in the file.
 */

export type JsonNode = JsonObject | JsonArray | JsonString | JsonNumber | JsonBoolean | JsonNull;

interface NodeBase {
  /** Offset of the first character of the value. */
  readonly start: number;
  /** Offset just past the last character of the value. */
  readonly end: number;
}

export interface JsonProperty {
  readonly key: string;
  readonly keyStart: number;
  readonly keyEnd: number;
  readonly value: JsonNode;
}

export interface JsonObject extends NodeBase {
  readonly type: 'object';
  readonly properties: readonly JsonProperty[];
}
export interface JsonArray extends NodeBase {
  readonly type: 'array';
  readonly items: readonly JsonNode[];
}
export interface JsonString extends NodeBase {
  readonly type: 'string';
  readonly value: string;
}
export interface JsonNumber extends NodeBase {
  readonly type: 'number';
  /** The number exactly as written. */
  readonly raw: string;
}
export interface JsonBoolean extends NodeBase {
  readonly type: 'boolean';
  readonly value: boolean;
}
export interface JsonNull extends NodeBase {
  readonly type: 'null';
}

/** A parse failure with the offset where it was detected. */
export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
    this.name = 'JsonSyntaxError';
  }
}

export type ParseResult =
  | {
      ok: true;
      node: JsonNode;
      /** With `skip`: the array whose items were skipped (undefined when no item started at `skip.from`). */
      skippedIn?: JsonArray;
    }
  | { ok: false; error: JsonSyntaxError };

/**
 * A run of array items already known from an earlier parse of the same bytes
 * (a request log repeating its history): `from` is the offset in `text` where
 * the run's first item starts, `to` the offset just past its last item. The
 * parser jumps over them, so the array's `items` lack them.
 */
export interface SkippedItems {
  readonly from: number;
  readonly to: number;
  /**
   * The text does not hold the items: it goes on at `from` with what follows
   * them, and every offset after that is moved by `to - from`.
   */
  readonly absent?: true;
}

/** Parses `text` as one JSON value; never throws. */
export function parseJson(text: string, base = 0, skip?: SkippedItems): ParseResult {
  try {
    const parser = new Parser(text, base, skip);
    const node = parser.parseDocument();
    return parser.skippedIn ? { ok: true, node, skippedIn: parser.skippedIn } : { ok: true, node };
  } catch (error) {
    if (error instanceof JsonSyntaxError) return { ok: false, error };
    if (error instanceof RangeError) {
      return { ok: false, error: new JsonSyntaxError('JSON is nested too deeply', base) };
    }
    throw error;
  }
}

const MAX_DEPTH = 2000;

class Parser {
  private pos = 0;
  private depth = 0;
  /** The array whose items `skip` jumped over. */
  skippedIn: JsonArray | undefined;

  constructor(
    private readonly text: string,
    /** What an offset in `text` is in the file (moved past items `skip` says are absent). */
    private base: number,
    private readonly skip?: SkippedItems,
  ) {}

  parseDocument(): JsonNode {
    this.skipWhitespace();
    const node = this.parseValue();
    this.skipWhitespace();
    if (this.pos < this.text.length) this.fail('Unexpected text after the JSON value');
    return node;
  }

  private fail(message: string, at = this.pos): never {
    throw new JsonSyntaxError(message, this.base + at);
  }

  private skipWhitespace(): void {
    const text = this.text;
    let pos = this.pos;
    for (;;) {
      const c = text.charCodeAt(pos);
      if (c === 32 || c === 10 || c === 13 || c === 9) pos++;
      else break;
    }
    this.pos = pos;
  }

  private parseValue(): JsonNode {
    const c = this.text.charCodeAt(this.pos);
    switch (c) {
      case 123 /* { */:
        return this.parseObject();
      case 91 /* [ */:
        return this.parseArray();
      case 34 /* " */: {
        const start = this.pos;
        const value = this.parseString();
        return { type: 'string', start: this.base + start, end: this.base + this.pos, value };
      }
      case 116 /* t */:
        return { type: 'boolean', start: this.base + this.pos, end: this.base + this.literal('true'), value: true };
      case 102 /* f */:
        return { type: 'boolean', start: this.base + this.pos, end: this.base + this.literal('false'), value: false };
      case 110 /* n */:
        return { type: 'null', start: this.base + this.pos, end: this.base + this.literal('null') };
      default:
        if (c === 45 || (c >= 48 && c <= 57)) return this.parseNumber();
        if (Number.isNaN(c)) this.fail('Unexpected end of JSON');
        return this.fail(`Unexpected character ${JSON.stringify(this.text[this.pos])}`);
    }
  }

  private enter(): void {
    if (++this.depth > MAX_DEPTH) this.fail('JSON is nested too deeply');
  }

  private parseObject(): JsonObject {
    const start = this.base + this.pos++;
    this.enter();
    const properties: JsonProperty[] = [];
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) === 125) {
      this.pos++;
    } else {
      for (;;) {
        this.skipWhitespace();
        if (this.text.charCodeAt(this.pos) !== 34) this.fail('Expected a property name in double quotes');
        const keyStart = this.base + this.pos;
        const key = this.parseString();
        const keyEnd = this.base + this.pos;
        this.skipWhitespace();
        if (this.text.charCodeAt(this.pos) !== 58) this.fail("Expected ':' after a property name");
        this.pos++;
        this.skipWhitespace();
        const value = this.parseValue();
        properties.push({ key, keyStart, keyEnd, value });
        this.skipWhitespace();
        const c = this.text.charCodeAt(this.pos++);
        if (c === 125) break;
        if (c !== 44) this.fail("Expected ',' or '}' in an object", this.pos - 1);
      }
    }
    this.depth--;
    return { type: 'object', start, end: this.base + this.pos, properties: exact(properties) };
  }

  private parseArray(): JsonArray {
    const start = this.base + this.pos++;
    this.enter();
    const items: JsonNode[] = [];
    let skipped = false;
    this.skipWhitespace();
    // Absent items may be all there is: what follows them is the closing bracket.
    if (this.text.charCodeAt(this.pos) === 93 && !(this.skip?.absent && this.pos === this.skip.from)) {
      this.pos++;
    } else {
      for (;;) {
        this.skipWhitespace();
        if (this.pos === this.skip?.from && !skipped) {
          if (this.skip.absent) this.base += this.skip.to - this.skip.from;
          else this.pos = this.skip.to;
          skipped = true;
        } else {
          items.push(this.parseValue());
        }
        this.skipWhitespace();
        const c = this.text.charCodeAt(this.pos++);
        if (c === 93) break;
        if (c !== 44) this.fail("Expected ',' or ']' in an array", this.pos - 1);
      }
    }
    this.depth--;
    const array: JsonArray = { type: 'array', start, end: this.base + this.pos, items: exact(items) };
    if (skipped) this.skippedIn = array;
    return array;
  }

  /** Parses a string starting at the opening quote; leaves `pos` after the closing quote. */
  private parseString(): string {
    const text = this.text;
    const open = this.pos;
    let pos = open + 1;
    for (;;) {
      const c = text.charCodeAt(pos);
      if (c === 34) {
        this.pos = pos + 1;
        return pos - open > SLICED_MIN ? stringOfOwn(text, open, pos) : interned(text, open + 1, pos);
      }
      if (c === 92) break;
      if (c < 32 || Number.isNaN(c)) this.fail(Number.isNaN(c) ? 'Unterminated string' : 'Control character in string', pos);
      pos++;
    }
    return this.parseEscapedString(open, pos);
  }

  /** Checks the escapes of the string at `open` from its first one; its value is read at the closing quote (`stringOfOwn`). */
  private parseEscapedString(open: number, firstEscape: number): string {
    const text = this.text;
    let pos = firstEscape;
    for (;;) {
      const c = text.charCodeAt(pos);
      if (c === 34) {
        this.pos = pos + 1;
        return stringOfOwn(text, open, pos);
      }
      if (Number.isNaN(c)) this.fail('Unterminated string', pos);
      if (c < 32) this.fail('Control character in string', pos);
      if (c !== 92) {
        pos++;
        continue;
      }
      const e = text[pos + 1];
      if (e !== undefined && ESCAPES.has(e)) pos += 2;
      else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(pos + 2, pos + 6))) pos += 6;
      else this.fail(e === 'u' ? 'Invalid \\u escape' : 'Invalid escape in string', pos);
    }
  }

  /** `-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?`, the longest match at `pos` (as JSON.parse reads it). */
  private parseNumber(): JsonNumber {
    const text = this.text;
    const start = this.pos;
    let pos = start;
    if (text.charCodeAt(pos) === 45) pos++;
    const first = text.charCodeAt(pos);
    if (first === 48) pos++;
    else if (first >= 49 && first <= 57) pos = digitsEnd(text, pos);
    else this.fail('Invalid number');
    if (text.charCodeAt(pos) === 46 && isDigit(text.charCodeAt(pos + 1))) pos = digitsEnd(text, pos + 1);
    const e = text.charCodeAt(pos);
    if (e === 101 || e === 69) {
      const sign = text.charCodeAt(pos + 1);
      const digits = sign === 43 || sign === 45 ? pos + 2 : pos + 1;
      if (isDigit(text.charCodeAt(digits))) pos = digitsEnd(text, digits);
    }
    this.pos = pos;
    return { type: 'number', start: this.base + start, end: this.base + pos, raw: text.slice(start, pos) };
  }

  /** Checks a literal at `pos`, moves past it and returns the new position. */
  private literal(word: string): number {
    if (!this.text.startsWith(word, this.pos)) this.fail('Unexpected token');
    return (this.pos += word.length);
  }
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function digitsEnd(text: string, from: number): number {
  let pos = from;
  while (isDigit(text.charCodeAt(pos))) pos++;
  return pos;
}

/**
 * V8 returns a slice of 13 characters or more as a view that keeps the whole
 * source string alive. Strings that outlive their line (a request log carries
 * messages over to the next requests) would pin every line they came from, so
 * longer strings are copied out.
 */
const SLICED_MIN = 13;

export function unsliced(slice: string): string {
  return (' ' + slice).slice(1);
}

/**
 * The value of the string literal from the quote at `open` to the one at
 * `close` (checked: its escapes are JSON's), as a string of its own. `unsliced`
 * gives a slice of a copy (32 bytes more, for each of a request log's ids and
 * texts carried to its end); V8's JSON.parse copies what it reads.
 */
function stringOfOwn(text: string, open: number, close: number): string {
  return JSON.parse(text.slice(open, close + 1)) as string;
}

/** The items of every empty object and array read (`{}` inputs of a million calls hold one). */
const NONE: readonly never[] = Object.freeze([]);

/**
 * An array grown by `push` keeps room for 16 more elements; a node's
 * properties and items are kept as long as the node, so they get an array of
 * their own length (most have one to three), and an empty one is shared.
 */
export function exact<T>(array: T[]): T[] {
  if (array.length === 0) return NONE as unknown as T[];
  return array.length > 64 ? array : array.slice();
}

/**
 * Short strings (ids, names, roles, keys) repeat: a tool call id in its call
 * and its result, thousands of calls sharing one id. Each slice would be a
 * string of its own, so the last string seen per hash slot is handed out
 * again when the same characters come. A bounded cache of immutable strings:
 * what it holds never changes a result, only how many copies exist.
 */
const INTERNED = new Array<string | undefined>(4096);

function interned(text: string, from: number, to: number): string {
  let hash = to - from;
  for (let i = from; i < to; i++) hash = (Math.imul(hash, 31) + text.charCodeAt(i)) | 0;
  const slot = hash & 4095;
  const cached = INTERNED[slot];
  if (cached !== undefined && cached.length === to - from && text.startsWith(cached, from)) return cached;
  const fresh = text.slice(from, to);
  INTERNED[slot] = fresh;
  return fresh;
}

/** The characters that may follow a backslash, besides `u` and its four hex digits. */
const ESCAPES: ReadonlySet<string> = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
