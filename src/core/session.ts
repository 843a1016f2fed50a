/**
 * A session at a glance: what the check found (messages, turns, tool pairs,
 * compactions, steps by decision) beside what the log itself reports about
 * the prompt cache (usage per request, see usage.ts). Where the log's cache
 * reads drop while our check expected the prefix to be reusable (or the
 * other way round), the row says why we think so.
 */
import type { Decision, Finding, RuleId } from './findings';
import type { ThreadSummary } from './file-threads';
import type { ContextWindow, FormatId, Message, ToolPair } from './model';
import { frontier, pairStates, placedState, type PairState } from './pairing';
import type { StepReport } from './results';
import type { SourceRange } from './text';
import { threadKey, type LogFacts, type UsageRecord } from './usage';

export interface PairCounts {
  readonly paired: number;
  readonly pending: number;
  readonly orphaned: number;
}

/** Why the log's cache read differs from what we expected. */
export type CacheReason = 'prefix-break' | 'model-change' | 'time-gap' | 'no-cache-control' | 'unexplained';

/** What the log reports about one request (see `UsageRecord`), less how the reader found it. */
type ReportedUsage = Omit<UsageRecord, 'end' | 'style' | 'longLived' | 'cacheControl'>;

/** One request that reported usage, with our expectation beside it. */
export interface CacheRow extends ReportedUsage {
  /** 1-based, in log order. */
  readonly index: number;
  /** What the previous request of the thread left cached (the most this one can read); undefined on a thread's first request. */
  readonly expectedRead?: number;
  /** Our prediction: the prefix since the previous request is intact, or a step broke it. */
  readonly predicted: { readonly intact: boolean; readonly step?: number; readonly keptTokens?: number; readonly consumedTokens?: number };
  /** `agrees`; `drop`: the log read less than expected; `no-drop`: we found a break but the log read the cache anyway. */
  readonly agreement: 'agrees' | 'drop' | 'no-drop';
  readonly reason?: CacheReason;
  /** The explanation in words. */
  readonly detail?: string;
  /** The finding that explains a break: its rule and where it is. */
  readonly rule?: RuleId;
  readonly range?: SourceRange;
}

export interface UsageTotals {
  readonly requests: number;
  readonly promptTokens: number;
  readonly cacheRead: number;
  /** Undefined when no request reported writes (OpenAI-style logs). */
  readonly cacheWrite?: number;
  readonly outputTokens: number;
}

export interface SessionSummary {
  readonly format: FormatId;
  readonly models: readonly string[];
  readonly firstTime?: string;
  readonly lastTime?: string;
  /** Messages of the last window plus those rewrites dropped before it (history before a compaction). */
  readonly messages: number;
  /** User messages that say something (not only tool results). */
  readonly turns: number;
  /** Tool pairs of the current (last) window. */
  readonly pairs: PairCounts;
  readonly compactions: number;
  readonly decisions: { readonly [D in Decision]: number };
  readonly usage?: UsageTotals;
  readonly cache: readonly CacheRow[];
  /**
   * The file's conversations, when it has more than one (a request log's threads, Inspect samples,
   * a trace's agents, Claude Code side-chains): messages, turns and pairs above count all of them.
   */
  readonly threads?: readonly ThreadSummary[];
}

/**
 * Counts the messages of a session without keeping them: the last window's,
 * plus what each shrinking rewrite (a compaction, a rewind) dropped from the
 * window before it. The same count whether or not a reader carried repeated
 * history over (request logs).
 */
export class MessageTally {
  private dropped = 0;
  private droppedTurns = 0;

  /** A rewrite: only a shrinking one is walked. */
  addStep(before: ContextWindow, after: ContextWindow): void {
    if (after.messages.length >= before.messages.length) return;
    this.dropped += before.messages.length - after.messages.length;
    this.droppedTurns += Math.max(0, turnsOf(before) - turnsOf(after));
  }

  fork(): MessageTally {
    const copy = new MessageTally();
    copy.dropped = this.dropped;
    copy.droppedTurns = this.droppedTurns;
    return copy;
  }

  /** With the last window of each thread of the file (its counts). */
  count(threads: readonly Pick<ThreadSummary, 'messages' | 'turns'>[]): { messages: number; turns: number } {
    const sum = (f: (t: Pick<ThreadSummary, 'messages' | 'turns'>) => number) => threads.reduce((n, t) => n + f(t), 0);
    return { messages: this.dropped + sum((t) => t.messages), turns: this.droppedTurns + sum((t) => t.turns) };
  }
}

