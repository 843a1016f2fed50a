/**
 * Compact readings of a request log's blocks, for a check that keeps no
 * windows (`TranscriptInput.firstReadings`): each message is read once, in the
 * request that first has it, and carried over by every request after it, so
 * what its blocks hold is held for the rest of the log (by the window and the
 * pair index). A call's input and a result's content are kept as their JSON
 * text and parsed again when read (a call's input as nodes was ~300 bytes for
 * ~40 of JSON); the blocks' ranges as numbers, made into ranges when read.
 *
 * What is read is what the reader made: a payload is kept as text only when
 * parsing its text again gives the same node (not one the reader changed, as
 * `cache_control` dropped), and a range read is a new object with the same
 * offsets. Only the fields a block has are its own (`'name' in result`).
 */
import { parseJson, type JsonNode, type JsonProperty } from '../json/parse';
import type { Block, Message, TextBlock, ToolCall, ToolResult } from '../model';
import type { SourceRange } from '../text';

/**
 * Shorter payloads (a string of 12 characters or fewer, a number, `{}`) are
 * kept as nodes: their text would weigh about as much (the parser hands out
 * one string for each short value, `interned` in json/parse.ts). A node of a
 * longer string is ~56 bytes beside its text's ~24.
 */
const MIN_TEXT = 15;

/** The text of a payload when parsing it again gives the same node (not one the reader changed); undefined otherwise. */
function payloadText(node: JsonNode | undefined, slice: (start: number, end: number) => string): string | undefined {
  if (!node || node.start < 0 || node.end - node.start < MIN_TEXT) return undefined;
  const text = flat(slice(node.start, node.end));
  const parsed = parseJson(text, node.start);
  return parsed.ok && sameNode(parsed.node, node) ? text : undefined;
}

/**
 * A call or result's payload (its node, or its text and where it starts) and
 * its ranges (`source`, `idSource`) as numbers, -1 for none.
 */
abstract class CompactPair {
  private readonly node: JsonNode | undefined;
  private readonly at: number;
  private readonly text: string | undefined;
  private readonly from: number;
  private readonly to: number;
  private readonly idFrom: number;
  private readonly idTo: number;

  constructor(payload: JsonNode | undefined, source: SourceRange | undefined, idSource: SourceRange | undefined, slice: (start: number, end: number) => string) {
    const text = payloadText(payload, slice);
    this.node = text === undefined ? payload : undefined;
    this.at = text === undefined ? -1 : (payload?.start ?? -1);
    this.text = text;
    this.from = source?.start ?? -1;
    this.to = source?.end ?? -1;
    this.idFrom = idSource?.start ?? -1;
    this.idTo = idSource?.end ?? -1;
  }

  protected payload(): JsonNode | undefined {
    if (this.text === undefined) return this.node;
    const parsed = parseJson(this.text, this.at);
    if (!parsed.ok) throw new Error('compact-blocks: a payload kept as text no longer parses');
    return parsed.node;
  }

  get source(): SourceRange | undefined {
    return rangeAt(this.from, this.to);
  }

  get idSource(): SourceRange | undefined {
    return rangeAt(this.idFrom, this.idTo);
  }
}

/**
 * A copy of a slice as a string of its own: `unsliced`'s copy is itself a
 * slice (32 bytes more) of a copy; parsing the slice's JSON makes a flat one.
 */
function flat(slice: string): string {
  return JSON.parse(JSON.stringify(slice)) as string;
}

/** The same node: type, offsets, values, keys in order. */
function sameNode(a: JsonNode, b: JsonNode): boolean {
  if (a.type !== b.type || a.start !== b.start || a.end !== b.end) return false;
  switch (a.type) {
    case 'object': {
      const q = (b as typeof a).properties;
      return a.properties.length === q.length && a.properties.every((p, i) => sameProperty(p, q[i] as JsonProperty));
    }
    case 'array': {
      const q = (b as typeof a).items;
      return a.items.length === q.length && a.items.every((item, i) => sameNode(item, q[i] as JsonNode));
    }
    case 'string':
    case 'boolean':
      return a.value === (b as typeof a).value;
    case 'number':
      return a.raw === (b as typeof a).raw;
    case 'null':
      return true;
  }
}

function sameProperty(p: JsonProperty, q: JsonProperty): boolean {
  return p.key === q.key && p.keyStart === q.keyStart && p.keyEnd === q.keyEnd && sameNode(p.value, q.value);
}

/** A range kept as two numbers (-1: none). */
function rangeAt(start: number, end: number): SourceRange | undefined {
  return start < 0 ? undefined : { start, end };
}

class CompactText implements TextBlock {
  readonly kind = 'text' as const;
  private readonly from: number;
  private readonly to: number;

  constructor(readonly text: string, source: SourceRange | undefined) {
    this.from = source?.start ?? -1;
    this.to = source?.end ?? -1;
  }

  get source(): SourceRange | undefined {
    return rangeAt(this.from, this.to);
  }
}

class CompactCall extends CompactPair implements ToolCall {
  readonly kind = 'tool_call' as const;
  readonly id: string;
  readonly name: string;
  declare readonly schemaVersion?: string;
  readonly container: SourceRange | undefined;

  constructor(call: ToolCall, slice: (start: number, end: number) => string) {
    super(call.input, call.source, call.idSource, slice);
    this.id = call.id;
    this.name = call.name;
    if ('schemaVersion' in call) this.schemaVersion = call.schemaVersion;
    this.container = call.container;
  }

  get input(): JsonNode | undefined {
    return this.payload();
  }
}

class CompactResult extends CompactPair implements ToolResult {
  readonly kind = 'tool_result' as const;
  readonly callId: string;
  declare readonly name?: string;
  readonly isError: boolean | undefined;
  readonly container: SourceRange | undefined;

  constructor(result: ToolResult, slice: (start: number, end: number) => string) {
    super(result.content, result.source, result.idSource, slice);
    this.callId = result.callId;
    if ('name' in result) this.name = result.name;
    this.isError = result.isError;
    this.container = result.container;
  }

  get content(): JsonNode | undefined {
    return this.payload();
  }
}

function compactBlock(block: Block, slice: (start: number, end: number) => string): Block {
  switch (block.kind) {
    case 'text':
      return Object.keys(block).length === 3 ? new CompactText(block.text, block.source) : block;
    case 'tool_call':
      return new CompactCall(block, slice);
    case 'tool_result':
      return new CompactResult(block, slice);
    case 'opaque':
      return block;
  }
}

/**
 * Makes the blocks of `messages[from…]` compact, in place: their arrays are
 * the reader's own, made for this request and not seen by anything yet.
 * `slice` gives the text between two offsets of the file (in the line read).
 */
export function compactBlocks(messages: readonly Message[], from: number, slice: (start: number, end: number) => string): void {
  for (let m = from; m < messages.length; m++) {
    const blocks = (messages[m] as Message).blocks as Block[];
    for (let b = 0; b < blocks.length; b++) blocks[b] = compactBlock(blocks[b] as Block, slice);
  }
}
