/**
 * Checking a whole transcript: read it with its format adapter, run the window
 * checks on every window, judge every rewrite step, and collect one report.
 * Also compares two snapshots of the same session (`checkAgainst`).
 */
import type { BoundaryPosition, CheckOptions, ReadStop, Report, StepReport } from './results';
import { createEngineContext, pairsOf, type EngineContext } from './context';
import { finding, findingKey, type Finding, type RuleId, type StepVerdict } from './findings';
import { adapterFor, detectFormat, unreadFormat } from './formats/registry';
import { boundaryPosition, byPosition, judgeRewrite } from './guard';
import { headOf, inputFromText } from './io';
import { observedLines } from './observed-lines';
import { lineTooLong, resolveLimits, type Limits } from './limits';
import type { ContextWindow, FormatId, Rewrite } from './model';
import { MessageTally, sessionSummary, SummaryMemo } from './session';
import { partitionPoint } from '../shared/search';
import { ThreadTally } from './file-threads';
import { LineIndex, lineLength, type SourceLine } from './text';
import { UsageScanner } from './usage';
import { WindowTracker } from './window-tracker';
import { exactWindow, isShallow } from './formats/carry';
import { CompactList } from './compact-list';
import type { FormatAdapter, ThreadInfo, TranscriptEvent, TranscriptInput } from './transcript';
import { collectUnreadParts, forkUnreadParts, unreadParts, unreadPartsFinding, type UnreadMemo, type UnreadParts } from './unread-parts';

/** Thrown when a file's format is neither given nor recognised (the CLI exits 2 on it). */
export class UnknownFormatError extends Error {
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(reason);
    this.name = 'UnknownFormatError';
  }
}

export type CheckInput = TranscriptInput | { readonly file: string; readonly text: string };

export function toInput(input: CheckInput): TranscriptInput {
  return 'lines' in input && typeof input.lines === 'function' ? input : inputFromText(input.file, (input as { text: string }).text);
}

export function resolveAdapter(input: TranscriptInput, options: CheckOptions): FormatAdapter {
  if (options.format) {
    const adapter = adapterFor(options.format);
    if (!adapter) throw new UnknownFormatError(input.file, `No reader for format "${options.format}"`);
    return adapter;
  }
  const head = headOf(input);
  const adapter = detectFormat(head);
  if (!adapter) {
    const unread = unreadFormat(head);
    const why = unread ? `: it looks like ${unread}, which Prefix Lens does not read yet` : '';
    throw new UnknownFormatError(input.file, `Format not recognised${why} (use --format to name it)`);
  }
  return adapter;
}

/** A check in progress: what has been found so far. */
export interface Run {
  readonly context: EngineContext;
  readonly options: CheckOptions;
  /** The steps so far, held compactly until the report reads them (compact-list.ts). */
  readonly steps: CompactList<StepReport>;
  readonly findings: Finding[];
  /** The `findingKey` of every finding reported, to report each once. */
  readonly reported: Set<string>;
  /** The window findings to report: those the previous window did not have. */
  readonly windows: WindowTracker;
  finalWindow?: ContextWindow;
  readonly limits: Limits;
  /** Findings listed per rule, and those beyond the limit (counted, with the first one's range). */
  readonly listed: Map<RuleId, number>;
  readonly omitted: Map<RuleId, { count: number; first: Finding }>;
  stopped?: ReadStop;
  /** Messages and turns of the session, for its summary. */
  readonly tally: MessageTally;
  /** The file's conversations and the last window of each. */
  readonly threads: ThreadTally;
  /** Opaque parts holding a call or result the reader did not read. */
  readonly unread: UnreadParts;
  /** What the summaries of a followed file's reports share (a run and its forks hold one). */
  readonly summary: SummaryMemo;
  /** What the unread-parts counts of a followed file's reports share: set on the forks a report is finished on (follow.ts). */
  readonly unreadMemo?: UnreadMemo;
  /**
   * Every finding given to `report` so far, repeats and those past the limit
   * included (a followed file's run, to report a later reading's findings
   * again after its own: follow-reuse.ts). Not forked: a fork sets its own.
   */
  journal?: Finding[];
}