/**
 * A message that knows whether it has a text block without its blocks (a
 * request log's carried message, formats/carried-message.ts: a bit of its
 * row), where asking for them would parse it again from its line.
 */
export interface KnowsText {
  hasText(): boolean;
}

function knowsText(message: Message): message is Message & KnowsText {
  return typeof (message as Partial<KnowsText>).hasText === 'function';
}

/** User messages that say something (not only tool results). */
export function turnsOf(window: ContextWindow): number {
  let turns = 0;
  for (const m of window.messages) {
    if (m.role !== 'user') continue;
    if (knowsText(m) ? m.hasText() : m.blocks.some((b) => b.kind === 'text')) turns++;
  }
  return turns;
}

/**
 * A pair index that tells where each pair's call and first result are
 * without making its pairs (pair-index.ts `PairIndex`, whose members would
 * read carried messages' blocks again): all a pair's state needs.
 */
export interface PairPlaces {
  /** Each pair's call's message index and its first result's (-1: none). */
  eachPlace(visit: (call: number, result: number) => void): void;
}

/** A window's pairs as a summary may be given them: a `toolPairs` map, or an index's places. */
export type KnownPairs = ReadonlyMap<string, ToolPair> | PairPlaces;

function isPlaces(pairs: KnownPairs): pairs is PairPlaces {
  return typeof (pairs as Partial<PairPlaces>).eachPlace === 'function';
}

/** The pairs of `window` by state (`pairs`: its pair index, when made already). */
export function pairCounts(window: ContextWindow | undefined, pairs?: KnownPairs): PairCounts {
  const counts = { paired: 0, pending: 0, orphaned: 0 };
  if (!window) return counts;
  const add = (state: PairState) => {
    if (state === 'paired') counts.paired++;
    else if (state === 'pending') counts.pending++;
    else counts.orphaned++;
  };
  if (pairs && isPlaces(pairs)) {
    const lastAssistant = frontier(window);
    pairs.eachPlace((call, result) => add(placedState(window, call, result >= 0, lastAssistant)));
  } else for (const state of pairStates(window, pairs).values()) add(state);
  return counts;
}

/**
 * What the summaries of one followed file share from one report to the next
 * (the run and its forks hold one): each request's cache row when no step
 * explains it (it depends on that request and the one before it only), and
 * the usage totals and models of the requests so far.
 */
export class SummaryMemo {
  readonly rows = new WeakMap<UsageRecord, { readonly index: number; readonly before: UsageRecord | undefined; readonly row: CacheRow }>();
  /** The rows of the last summary (`cacheRows` goes on from them). */
  last: LastRows | undefined;
  private sums: { count: number; last?: UsageRecord; prompt: number; read: number; write: number; writes: boolean; output: number; models: Set<string> } = emptySums();

  /** The totals and models of `usage`, adding only the requests after those summed last time (when `usage` goes on from them). */
  totals(usage: readonly UsageRecord[]): { totals: UsageTotals; models: string[] } {
    if (this.sums.count > usage.length || (this.sums.last && usage[this.sums.count - 1] !== this.sums.last)) this.sums = emptySums();
    const sums = this.sums;
    for (const u of usage.slice(sums.count)) {
      Object.assign(sums, { prompt: sums.prompt + u.promptTokens, read: sums.read + u.cacheRead, write: sums.write + (u.cacheWrite ?? 0), output: sums.output + (u.outputTokens ?? 0) });
      sums.writes ||= u.cacheWrite !== undefined;
      if (u.model !== undefined) sums.models.add(u.model);
    }
    Object.assign(sums, { count: usage.length, last: usage[usage.length - 1] });
    const totals = { requests: usage.length, promptTokens: sums.prompt, cacheRead: sums.read, ...(sums.writes && { cacheWrite: sums.write }), outputTokens: sums.output };
    return { totals, models: [...sums.models] };
  }
}

function emptySums() {
  return { count: 0, prompt: 0, read: 0, write: 0, writes: false, output: 0, models: new Set<string>() };
}

export interface SessionInput {
  readonly format: FormatId;
  /** Every thread of the file with its last window's counts (the main one alone when the file is not threaded). */
  readonly threads: readonly ThreadSummary[];
  readonly tally: MessageTally;
  readonly steps: readonly StepReport[];
  readonly findings: readonly Finding[];
  readonly facts: LogFacts;
  readonly memo?: SummaryMemo;
}

