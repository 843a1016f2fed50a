/**
 * Request logs of the provider formats (Anthropic Messages, OpenAI Chat
 * Completions, OpenAI Responses), read the same way for all three:
 *
 * - a `.json` file holding one request body (or one `{request, response}`
 *   record) is one window;
 * - a JSONL file with one request body per line, or one `{request, response}`
 *   record per line (proxies, recorders, the corpus' converted cassettes
 *   `{interaction, method, uri, request, status, response}`), is a request log.
 *   Each request after the first is a step (source `request`), judged against
 *   the previous request plus its logged response, all consumed.
 *
 * Events per request, in the engine's convention: the step (not for the first
 * request), then the request itself as a `window` for its own pairing checks.
 * A line that is not JSON becomes `invalid-json` located at the parse error, and
 * the next valid request is judged against the last valid one. A record that is
 * not a request body of this provider (another provider's call, a DELETE, a
 * `POST /v1/conversations`) becomes an info `record-skipped`.
 *
 * Streamed: only the previous request (with its response) and the current one
 * are held at any time. A codec with a `carrier` reads only the new tail of a
 * request: the leading messages that repeat the previous line byte for byte
 * are skipped by the parser and carried over (see carry.ts).
 */
import type { Finding } from '../findings';
import { finding } from '../findings';
import type { JsonArray, JsonNode, JsonObject } from '../json/parse';
import { parseJson, unsliced } from '../json/parse';
import { asObject, asString, prop, propString, rangeOf } from '../json/nodes';
import { carriedMessages, homeOf } from './carried-message';
import { carryMessages, carrySpans, exactWindow, isShallow, withExact, type CarrySource } from './carry';
import type { ContextWindow, FormatId, Message, Rewrite } from '../model';
import { sameValue } from '../same-value';
import { lineSlice, type SourceLine, type SourceRange } from '../text';
import { readByLines, type LineReader, type ReaderSplice, type ThreadInfo, type TranscriptEvent, type TranscriptInput } from '../transcript';
import { bodyOf } from './provider-common';
import { lineAt, Unseen } from './common';
import { isBlank, isWholeJson, parsedLine, wholeFileRecords, wholeJsonByName, type LogRecord, type RecordOrFinding } from './log-records';
import { Threads } from './threads';
import { numbered } from '../numbered';

/** A request body read into a window. */
export interface ParsedRequest {
  /** Not live; boundary = every message (the model reads the whole request). */
  readonly window: ContextWindow;
  /**
   * How many leading messages are per-request settings that server state does
   * not carry over (Responses `instructions`); 0 for the other formats.
   */
  readonly preamble: number;
}

/** One logged request with what the model answered: the state the next request is judged against. */
export interface LoggedExchange {
  readonly request: ParsedRequest;
  /** The model's output, appended at the frontier. */
  readonly response: readonly Message[];
  /** The logged response's `id` (Responses: what `previous_response_id` names). */
  readonly responseId?: string;
  /** The conversation the logged response belongs to (Responses `conversation`). */
  readonly responseConversation?: string;
}

/** What a continuation through server state resolves to. */
export type Continuation =
  /** The request is self-contained: compare it as it is. */
  | { readonly kind: 'self-contained' }
  /** The request is a delta on the previous exchange: this is the window the model reads. */
  | { readonly kind: 'continued'; readonly window: ContextWindow }
  /** The request continues server state this log does not hold. */
  | { readonly kind: 'unknown-state'; readonly reason: string };

/** How one provider's request and response bodies are read. */
export interface ProviderCodec {
  readonly format: FormatId;
  readonly label: string;
  /** True when `body` is a request body of this provider. */
  isRequest(body: JsonObject): boolean;
  readRequest(body: JsonObject): ParsedRequest;
  /** The model output in a logged response body ([] when it holds none: an error, a stream). */
  readResponse(body: JsonNode | undefined): Message[];
  /** Resolves server-side state (Responses `previous_response_id` / `conversation`). */
  continueFrom?(previous: LoggedExchange | undefined, current: ParsedRequest): Continuation;
  /** Present when the codec can carry unchanged history over from the previous request. */
  readonly carrier?: MessageCarrier;
  /** A codec that remembers something between requests: an independent copy of it (for `LineReader.fork`). */
  fork?(): ProviderCodec;
}

/** How a codec reads a request whose leading messages are carried over (carry.ts). */
export interface MessageCarrier {
  /** The messages array of a request body: one message per element. */
  messagesArray(body: JsonObject): JsonArray | undefined;
  /**
   * Reads a request like `readRequest` when the parser skipped the first
   * `carried.length` elements of its messages array (given here, read already;
   * the array is not changed); also returns the messages of all its elements,
   * in order.
   */
  readRequest(body: JsonObject, carried: readonly Message[]): { readonly request: ParsedRequest; readonly items: readonly Message[] };
  /** Reads one element of the messages array (the array's range given) as `readRequest` reads it: what a carried message is read again with (carried-message.ts). */
  readElement(node: JsonNode, container: SourceRange | undefined): Message;
}