/** Reports a finding: once per `findingKey`, at most `maxFindingsPerRule` listed per rule (the rest counted). */
export function report(run: Run, f: Finding): void {
  run.journal?.push(f);
  const listed = run.listed.get(f.rule) ?? 0;
  if (listed >= run.limits.maxFindingsPerRule) {
    if (run.reported.has(findingKey(f))) return;
    const omitted = run.omitted.get(f.rule);
    if (omitted) omitted.count++;
    else run.omitted.set(f.rule, { count: 1, first: f });
    return;
  }
  const key = findingKey(f);
  if (run.reported.has(key)) return;
  run.reported.add(key);
  run.listed.set(f.rule, listed + 1);
  run.findings.push(f);
}

/** One finding per rule that went past the limit, saying how many more were not listed. */
function omittedFindings(run: Run): Finding[] {
  return [...run.omitted].map(([rule, { count, first }]) =>
    finding(rule, first.range, `${count.toLocaleString('en-US')} more ${rule} findings not listed: above the limit of ${run.limits.maxFindingsPerRule} per rule (maxFindingsPerRule, docs/limits.md)`),
  );
}

function onWindow(run: Run, window: ContextWindow, thread?: ThreadInfo): void {
  run.windows.nextEach(window, (f) => report(run, f));
  // A side-chain is never the file's last window: the main conversation is.
  if (thread?.kind !== 'side-chain') run.finalWindow = window;
  run.threads.see(window, thread);
  if (run.unreadMemo && thread?.kind !== 'side-chain') run.unreadMemo.collect(window, run.unread);
  else collectUnreadParts(window, run.unread);
}

function onStep(run: Run, rewrite: Rewrite, beforeFile?: string): StepVerdict {
  const index = run.steps.length + 1;
  run.context.render.turn();
  const options = { context: run.context, ...(beforeFile !== undefined && { beforeFile }) };
  let verdict = judgeRewrite(rewrite, options, run.windows.pairsOf(rewrite.before));
  // Windows of first readings (carry.ts `EXACT_WINDOW`) are judged again with their copies, for the findings' ranges.
  if (verdict.findings.length > 0 && (isShallow(rewrite.before) || isShallow(rewrite.after))) {
    verdict = judgeRewrite({ ...rewrite, before: exactWindow(rewrite.before), after: exactWindow(rewrite.after) }, options);
  }
  run.tally.addStep(rewrite.before, rewrite.after);
  for (const f of verdict.findings) report(run, { ...f, step: index });
  const keep = run.options.keepRewrites === true;
  // A step that keeps its rewrite is kept as it is (its windows are read by identity).
  run.steps.push(stepReport(index, verdict, rewrite, boundaryPosition(rewrite.before, run.context), keep), !keep);
  return verdict;
}

/** The rules of a step without findings: one array for all of them. */
const NO_RULES: readonly RuleId[] = Object.freeze([]);

/**
 * A step's report. The usual one (a line's range, no thread, no rewrite kept)
 * is one literal: one hidden class, its fields in the object, no array of its
 * own when it has no findings (a report holds one per request of a log).
 */
function stepReport(index: number, verdict: StepVerdict, rewrite: Rewrite, boundary: BoundaryPosition, keep: boolean): StepReport {
  const { decision, cacheImpact } = verdict;
  const { source, applied, range, thread } = rewrite;
  const rules = verdict.findings.length === 0 ? NO_RULES : [...new Set(verdict.findings.map((f) => f.rule))];
  if (range && thread === undefined && !keep) return { index, decision, source, applied, rules, range, boundary, cacheImpact };
  return { index, decision, source, applied, rules, ...(range && { range }), ...(thread !== undefined && { thread }), boundary, cacheImpact, ...(keep && { rewrite }) };
}

export function onEvent(run: Run, event: TranscriptEvent, usage: UsageScanner): void {
  if (event.kind === 'finding') report(run, event.finding);
  else if (event.kind === 'step') onStep(run, event.rewrite);
  else if (event.kind === 'usage') usage.add(event.usage);
  else onWindow(run, event.window, event.thread);
}

/**
 * What a check notes of each line before its reader reads it (a whole file's
 * and a followed file's alike): no line over `maxLineChars` reaches a reader,
 * where it starts, its usage. Returns the offset just past its text.
 */