export function sessionSummary(input: SessionInput): SessionSummary {
  const { facts, steps } = input;
  const memo = input.memo ?? new SummaryMemo();
  const decisions = { patch: 0, defer: 0, abort: 0 };
  for (const step of steps) decisions[step.decision]++;
  const { totals, models } = memo.totals(facts.usage);
  return {
    format: input.format,
    models,
    ...(facts.firstTime && { firstTime: facts.firstTime }),
    ...(facts.lastTime && { lastTime: facts.lastTime }),
    ...input.tally.count(input.threads),
    pairs: sumPairs(input.threads),
    compactions: steps.filter((s) => s.source === 'compaction').length,
    decisions,
    ...(facts.usage.length > 0 && { usage: totals }),
    cache: cacheRows(facts.usage, steps, input.findings, memo),
    ...(input.threads.length > 1 && { threads: input.threads }),
  };
}

function sumPairs(threads: readonly { readonly pairs: PairCounts }[]): PairCounts {
  const sum = (f: (p: PairCounts) => number) => threads.reduce((n, t) => n + f(t.pairs), 0);
  return { paired: sum((p) => p.paired), pending: sum((p) => p.pending), orphaned: sum((p) => p.orphaned) };
}

/**
 * A read below this share of what the previous request left cached is a drop.
 * Anthropic accounts reads exactly (a normal turn reads all of it); OpenAI-style
 * caching is best effort (128-token blocks, routing), so only a large drop counts.
 */
const KEPT_SHARE = { anthropic: 0.9, openai: 0.5, gemini: 0.5 } as const;

/**
 * Automatic caches only hold prompts of at least this many tokens: OpenAI's
 * 1,024; Gemini's implicit cache 1,024 on Flash models, 4,096 on the others.
 */
function minimumOf(record: UsageRecord): number {
  return record.style === 'gemini' && !/flash/i.test(record.model ?? '') ? 4096 : 1024;
}

/** What a request leaves in the cache for the next one of its thread. */
export function cachedAfter(record: UsageRecord): number {
  if (record.style === 'anthropic') return record.cacheRead + (record.cacheWrite ?? 0);
  return record.promptTokens >= minimumOf(record) ? record.promptTokens : 0;
}

/** Cache lifetime in seconds: Anthropic's 5 minutes (1 hour when written to the 1-hour cache); OpenAI's 5–10 minutes, taken as 5. */
function lifetimeOf(record: UsageRecord): number {
  return record.longLived ? 3600 : 300;
}

/**
 * The cache rows of the last summary, what they were made from, and where
 * the next one goes on from: each thread's last record, the end of the
 * furthest record, the rows with a step (they depend on the findings) with
 * the record before theirs.
 */
interface LastRows {
  readonly usage: readonly UsageRecord[];
  readonly steps: readonly StepReport[];
  readonly rows: readonly CacheRow[];
  readonly previous: ReadonlyMap<string, UsageRecord>;
  readonly end: number;
  readonly stepRows: ReadonlyMap<number, UsageRecord | undefined>;
}

/**
 * Whether the last summary's rows stand for the first rows of this one: the
 * usage goes on from the same records and the steps from the same steps but
 * for new ones after every record it had (a step breaks a row only between
 * the row's record and the one before it). Rows with a step are made again.
 */
function goesOn(last: LastRows | undefined, usage: readonly UsageRecord[], steps: readonly StepReport[]): last is LastRows {
  if (!last || usage.length < last.usage.length || last.usage.some((record, i) => usage[i] !== record)) return false;
  let same = 0;
  while (same < steps.length && same < last.steps.length && steps[same] === last.steps[same]) same++;
  return steps.slice(same).every((step) => !step.range || step.range.start > last.end);
}

function cacheRows(usage: readonly UsageRecord[], steps: readonly StepReport[], findings: readonly Finding[], memo: SummaryMemo): CacheRow[] {
  const stepsOf = new Map<string, StepReport[]>();
  for (const step of steps) {
    const key = threadKey(step.thread);
    let list = stepsOf.get(key);
    if (!list) stepsOf.set(key, (list = []));
    list.push(step);
  }
  const last = goesOn(memo.last, usage, steps) ? memo.last : undefined;
  const previous = new Map(last?.previous);
  const stepRows = new Map<number, UsageRecord | undefined>();
  const rows = (last?.rows ?? []).map((row, i) => {
    if (!last?.stepRows.has(i)) return row;
    const before = last.stepRows.get(i);
    stepRows.set(i, before);
    const record = usage[i] as UsageRecord;
    return cacheRow(record, i + 1, before, stepsOf.get(record.thread) ?? [], findings);
  });
  let end = last?.end ?? 0;
  for (let i = rows.length; i < usage.length; i++) {
    const record = usage[i] as UsageRecord;
    const before = previous.get(record.thread);
    previous.set(record.thread, record);
    end = Math.max(end, record.end);
    const row = memoRow(record, i + 1, before, stepsOf.get(record.thread) ?? [], findings, memo);
    if (row.predicted.step) stepRows.set(i, before);
    rows.push(row);
  }
  memo.last = { usage: [...usage], steps: [...steps], rows: [...rows], previous, end, stepRows };
  return rows;
}