/** Reads a file of this provider's requests as one window or a request log. */
export function* readRequestLog(input: TranscriptInput, codec: ProviderCodec): Generator<TranscriptEvent> {
  if (!isWholeJson(input)) {
    yield* readByLines(input, new RequestLogLines(codec, input));
    return;
  }
  const threads = new Threads();
  const records = wholeFileRecords(input.text());
  const skips: Skips = { unseen: new Unseen(), text: () => input.text() };
  for (;;) {
    const outcome = nextOutcome(records, threads, codec, skips);
    if (!outcome) break;
    yield* outcome.events;
  }
  yield* skips.unseen.events();
}

/** The line reader of a request log (JSONL); undefined for a file read as one JSON document. */
export function requestLogLines(file: string, firstLine: string, codec: () => ProviderCodec, asked: Pick<TranscriptInput, 'parsed'> = {}): LineReader | undefined {
  const whole = wholeJsonByName(file) ?? !parseJson(firstLine.trim()).ok;
  return whole ? undefined : new RequestLogLines(codec(), asked);
}

/** A request log read line by line: only the last request of each thread (with its response) is held. */
class RequestLogLines implements LineReader {
  constructor(
    private readonly codec: ProviderCodec,
    /** What the input asks of its reader: to be told each line's parsed value, windows without copies. */
    private readonly asked: Pick<TranscriptInput, 'parsed' | 'firstReadings'> = {},
    private readonly threads = new Threads(),
    private readonly skips: Skips = { unseen: new Unseen(true) },
    private carry: CarrySource | undefined = undefined,
    private ordinal = 0,
  ) {}

  line(line: SourceLine): readonly TranscriptEvent[] {
    if (isBlank(line)) return [];
    const read = parsedLine(line, ++this.ordinal, this.codec.carrier ? this.carry : undefined);
    if ('finding' in read) return [{ kind: 'finding', finding: read.finding }];
    const carried = read.record.carried;
    this.asked.parsed?.(line, read.record.node, carried?.from.line && { line: carried.from.line, length: carried.plan.skip.to });
    const outcome = judgeRecord(read.record, this.threads, this.codec, this.skips, this.asked.firstReadings === true);
    if (outcome.request) this.carry = outcome.carry;
    return outcome.events;
  }

  end(): readonly TranscriptEvent[] {
    return this.skips.unseen.events();
  }

  /** One thread in both, its last request (with the response) the window `next` was judged against. */
  sameState(later: LineReader, next: Rewrite): boolean {
    if (!(later instanceof RequestLogLines) || later.codec.format !== this.codec.format || this.codec.fork) return false;
    const [mine, theirs] = [this.threads.only(), later.threads.only()];
    if (!mine || !theirs || mine.id !== theirs.id || !next.range) return false;
    return sameValue(consumedWindow(mine.last), next.before);
  }

  /** Its threads' last requests and responses moved, what the next line may carry from, the records skipped before `splice.from` those of `before`. */
  spliced(before: LineReader, splice: ReaderSplice): LineReader | undefined {
    const { shift, lines } = splice;
    const unseen = before instanceof RequestLogLines ? this.skips.unseen.spliced(before.skips.unseen, splice.from, shift, splice.line) : undefined;
    if (!unseen) return undefined;
    const move = (e: LoggedExchange): LoggedExchange => ({ ...e, request: { ...e.request, window: shift.window(e.request.window) }, response: e.response.map((m) => shift.message(m)) });
    const from = this.carry;
    const line = from?.line && (shift.identity && lines === 0 ? from.line : { ...from.line, offset: shift.offset(from.line.offset), index: from.line.index + lines });
    const carry = from && { ...from, base: shift.offset(from.base), items: from.items.map((m) => shift.message(m)), ...(line && { line }) };
    return new RequestLogLines(this.codec, this.asked, this.threads.moved(move), { unseen }, carry, this.ordinal + splice.records);
  }

  recordsRead(): number {
    return this.ordinal;
  }

  fork(): LineReader {
    return new RequestLogLines(this.codec.fork?.() ?? this.codec, this.asked, this.threads.clone(), { unseen: this.skips.unseen.clone() }, this.carry, this.ordinal);
  }
}

/** The records a log skipped, and the text (for the line of a whole-JSON file's first skipped record). */
interface Skips {
  readonly unseen: Unseen;
  readonly text?: () => string;
}