export function takeLine(line: SourceLine, limits: Limits, starts: LineIndex, usage: UsageScanner): number {
  const length = lineLength(line);
  if (length > limits.maxLineChars) throw lineTooLong(line.index, limits.maxLineChars);
  starts.addLineStart(line.offset);
  usage.observe(line);
  return line.offset + length;
}

interface Tracked {
  readonly input: TranscriptInput;
  lineStarts(): readonly number[];
  /** Offset just past the last line read. */
  readUpTo(): number;
}

/**
 * Wraps an input so the line starts the adapter reads are recorded for the
 * report, and no line longer than `maxLineChars` reaches an adapter.
 */
function trackLines(input: TranscriptInput, limits: Limits, usage: UsageScanner, firstReadings: boolean): Tracked {
  const index = new LineIndex();
  let text: string | undefined;
  let sawLines = false;
  let upTo = 0;
  const tracked: TranscriptInput = {
    file: input.file,
    limits,
    lines: () =>
      observedLines(
        () => {
          sawLines = true;
          return input.lines();
        },
        (line) => {
          upTo = Math.max(upTo, takeLine(line, limits, index, usage));
        },
      ),
    text: () => (text ??= input.text()),
    bytes: () => input.bytes(),
    parsed: (line, node, shared) => usage.parsed(line, node, shared),
    firstReadings,
  };
  const lineStarts = () => {
    if (text === undefined && sawLines) return index.lineStarts();
    try {
      return LineIndex.of(tracked.text()).lineStarts();
    } catch {
      return index.lineStarts();
    }
  };
  return { input: tracked, lineStarts, readUpTo: () => upTo };
}

export function newRun(options: CheckOptions, limits: Limits, context = createEngineContext(options.tokens ?? 'o200k_base')): Run {
  return {
    limits,
    listed: new Map(),
    omitted: new Map(),
    context,
    options,
    steps: new CompactList(),
    findings: [],
    reported: new Set(),
    windows: new WindowTracker(context),
    tally: new MessageTally(),
    threads: new ThreadTally(),
    unread: unreadParts(),
    summary: new SummaryMemo(),
  };
}

/**
 * An independent copy of a run: what it found so far is shared, what comes
 * next is not (a followed file's report is finished on a fork, the run goes on).
 */
export function forkRun(run: Run): Run {
  return {
    ...run,
    steps: run.steps.fork(),
    findings: [...run.findings],
    reported: new Set(run.reported),
    windows: run.windows.fork(),
    listed: new Map(run.listed),
    omitted: new Map([...run.omitted].map(([rule, o]) => [rule, { ...o }])),
    tally: run.tally.fork(),
    threads: run.threads.fork(),
    unread: forkUnreadParts(run.unread),
    journal: undefined,
  };
}

/**
 * Reads every event. Adapters never throw on bad input, but a read can stop
 * (a limit, a special file, a string too long for the runtime): the report then
 * says where, with an error-level finding there, so a file not read to its end
 * never passes.
 */
function readAll(run: Run, adapter: FormatAdapter, tracked: Tracked, usage: UsageScanner): void {
  try {
    for (const event of adapter.read(tracked.input)) onEvent(run, event, usage);
  } catch (error) {
    readStopped(run, adapter, error, tracked.readUpTo());
  }
}

/** A read that stopped at `offset` (a limit, a special file): said by an error there, so the file never passes. */
export function readStopped(run: Run, adapter: FormatAdapter, error: unknown, offset: number): void {
  const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
  run.stopped = { reason, offset };
  const at = { start: offset, end: offset };
  run.findings.push(finding('record-skipped', at, `The ${adapter.label} reader stopped here: ${reason}. The rest of the file was not checked`, { severity: 'error' }));
}

