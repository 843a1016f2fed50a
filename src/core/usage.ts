/**
 * What the log itself says the provider did: token usage and cache reads /
 * writes per request, the models and the time span. Read from the lines the
 * format adapter reads (one pass; only lines that can carry usage are parsed):
 *
 * - Claude Code: `message.usage` on assistant records (`input_tokens`,
 *   `cache_read_input_tokens`, `cache_creation_input_tokens`, `output_tokens`),
 *   one request per `message.id` (a response written as several lines counts once);
 *   side-chains are their own thread (`agentId`).
 * - Codex: `event_msg` / `token_count` events (`info.last_token_usage`:
 *   `input_tokens`, `cached_input_tokens`), model from `turn_context`.
 * - Request logs (`{request, response}` lines): Anthropic `usage` (as Claude
 *   Code), OpenAI `usage.prompt_tokens_details.cached_tokens` /
 *   `usage.input_tokens_details.cached_tokens`, Gemini
 *   `usageMetadata.cachedContentTokenCount`, Bedrock Converse
 *   `usage.cacheReadInputTokens` / `cacheWriteInputTokens`.
 *
 * Whole-file formats (Inspect AI, OpenTelemetry / Langfuse, Gemini CLI) are
 * parsed by their adapter, which reports each request's usage as a `usage`
 * event (`countedUsage`, usage-records.ts); `add` takes them.
 *
 * See docs/formats.md ("Usage fields"). Bad or absent fields are skipped, never an error.
 */
import { CompactList } from './compact-list';
import type { Shift } from './shift';
import type { JsonNode } from './json/parse';
import type { FormatId } from './model';
import { lineLength, lineSlice, type SourceLine } from './text';
import { LineScan, parsedRecord } from './usage-parsed';
import { anthropicUsage, baseFields, bedrockUsage, geminiUsage, num, obj, openaiUsage, optional, type At, type Obj } from './usage-records';

/**
 * How a provider caches: Anthropic-style at explicit breakpoints, accounted
 * exactly (reads and writes); OpenAI-style automatically, best effort (reads
 * only); Gemini's implicit caching is OpenAI-style with a larger minimum.
 * `promptTokens` counts every input token whatever the style.
 */
export type CacheStyle = 'anthropic' | 'openai' | 'gemini';

/** One request's usage as the log reports it. */
export interface UsageRecord {
  /** Offset of the line that reports it. */
  readonly offset: number;
  /** Offset just past that line. */
  readonly end: number;
  /** Requests of one thread share a cache history (the main session, or one sub-agent). */
  readonly thread: string;
  readonly style: CacheStyle;
  readonly model?: string;
  /** ISO timestamp, when the line has one. */
  readonly time?: string;
  /** All input tokens of the request (cached ones included). */
  readonly promptTokens: number;
  readonly cacheRead: number;
  /** Tokens written to the cache (Anthropic); undefined where the provider does not report writes. */
  readonly cacheWrite?: number;
  readonly outputTokens?: number;
  /** The write went to the 1-hour cache (Anthropic `ephemeral_1h_input_tokens`). */
  readonly longLived?: boolean;
  /** Request logs: the request asked for caching (`cache_control` anywhere in it); undefined when not a request log. */
  readonly cacheControl?: boolean;
}

/** The usage thread of conversation `id` of a file (1, or none, is the main one): `main`, `thread 2`, … */
export function threadKey(id: number | undefined): string {
  return id === undefined || id <= 1 ? 'main' : `thread ${id}`;
}

export interface LogFacts {
  readonly usage: readonly UsageRecord[];
  readonly firstTime?: string;
  readonly lastTime?: string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 && v.length < 200 ? v : undefined);

/** Collects usage while an adapter reads lines; `observe` each line once, then `facts()`. */
export class UsageScanner {
  /** Held compactly until the facts are asked for (compact-list.ts). */
  private records = new CompactList<UsageRecord>();
  private readonly seenIds = new Set<string>();
  /** Each model name once (the records of a log name a few models, each thousands of times). */
  private readonly models = new Map<string, string>();
  private lastOffset = -1;
  /** The line observed last, until its usage is read. */
  private pending: Pending | undefined;
  /** The occurrences found in the last line an adapter parsed (the next one may repeat its start). */
  private scan: LineScan | undefined;
  private codexModel: string | undefined;
  private codexTotal: unknown;
  private firstTime: string | undefined;
  private lastTime: string | undefined;
  /** Where the lines (or records) of the first and last times start. */
  private firstTimeAt = -1;
  private lastTimeAt = -1;

  constructor(private readonly format: FormatId) {}

  /**
   * A line the adapter is about to read. Its usage is read when the adapter
   * has parsed it (`parsed`), or else from the line itself (`JSON.parse`)
   * when the next line is observed or the facts are asked for.
   */
  observe(line: SourceLine): void {
    if (line.offset <= this.lastOffset) return;
    this.settle();
    this.lastOffset = line.offset;
    this.pending = { line };
  }