interface RecordOutcome {
  readonly events: readonly TranscriptEvent[];
  /** True when the record was a request (it became the last request of its thread). */
  readonly request?: boolean;
  /** What the next line may carry over from this one. */
  readonly carry?: CarrySource;
}

/** Reads the next record and judges it; undefined at the end of the file. */
function nextOutcome(records: Iterator<RecordOrFinding>, threads: Threads, codec: ProviderCodec, skips: Skips): RecordOutcome | undefined {
  const item = records.next();
  if (item.done) return undefined;
  if ('finding' in item.value) return { events: [{ kind: 'finding', finding: item.value.finding }] };
  return judgeRecord(item.value.record, threads, codec, skips);
}

/**
 * The events of one record: the step against the last request of its thread
 * (if any), then the request's window. `firstReadings`: carried messages are
 * left as they were first read, the windows say how to build their copies
 * (carry.ts `EXACT_WINDOW`).
 */
function judgeRecord(record: LogRecord, threads: Threads, codec: ProviderCodec, skips: Skips, firstReadings = false): RecordOutcome {
  const exchange = exchangeOf(record, codec);
  if ('skip' in exchange) {
    const line = () => (record.line ? record.line.source.index + 1 : lineAt(skips.text?.() ?? '', record.range.start));
    skips.unseen.note(exchange.skip.cause, record.range, line, 'record', exchange.skip.why);
    return { events: [] };
  }
  if (record.carried && record.line && record.carried.array !== codec.carrier?.messagesArray(exchange.request)) {
    // The skipped elements were not this request's messages: read the line in full.
    const full = parsedLine(record.line.source, record.ordinal, undefined);
    return 'record' in full ? judgeRecord(full.record, threads, codec, skips, firstReadings) : { events: [{ kind: 'finding', finding: full.finding }] };
  }
  const { current, carry } = readCurrent(record, exchange.request, codec, firstReadings);
  const { thread, continuation } = threads.place(current, codec);
  const events: TranscriptEvent[] = [];
  if (continuation.kind === 'unknown-state') {
    events.push({ kind: 'finding', finding: unknownStateFinding(record, codec, continuation.reason) });
  } else if (thread) {
    const after = continuation.kind === 'continued' ? continuation.window : current.window;
    const rewrite = { source: 'request', before: consumedWindow(thread.last), after, applied: true, range: record.range, thread: thread.id } as const;
    events.push({ kind: 'step', rewrite });
  }
  // A continued request is checked with the history it continues (this log holds it): a call the previous
  // logged response made pairs here, it is not said to live in server-side state.
  const effective = continuation.kind === 'continued' ? { ...current, window: continuation.window } : current;
  const placed = threads.record(thread, loggedExchange(effective, exchange.response, codec));
  events.push({ kind: 'window', window: effective.window, thread: threadInfo(placed.id) });
  return { events, request: true, ...(carry && continuation.kind === 'self-contained' && { carry }) };
}

/** Reads the request of a record, with the messages the parser skipped carried over from the previous line. */
function readCurrent(record: LogRecord, body: JsonObject, codec: ProviderCodec, firstReadings: boolean): { current: ParsedRequest; carry?: CarrySource } {
  const carrier = codec.carrier;
  if (!carrier || !record.line) return { current: codec.readRequest(body) };
  const { line, carried } = record;
  const count = carried?.plan.count ?? 0;
  const container = carried && rangeOf(carried.array);
  const firstRead = (from: CarrySource) => (count === from.items.length ? from.items : from.items.slice(0, count));
  const read = carrier.readRequest(body, carried && firstReadings ? firstRead(carried.from) : carried ? carryMessages(carried.from, count, line.base, container) : []);
  // Its messages are carried for the rest of the log: kept as their places in the line (a check that keeps no windows).
  const home = firstReadings ? homeOf(carried?.from.home, carried?.from ?? { base: line.base, items: [] }, count, line.source, line.base, carrier.readElement) : undefined;
  if (home) carriedMessages(read.items, count, read.request.window.messages, read.request.window.messages.length - read.items.length, home);
  const spans = carrySpans(carried?.from, count, read.items, line.base, (offset) => lineSlice(line.source, offset - line.source.offset).charCodeAt(0));
  // Its line, unless the text lost a byte order mark (then it is not what the next line was compared with).
  const source = line.base === line.source.offset ? line.source : undefined;
  const carry: CarrySource = { text: line.text, base: line.base, items: read.items, spans, line: source, head: carried ? carried.from.head : textBeforeItems(line.text, spans), home };
  if (!carried || !firstReadings) return { current: read.request, carry };
  // The carried messages are the tail's `items` first `count`; the window holds them after its leading messages.
  const window = read.request.window;
  const carriedAt: CarriedAt = { at: window.messages.length - read.items.length, count, spans, base: line.base, container };
  return { current: { ...read.request, window: withExact(window, exactOf(window, carriedAt)) }, carry };
}

