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

export type ParseResult = { ok: true; node: JsonNode } | { ok: false; error: JsonSyntaxError };

/** Parses `text` as one JSON value; never throws. */
export function parseJson(text: string, base = 0): ParseResult {
  try {
    return { ok: true, node: new Parser(text, base).parseDocument() };
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

  constructor(
    private readonly text: string,
    private readonly base: number,
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
        return this.parseLiteral('true', { type: 'boolean', value: true });
      case 102 /* f */:
        return this.parseLiteral('false', { type: 'boolean', value: false });
      case 110 /* n */:
        return this.parseLiteral('null', { type: 'null' });
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
    const start = this.pos++;
    this.enter();
    const properties: JsonProperty[] = [];
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) === 125) {
      this.pos++;
    } else {
      for (;;) {
        this.skipWhitespace();
        if (this.text.charCodeAt(this.pos) !== 34) this.fail('Expected a property name in double quotes');
        const keyStart = this.pos;
        const key = this.parseString();
        const keyEnd = this.pos;
        this.skipWhitespace();
        if (this.text.charCodeAt(this.pos) !== 58) this.fail("Expected ':' after a property name");
        this.pos++;
        this.skipWhitespace();
        const value = this.parseValue();
        properties.push({ key, keyStart: this.base + keyStart, keyEnd: this.base + keyEnd, value });
        this.skipWhitespace();
        const c = this.text.charCodeAt(this.pos++);
        if (c === 125) break;
        if (c !== 44) this.fail("Expected ',' or '}' in an object", this.pos - 1);
      }
    }
    this.depth--;
    return { type: 'object', start: this.base + start, end: this.base + this.pos, properties };
  }

  private parseArray(): JsonArray {
    const start = this.pos++;
    this.enter();
    const items: JsonNode[] = [];
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) === 93) {
      this.pos++;
    } else {
      for (;;) {
        this.skipWhitespace();
        items.push(this.parseValue());
        this.skipWhitespace();
        const c = this.text.charCodeAt(this.pos++);
        if (c === 93) break;
        if (c !== 44) this.fail("Expected ',' or ']' in an array", this.pos - 1);
      }
    }
    this.depth--;
    return { type: 'array', start: this.base + start, end: this.base + this.pos, items };
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
        return text.slice(open + 1, pos);
      }
      if (c === 92) break;
      if (c < 32 || Number.isNaN(c)) this.fail(Number.isNaN(c) ? 'Unterminated string' : 'Control character in string', pos);
      pos++;
    }
    return this.parseEscapedString(open, pos);
  }

  private parseEscapedString(open: number, firstEscape: number): string {
    const text = this.text;
    let out = text.slice(open + 1, firstEscape);
    let pos = firstEscape;
    for (;;) {
      const c = text.charCodeAt(pos);
      if (c === 34) {
        this.pos = pos + 1;
        return out;
      }
      if (Number.isNaN(c)) this.fail('Unterminated string', pos);
      if (c < 32) this.fail('Control character in string', pos);
      if (c !== 92) {
        out += text[pos];
        pos++;
        continue;
      }
      const e = text[pos + 1];
      const simple = ESCAPES[e ?? ''];
      if (simple !== undefined) {
        out += simple;
        pos += 2;
      } else if (e === 'u') {
        const hex = text.slice(pos + 2, pos + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('Invalid \\u escape', pos);
        out += String.fromCharCode(parseInt(hex, 16));
        pos += 6;
      } else {
        this.fail('Invalid escape in string', pos);
      }
    }
  }

  private parseNumber(): JsonNumber {
    const start = this.pos;
    NUMBER.lastIndex = start;
    const match = NUMBER.exec(this.text);
    if (!match || match[0].length === 0) this.fail('Invalid number');
    this.pos = start + match[0].length;
    return { type: 'number', start: this.base + start, end: this.base + this.pos, raw: match[0] };
  }

  private parseLiteral<T extends object>(word: string, node: T): T & NodeBase {
    if (!this.text.startsWith(word, this.pos)) this.fail('Unexpected token');
    const start = this.pos;
    this.pos += word.length;
    return { ...node, start: this.base + start, end: this.base + this.pos };
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

const ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

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

/** Converts a node to a plain JS value (numbers via `Number`). */
export function toValue(node: JsonNode): unknown {
  switch (node.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const p of node.properties) out[p.key] = toValue(p.value);
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
  const at = { start: -1, end: -1 };
  if (value === null || value === undefined) return { type: 'null', ...at };
  switch (typeof value) {
    case 'string':
      return { type: 'string', value, ...at };
    case 'number':
      return { type: 'number', raw: Number.isFinite(value) ? String(value) : 'null', ...at };
    case 'boolean':
      return { type: 'boolean', value, ...at };
    case 'object':
      if (Array.isArray(value)) return { type: 'array', items: value.map(fromValue), ...at };
      return {
        type: 'object',
        properties: Object.entries(value as Record<string, unknown>)
          .filter(([, v]) => v !== undefined)
          .map(([key, v]) => ({ key, keyStart: -1, keyEnd: -1, value: fromValue(v) })),
        ...at,
      };
    default:
      return { type: 'null', ...at };
  }
}