  /**
   * The JSON value an adapter parsed from the line observed last (a request
   * log's record, offsets in the file, a carried history's elements possibly
   * skipped): the line's usage is read from it instead of parsing the line
   * again, when that gives exactly what parsing it would (see `parsedRecord`).
   * `shared`: the line starts with the first `length` characters of `line`,
   * an earlier line (what it carries over): only the rest is searched.
   */
  parsed(line: SourceLine, node: JsonNode, shared?: { readonly line: SourceLine; readonly length: number }): void {
    const pending = this.pending;
    if (!pending || pending.line !== line || this.format === 'claude-code' || this.format === 'codex') return;
    const previous = shared && this.scan?.line === shared.line ? this.scan : undefined;
    const scan = new LineScan(line, previous, shared?.length ?? 0);
    this.scan = scan;
    this.timeOf(pending, scan);
    const read = parsedRecord(node, line, scan);
    if (read) {
      this.pending = undefined;
      if (read.record) this.read(read.record, atOf(pending), read.asks);
    }
    scan.release();
  }

  /** Reads the usage of the line observed last, if no adapter did. */
  private settle(): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    this.timeOf(pending);
    const text = pending.line.text;
    if (!/usage|turn_context|token_count/.test(text)) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return;
    }
    const record = obj(value);
    const request = record && obj(record.request);
    if (record) this.read(record, atOf(pending), (key) => request !== undefined && JSON.stringify(request).includes(`"${key}"`));
  }

  /** The line's record timestamp, read once (the first and last times of the file move with it). */
  private timeOf(pending: Pending, scan?: LineScan): void {
    if (pending.timed) return;
    pending.timed = true;
    const last = this.format === 'claude-code';
    const time = scan && !last ? timestampAt(pending.line, scan.first('"timestamp"')) : timestampOf(pending.line.text, last);
    pending.time = time;
    if (time) this.timed(time, pending.line.offset);
  }

  private timed(time: string, at: number): void {
    if (this.firstTime === undefined) [this.firstTime, this.firstTimeAt] = [time, at];
    [this.lastTime, this.lastTimeAt] = [time, at];
  }

  /** A request's usage an adapter reported (a `usage` event). */
  add(record: UsageRecord): void {
    this.settle();
    this.records.push(this.kept(record));
    if (record.time) this.timed(record.time, record.offset);
  }

  /** An independent copy: lines observed by one are not seen by the other. */
  fork(): UsageScanner {
    const copy = new UsageScanner(this.format);
    copy.records = this.records.fork();
    for (const id of this.seenIds) copy.seenIds.add(id);
    copy.lastOffset = this.lastOffset;
    copy.pending = this.pending && { ...this.pending };
    copy.scan = this.scan;
    copy.codexModel = this.codexModel;
    copy.codexTotal = this.codexTotal;
    Object.assign(copy, { firstTime: this.firstTime, lastTime: this.lastTime, firstTimeAt: this.firstTimeAt, lastTimeAt: this.lastTimeAt });
    return copy;
  }

  /**
   * This scanner (a later reading's) with the usage of the lines before
   * offset `from` those of `before` (a reading of an edited text up to
   * there), the rest moved by `shift`. Undefined for a Claude Code or Codex log (a record there depends
   * on those before it), or when the file's first time cannot be told (none
   * before `from` in `before`, this one's before `from`).
   */
  spliced(before: UsageScanner, from: number, shift: Shift): UsageScanner | undefined {
    if (this.format !== before.format || this.format === 'claude-code' || this.format === 'codex') return undefined;
    const prefix = before.fork();
    prefix.settle();
    if (prefix.firstTime === undefined && this.firstTime !== undefined && this.firstTimeAt < from) return undefined;
    const copy = this.fork();
    const later = this.records.all().filter((r) => r.offset >= from).map((r) => (shift.delta === 0 ? r : this.kept({ ...r, offset: shift.offset(r.offset), end: shift.offset(r.end) })));
    copy.records = CompactList.of([...prefix.records.all(), ...later]);
    Object.assign(copy, { lastOffset: shift.offset(this.lastOffset), firstTimeAt: shift.offset(this.firstTimeAt), lastTimeAt: shift.offset(this.lastTimeAt) });
    if (this.pending) copy.pending = { ...this.pending, line: shift.line(this.pending.line) };
    if (shift.delta !== 0) copy.scan = undefined;
    if (prefix.firstTime !== undefined) Object.assign(copy, { firstTime: prefix.firstTime, firstTimeAt: prefix.firstTimeAt });
    if (this.lastTimeAt < from) Object.assign(copy, { lastTime: prefix.lastTime, lastTimeAt: prefix.lastTimeAt });
    return copy;
  }

  facts(): LogFacts {
    this.settle();
    return { usage: this.records.all(), ...(this.firstTime && { firstTime: this.firstTime }), ...(this.lastTime && { lastTime: this.lastTime }) };
  }

  /** `asks(key)`: the record's request has a key `key` (`cache_control`, `cachePoint`) somewhere. */
  private read(record: Obj, at: At, asks: (key: string) => boolean): void {
    if (this.format === 'claude-code') return this.readClaudeCode(record, at);
    if (this.format === 'codex') return this.readCodex(record, at);
    const response = obj(record.response);
    if (response) this.readResponse(record, response, at, asks);
  }

  private push(record: UsageRecord | undefined): void {
    if (record) this.records.push(this.kept(record));
  }

  /**
   * The record as it is kept until the report: its fields copied one by one
   * in the same order (records made with spreads get a hidden class each,
   * ~340 bytes; copies with the same keys share one), the model named once.
   */
  private kept(record: UsageRecord): UsageRecord {
    const copy: Record<string, unknown> = {};
    for (const key in record) copy[key] = key === 'model' ? this.named(record.model) : record[key as keyof UsageRecord];
    return copy as unknown as UsageRecord;
  }

  private named(model: string | undefined): string | undefined {
    if (model === undefined) return undefined;
    const known = this.models.get(model);
    if (known !== undefined) return known;
    this.models.set(model, model);
    return model;
  }

  private readClaudeCode(record: Obj, at: At): void {
    const message = obj(record.message);
    if (record.type !== 'assistant' || !message) return;
    const id = str(message.id);
    if (id && this.seenIds.has(id)) return;
    if (id) this.seenIds.add(id);
    const thread = str(record.agentId) ?? (record.isSidechain === true ? 'side-chain' : 'main');
    this.push(anthropicUsage(obj(message.usage), { ...at, thread, model: str(message.model) }));
  }

  /** Codex repeats a token count (same running total) and writes empty ones; each request counts once. */
  private readCodex(record: Obj, at: At): void {
    const payload = obj(record.payload);
    if (!payload) return;
    if (record.type === 'turn_context') this.codexModel = str(payload.model) ?? this.codexModel;
    if (record.type !== 'event_msg' || payload.type !== 'token_count') return;
    const info = obj(payload.info);
    const usage = obj(info?.last_token_usage);
    const prompt = num(usage?.input_tokens);
    const total = obj(info?.total_token_usage)?.total_tokens;
    if (!usage || !prompt || total === this.codexTotal) return;
    this.codexTotal = total;
    this.push({
      ...baseFields({ ...at, thread: 'main', model: this.codexModel }),
      style: 'openai',
      promptTokens: prompt,
      cacheRead: num(usage.cached_input_tokens) ?? 0,
      ...optional('outputTokens', num(usage.output_tokens)),
    });
  }

  private readResponse(record: Obj, response: Obj, at: At, asks: (key: string) => boolean): void {
    const request = obj(record.request);
    const model = str(response.model) ?? str(response.modelVersion) ?? str(request?.model) ?? str(request?.modelId);
    const base = { ...at, thread: 'main', model };
    const usage = obj(response.usage);
    if (usage && ('cache_read_input_tokens' in usage || this.format === 'anthropic')) {
      const read = anthropicUsage(usage, base);
      return this.push(read && { ...read, cacheControl: asks('cache_control') });
    }
    if (usage && 'inputTokens' in usage) return this.push(bedrockUsage(usage, () => asks('cachePoint'), base));
    if (usage) return this.push(openaiUsage(usage, base));
    this.push(geminiUsage(obj(response.usageMetadata), base));
  }
}

/** A line observed, until its usage is read; its timestamp once read. */
interface Pending {
  readonly line: SourceLine;
  timed?: boolean;
  time?: string | undefined;
}

function atOf(pending: Pending): At {
  return { offset: pending.line.offset, end: pending.line.offset + lineLength(pending.line), time: pending.time };
}

const TIMESTAMP = /"timestamp"\s*:\s*"(\d{4}-\d\d-\d\dT[0-9:.]+(?:Z|[+-]\d\d:?\d\d)?)"/;

/**
 * The line's record `timestamp` (ISO 8601), without parsing the line: the last
 * one in a Claude Code record (it follows the message), the first elsewhere.
 */
function timestampOf(text: string, last: boolean): string | undefined {
  const at = last ? text.lastIndexOf('"timestamp"') : text.indexOf('"timestamp"');
  return at < 0 ? undefined : TIMESTAMP.exec(text.slice(at, at + 80))?.[1];
}

/** The timestamp of the `"timestamp"` key at `at` in the line (-1: none). */
function timestampAt(line: SourceLine, at: number): string | undefined {
  if (at < 0) return undefined;
  return TIMESTAMP.exec(lineSlice(line, at, at + 80))?.[1];
}