/**
 * Where a window of first readings holds its carried messages: `count` of
 * them from `at`, the line's spans (the carried elements' first), the line's
 * offset and messages array.
 */
interface CarriedAt {
  readonly at: number;
  readonly count: number;
  readonly spans: ArrayLike<number>;
  readonly base: number;
  readonly container: SourceRange | undefined;
}

/**
 * The window with the copies of its carried messages, moved to its line, in
 * place of their first readings. Holds only the window and its own line's
 * spans: a window kept for its step (its `EXACT_WINDOW`) keeps neither the
 * text nor the messages array of the line before it.
 */
function exactOf(window: ContextWindow, carried: CarriedAt): () => ContextWindow {
  return () => {
    const { at, count } = carried;
    const messages = window.messages;
    const copies = carryMessages({ items: messages.slice(at, at + count), spans: carried.spans }, count, carried.base, carried.container);
    return { ...window, messages: [...messages.slice(0, at), ...copies, ...messages.slice(at + count)] };
  };
}

export function loggedExchange(request: ParsedRequest, response: JsonNode | undefined, codec: ProviderCodec): LoggedExchange {
  const conversation = prop(response, 'conversation');
  return {
    request,
    response: codec.readResponse(response),
    responseId: propString(response, 'id'),
    responseConversation: asString(conversation)?.value ?? propString(conversation, 'id'),
  };
}

/** An exchange's consumed window, once made (not a WeakMap: its entries would outlive young collections). */
const CONSUMED: unique symbol = Symbol('consumed');

/** The previous request plus its response, everything consumed (made once per exchange: threading and the step share it). */
export function consumedWindow(exchange: LoggedExchange): ContextWindow {
  const known = (exchange as { [CONSUMED]?: ContextWindow })[CONSUMED];
  if (known) return known;
  const window = consumedOf(exchange);
  Object.defineProperty(exchange, CONSUMED, { value: window });
  return window;
}

function consumedOf(exchange: LoggedExchange): ContextWindow {
  const consumed = (window: ContextWindow): ContextWindow => {
    const messages = exchange.response.length > 0 ? window.messages.concat(exchange.response) : window.messages;
    return { ...window, messages, boundary: messages.length, live: false };
  };
  const window = exchange.request.window;
  return isShallow(window) ? withExact(consumed(window), () => consumed(exactWindow(window))) : consumed(window);
}

/** A conversation of a log, as its windows are tagged. */
function threadInfo(id: number): ThreadInfo {
  return { id, kind: id === 1 ? 'main' : 'thread', label: `thread ${id}` };
}

function unknownStateFinding(record: LogRecord, codec: ProviderCodec, reason: string): Finding {
  const at = `${codec.label} request `;
  const message = `${at}${record.ordinal} continues server-side state that this log does not hold (${reason}); it is checked on its own, not compared with the request before it`;
  return numbered(finding('server-state-pairing', record.range, message), 'record', record.ordinal, at.length);
}

/** Splits a record into its request body and logged response, or says why it is skipped. */
function exchangeOf(
  record: LogRecord,
  codec: ProviderCodec,
): { readonly request: JsonObject; readonly response?: JsonNode } | { readonly skip: { readonly cause: string; readonly why: string } } {
  const node = asObject(record.node);
  if (node && codec.isRequest(node)) return { request: node };
  const request = asObject(bodyOf(prop(node, 'request')));
  const method = prop(node, 'method');
  const uri = prop(node, 'uri') ?? prop(node, 'url');
  const where = uri?.type === 'string' ? ` (the first: ${method?.type === 'string' ? `${method.value} ` : ''}${uri.value})` : '';
  if (method?.type === 'string' && method.value.toUpperCase() !== 'POST') {
    return { skip: { cause: `with method ${method.value}`, why: `not a request body${where}` } };
  }
  if (!request || !codec.isRequest(request)) {
    return { skip: { cause: `holding no request body of ${codec.label}`, why: `not part of the model's context as far as this reader knows${where}` } };
  }
  return { request, response: failed(prop(node, 'status')) ? undefined : bodyOf(prop(node, 'response')) };
}

function failed(status: JsonNode | undefined): boolean {
  return status?.type === 'number' && Number(status.raw) >= 400;
}

/** The text of a line before its first element (copied: it outlives the line), when it has elements. */
function textBeforeItems(text: () => string, spans: ArrayLike<number>): string | undefined {
  const first = spans[0];
  return first === undefined || first < 0 ? undefined : unsliced(text().slice(0, first));
}
