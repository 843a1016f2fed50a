/**
 * Usage records from the fields each provider reports (usage.ts reads the
 * lines; whole-file adapters call `countedUsage`). Bad or absent fields give
 * no record, never an error.
 */
import type { UsageRecord } from './usage';

export type Obj = Record<string, unknown>;
export const obj = (v: unknown): Obj | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined);
export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);

/** Where a usage line (or the node an adapter read it from) is. */
export interface At {
  readonly offset: number;
  readonly end: number;
  readonly time: string | undefined;
}

export interface Base extends At {
  readonly thread: string;
  readonly model: string | undefined;
}

export function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** A name or time from the log, when it is a plausible one (not a hostile megabyte). */
const short = (text: string | undefined) => (text && text.length < 200 ? text : undefined);

export function baseFields(base: Base) {
  return { offset: base.offset, end: base.end, thread: base.thread, ...optional('model', short(base.model)), ...optional('time', short(base.time)) };
}

export function anthropicUsage(usage: Obj | undefined, base: Base): UsageRecord | undefined {
  const input = num(usage?.input_tokens);
  if (!usage || input === undefined) return undefined;
  const read = num(usage.cache_read_input_tokens) ?? 0;
  const write = num(usage.cache_creation_input_tokens) ?? 0;
  const longLived = (num(obj(usage.cache_creation)?.ephemeral_1h_input_tokens) ?? 0) > 0;
  return {
    ...baseFields(base),
    style: 'anthropic',
    promptTokens: input + read + write,
    cacheRead: read,
    cacheWrite: write,
    ...optional('outputTokens', num(usage.output_tokens)),
    ...(longLived && { longLived }),
  };
}

export function openaiUsage(usage: Obj, base: Base): UsageRecord | undefined {
  const prompt = num(usage.prompt_tokens) ?? num(usage.input_tokens);
  if (prompt === undefined) return undefined;
  const details = obj(usage.prompt_tokens_details) ?? obj(usage.input_tokens_details);
  return {
    ...baseFields(base),
    style: 'openai',
    promptTokens: prompt,
    cacheRead: num(details?.cached_tokens) ?? 0,
    ...optional('outputTokens', num(usage.completion_tokens) ?? num(usage.output_tokens)),
  };
}

/** Bedrock Converse `usage`: cache reads and writes counted apart from `inputTokens` unless `totalTokens` says otherwise; `cachePoint` blocks ask for caching. */
export function bedrockUsage(usage: Obj, asksCachePoint: () => boolean, base: Base): UsageRecord | undefined {
  const input = num(usage.inputTokens);
  if (input === undefined) return undefined;
  const counts = { input, read: num(usage.cacheReadInputTokens), write: num(usage.cacheWriteInputTokens), output: num(usage.outputTokens), total: num(usage.totalTokens) };
  const record = countedUsage(counts, base, true);
  return record.style === 'anthropic' ? { ...record, cacheControl: asksCachePoint() } : record;
}

/** Token counts as a log reports them, before it is known how its cache reads are counted. */
export interface ReportedCounts {
  readonly input: number;
  readonly read?: number;
  readonly write?: number;
  readonly output?: number;
  readonly total?: number;
}

/**
 * A usage record from counts whose field names do not settle whether cached
 * tokens are counted apart from `input` (Anthropic, Bedrock) or inside it
 * (OpenAI, Gemini, the OTel GenAI convention). A reported total settles it
 * when anything was cached: apart when total ≥ input + output + read + write;
 * without one, `apartByDefault` (the convention of the names) decides. A log
 * that reports cache writes caches at explicit breakpoints and accounts
 * exactly (Anthropic-style); one that reports only reads is OpenAI-style.
 */
export function countedUsage(counts: ReportedCounts, base: Base, apartByDefault: boolean): UsageRecord {
  const read = counts.read ?? 0;
  const write = counts.write ?? 0;
  const apart = read + write > 0 && counts.total !== undefined ? counts.total >= counts.input + (counts.output ?? 0) + read + write : apartByDefault;
  return {
    ...baseFields(base),
    style: counts.write === undefined ? 'openai' : 'anthropic',
    promptTokens: apart ? counts.input + read + write : Math.max(counts.input, read + write),
    cacheRead: read,
    ...optional('cacheWrite', counts.write),
    ...optional('outputTokens', counts.output),
  };
}

export function geminiUsage(usage: Obj | undefined, base: Base): UsageRecord | undefined {
  const prompt = num(usage?.promptTokenCount);
  if (!usage || prompt === undefined) return undefined;
  return {
    ...baseFields(base),
    style: 'gemini',
    promptTokens: prompt,
    cacheRead: num(usage.cachedContentTokenCount) ?? 0,
    ...optional('outputTokens', num(usage.candidatesTokenCount)),
  };
}
