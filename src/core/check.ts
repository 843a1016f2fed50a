/**
 * Checking a whole transcript: read it with its format adapter, run the window
 * checks on every window, judge every rewrite step, and collect one report.
 * Also compares two snapshots of the same session (`checkAgainst`).
 */
import type { CheckOptions, Report, StepReport } from './results';
import { createEngineContext, type EngineContext } from './context';
import { finding, findingKey, identityKeys, type Finding, type StepVerdict } from './findings';
import { adapterFor, detectFormat } from './formats/registry';
import { boundaryPosition, byPosition, judgeRewrite, windowFindings } from './guard';
import { headOf, inputFromText } from './io';
import type { ContextWindow, FormatId, Rewrite } from './model';
import { LineIndex } from './text';
import type { FormatAdapter, TranscriptEvent, TranscriptInput } from './transcript';

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

function toInput(input: CheckInput): TranscriptInput {
  return 'lines' in input && typeof input.lines === 'function' ? input : inputFromText(input.file, (input as { text: string }).text);
}

function resolveAdapter(input: TranscriptInput, options: CheckOptions): FormatAdapter {
  if (options.format) {
    const adapter = adapterFor(options.format);
    if (!adapter) throw new UnknownFormatError(input.file, `No reader for format "${options.format}"`);
    return adapter;
  }
  const adapter = detectFormat(headOf(input));
  if (!adapter) throw new UnknownFormatError(input.file, 'Format not recognised (use --format to name it)');
  return adapter;
}

/** A check in progress: what has been found so far. */
interface Run {
  readonly context: EngineContext;
  readonly options: CheckOptions;
  readonly steps: StepReport[];
  readonly findings: Finding[];
  /** The `findingKey` of every finding reported, to report each once. */
  readonly reported: Set<string>;
  /** Identities of the previous window's findings: a finding that persists is not reported again. */
  previousWindow: Set<string>;
  finalWindow?: ContextWindow;
}

function report(run: Run, f: Finding): void {
  const key = findingKey(f);
  if (run.reported.has(key)) return;
  run.reported.add(key);
  run.findings.push(f);
}

function onWindow(run: Run, window: ContextWindow): void {
  const findings = windowFindings(window, run.context);
  const keys = identityKeys(findings);
  findings.forEach((f, i) => {
    if (!run.previousWindow.has(keys[i] ?? '')) report(run, f);
  });
  run.previousWindow = new Set(keys);
  run.finalWindow = window;
}

function onStep(run: Run, rewrite: Rewrite, beforeFile?: string): StepVerdict {
  const index = run.steps.length + 1;
  const verdict = judgeRewrite(rewrite, { context: run.context, ...(beforeFile !== undefined && { beforeFile }) });
  for (const f of verdict.findings) report(run, { ...f, step: index });
  run.steps.push({
    index,
    decision: verdict.decision,
    source: rewrite.source,
    applied: rewrite.applied,
    rules: [...new Set(verdict.findings.map((f) => f.rule))],
    ...(rewrite.range && { range: rewrite.range }),
    boundary: boundaryPosition(rewrite.before, run.context),
    cacheImpact: verdict.cacheImpact,
    ...(run.options.keepRewrites && { rewrite }),
  });
  return verdict;
}

function onEvent(run: Run, event: TranscriptEvent): void {
  if (event.kind === 'finding') report(run, event.finding);
  else if (event.kind === 'step') onStep(run, event.rewrite);
  else onWindow(run, event.window);
}

/** Wraps an input so the line starts the adapter reads are recorded for the report. */
function trackLines(input: TranscriptInput): { input: TranscriptInput; lineStarts(): readonly number[] } {
  const index = new LineIndex();
  let text: string | undefined;
  let sawLines = false;
  const tracked: TranscriptInput = {
    file: input.file,
    *lines() {
      sawLines = true;
      for (const line of input.lines()) {
        index.addLineStart(line.offset);
        yield line;
      }
    },
    text: () => (text ??= input.text()),
    bytes: () => input.bytes(),
  };
  const lineStarts = () => (text !== undefined || !sawLines ? LineIndex.of(tracked.text()).lineStarts() : index.lineStarts());
  return { input: tracked, lineStarts };
}

function newRun(options: CheckOptions, context?: EngineContext): Run {
  return {
    context: context ?? createEngineContext(options.tokens ?? 'o200k_base'),
    options,
    steps: [],
    findings: [],
    reported: new Set(),
    previousWindow: new Set(),
  };
}

function readAll(run: Run, adapter: FormatAdapter, input: TranscriptInput): void {
  try {
    for (const event of adapter.read(input)) onEvent(run, event);
  } catch (error) {
    // Adapters never throw on bad input; if one does anyway, say so rather than crash.
    report(run, finding('record-skipped', { start: 0, end: 0 }, `The ${adapter.label} reader stopped: ${error instanceof Error ? error.message : String(error)}`));
  }
}

function toReport(run: Run, file: string, format: FormatId, lineStarts: readonly number[]): Report {
  const encoding = run.context.tokens?.encoding;
  return {
    file,
    format,
    steps: run.steps,
    findings: byPosition(run.findings),
    lineStarts,
    ...(encoding && { tokenizer: { encoding, approximate: true as const } }),
    ...(run.options.keepRewrites && run.finalWindow && { finalWindow: run.finalWindow }),
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

function runTranscript(source: TranscriptInput, options: CheckOptions, context?: EngineContext, reader?: FormatAdapter): { report: Report; run: Run } {
  const adapter = reader ?? resolveAdapter(source, options);
  const run = newRun(options, context);
  const tracked = trackLines(source);
  readAll(run, adapter, tracked.input);
  return { report: toReport(run, source.file, adapter.id, tracked.lineStarts()), run };
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
  const oldWindow = older.run.finalWindow;
  const newWindow = newer.run.finalWindow;
  if (oldWindow && newWindow) {
    const before: ContextWindow = { ...oldWindow, boundary: oldWindow.messages.length };
    const range = newWindow.source ?? newWindow.messagesSource;
    const rewrite: Rewrite = { source: 'snapshot', before, after: newWindow, applied: true, ...(range && { range }) };
    onStep(newer.run, rewrite, older.report.file);
  }
  return { ...toReport(newer.run, newer.report.file, newer.report.format, newer.report.lineStarts) };
}