function toReport(run: Run, file: string, format: FormatId, lineStarts: readonly number[], usage: UsageScanner): Report {
  const encoding = run.context.tokens?.encoding;
  const findings = byPosition([...run.findings, ...omittedFindings(run)]);
  const read = usage.facts();
  const facts = { ...read, usage: run.threads.threadUsage(read.usage) };
  const steps = run.steps.all();
  // The pairs of a last window the check indexed already: the window tracker's (an extended index when its steps were appends), else the context's.
  const known = (window: ContextWindow) => run.windows.knownPairs(window) ?? pairsOf(window, run.context);
  const session = sessionSummary({ format, threads: run.threads.summaries(known), tally: run.tally, steps, findings, facts, memo: run.summary });
  return {
    file,
    format,
    steps,
    findings,
    lineStarts,
    session,
    ...(run.stopped && { stopped: run.stopped }),
    ...(run.omitted.size > 0 && { omitted: Object.fromEntries([...run.omitted].map(([rule, o]) => [rule, o.count])) }),
    ...(encoding && { tokenizer: { encoding, approximate: true as const } }),
    ...(run.options.keepRewrites && run.finalWindow && { finalWindow: run.finalWindow }),
    ...(run.options.keepRewrites && run.threads.threaded && { threadWindows: run.threads.windows() }),
  };
}

/**
 * Checks one transcript. The format is detected from the content unless
 * `options.format` names it; throws `UnknownFormatError` only when there is no
 * reader for it. Bad input inside a file becomes findings.
 */
export function checkTranscript(input: CheckInput, options: CheckOptions = {}, context?: EngineContext): Report {
  return runTranscript(toInput(input), options, context).report;
}

/** Checks one transcript with a given reader (a library caller's own adapter, or a variant of a built-in one). */
export function checkTranscriptWith(adapter: FormatAdapter, input: CheckInput, options: CheckOptions = {}): Report {
  return runTranscript(toInput(input), options, undefined, adapter).report;
}

function runTranscript(source: TranscriptInput, options: CheckOptions, context?: EngineContext, reader?: FormatAdapter): { report: Report; run: Run; usage: UsageScanner } {
  const adapter = reader ?? resolveAdapter(source, options);
  const limits = resolveLimits(source.limits, options.limits);
  const run = newRun(options, limits, context);
  const usage = new UsageScanner(adapter.id);
  // A check that keeps no windows lets a request log's reader leave carried messages as first read.
  const tracked = trackLines(source, limits, usage, !options.keepRewrites);
  readAll(run, adapter, tracked, usage);
  return { report: finishRun(run, adapter, source.file, tracked.lineStarts(), usage), run, usage };
}

/** The report of a run read to its end: the unread parts said, the findings in order. */
export function finishRun(run: Run, adapter: FormatAdapter, file: string, lineStarts: readonly number[], usage: UsageScanner): Report {
  for (const f of unreadPartsFinding(run.unread, adapter.label, (offset) => lineNumber(lineStarts, offset))) report(run, f);
  return toReport(run, file, adapter.id, lineStarts, usage);
}

/** The 1-based line holding an offset, from the line starts. */
function lineNumber(lineStarts: readonly number[], offset: number): number {
  return Math.max(1, partitionPoint(lineStarts.length, (i) => (lineStarts[i] ?? 0) <= offset));
}

/**
 * Compares two snapshots of the same session: OLD's final window, with all of
 * it consumed, is the state before; NEW's final window is the proposal (a
 * `snapshot` step, appended after NEW's own steps). Findings are located in
 * NEW; related locations in OLD carry its file name.
 */
export function checkAgainst(oldInput: CheckInput, newInput: CheckInput, options: CheckOptions = {}): Report {
  const context = createEngineContext(options.tokens ?? 'o200k_base');
  const older = runTranscript(toInput(oldInput), options, context);
  const newer = runTranscript(toInput(newInput), options, context);
  const oldWindow = older.run.finalWindow && exactWindow(older.run.finalWindow);
  const newWindow = newer.run.finalWindow && exactWindow(newer.run.finalWindow);
  if (oldWindow && newWindow) {
    const before: ContextWindow = { ...oldWindow, boundary: oldWindow.messages.length };
    const range = newWindow.source ?? newWindow.messagesSource;
    const rewrite: Rewrite = { source: 'snapshot', before, after: newWindow, applied: true, ...(range && { range }) };
    onStep(newer.run, rewrite, older.report.file);
  }
  // OLD not read to its end: the comparison has not passed either.
  if (older.run.stopped && !newer.run.stopped) newer.run.stopped = { reason: `${older.report.file}: ${older.run.stopped.reason}`, offset: 0 };
  return { ...toReport(newer.run, newer.report.file, newer.report.format, newer.report.lineStarts, newer.usage) };
}