/** A row, from `memo.rows` when no step explains it and it follows the same record. */
function memoRow(record: UsageRecord, index: number, before: UsageRecord | undefined, threadSteps: readonly StepReport[], findings: readonly Finding[], memo: SummaryMemo): CacheRow {
  const known = memo.rows.get(record);
  if (known && known.index === index && known.before === before && !(before && breakStep(threadSteps, before.end, record.end))) return known.row;
  const row = cacheRow(record, index, before, threadSteps, findings);
  if (!row.predicted.step) memo.rows.set(record, { index, before, row });
  return row;
}

function breakStep(steps: readonly StepReport[], from: number, to: number): StepReport | undefined {
  return steps.find((s) => s.range && s.range.start > from && s.range.start <= to && (s.decision !== 'patch' || s.cacheImpact.invalidatedTokens > 0));
}

/** `threadSteps`: the steps of the record's thread. */
function cacheRow(record: UsageRecord, index: number, before: UsageRecord | undefined, threadSteps: readonly StepReport[], findings: readonly Finding[]): CacheRow {
  const { style: _style, longLived: _longLived, cacheControl: _cacheControl, end: _end, ...reported } = record;
  const base = { ...reported, index };
  if (!before) return { ...base, predicted: { intact: true }, agreement: 'agrees' };
  const expectedRead = cachedAfter(before);
  const step = breakStep(threadSteps, before.end, record.end);
  const predicted = step
    ? { intact: false, step: step.index, consumedTokens: step.cacheImpact.consumedTokens, keptTokens: step.cacheImpact.consumedTokens - step.cacheImpact.invalidatedTokens }
    : { intact: true };
  const dropped = expectedRead > 0 && record.cacheRead < expectedRead * KEPT_SHARE[record.style];
  const row = { ...base, expectedRead, predicted };
  if (!dropped) {
    if (!step || expectedRead === 0) return { ...row, agreement: 'agrees' };
    return { ...row, agreement: 'no-drop', ...stepReason(step, findings, 'we found a break, but the log read the cache anyway (the change may lie after the provider\'s cache breakpoint)') };
  }
  return { ...row, agreement: 'drop', ...dropReason(record, before, step, findings) };
}

type Reason = Pick<CacheRow, 'reason' | 'detail' | 'rule' | 'range'>;

function stepReason(step: StepReport, findings: readonly Finding[], lead: string): Reason {
  const finding = findings.find((f) => f.step === step.index && f.severity !== 'info') ?? findings.find((f) => f.step === step.index);
  const rule = finding?.rule ?? step.rules[0];
  const what = `step ${step.index} (${step.decision}${rule ? `, ${rule}` : ''})`;
  return {
    reason: 'prefix-break',
    detail: `${lead}: ${what}`,
    ...(rule && { rule }),
    ...((finding?.range ?? step.range) && { range: finding?.range ?? step.range }),
  };
}

function dropReason(record: UsageRecord, before: UsageRecord, step: StepReport | undefined, findings: readonly Finding[]): Reason {
  if (step) return stepReason(step, findings, 'the prefix broke');
  if (record.model && before.model && record.model !== before.model) {
    return { reason: 'model-change', detail: `the model changed from ${before.model} to ${record.model} (each model has its own cache)` };
  }
  const gap = secondsBetween(before.time, record.time);
  const lifetime = lifetimeOf(before);
  if (gap !== undefined && gap > lifetime) {
    return { reason: 'time-gap', detail: `${formatSeconds(gap)} since the previous request, beyond the cache lifetime (${formatSeconds(lifetime)})` };
  }
  if (record.style === 'anthropic' && record.cacheControl === false) {
    return { reason: 'no-cache-control', detail: 'the request was sent without cache_control, so nothing was cached for it to read' };
  }
  const bestEffort = record.style === 'anthropic' ? '' : ' (this provider caches best effort: a miss with an intact prefix happens)';
  return { reason: 'unexplained', detail: `the prefix we see is byte-identical and nothing else we can see changed: unexplained${bestEffort}` };
}

function secondsBetween(a: string | undefined, b: string | undefined): number | undefined {
  if (!a || !b) return undefined;
  const ms = Date.parse(b) - Date.parse(a);
  return Number.isFinite(ms) ? ms / 1000 : undefined;
}

export function formatSeconds(seconds: number): string {
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}
