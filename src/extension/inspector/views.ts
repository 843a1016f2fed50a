/**
 * Report + selected step → the inspector's protocol views. Pure (no
 * `vscode` import) so it is unit-testable: the engine functions are passed in.
 *
 * Each pane's text is the engine's rendered window with a line break inserted
 * before every tool, message and block, so the diff works line by line on a
 * window that renders as one long line of compact JSON. All offsets sent to
 * the webview are offsets into that display text.
 */
import type {
  FindingView,
  FixPreview,
  PaneSegment,
  PaneSplice,
  PaneText,
  SegmentSplice,
  StepEdit,
  TextSplice,
  TranscriptView,
  StepDetail,
  StepSummary,
} from '../../shared/protocol';
import { movedSegment, PROTOCOL_VERSION } from '../../shared/protocol';
import { alignMessages, type ContextWindow, type Finding, type FixPlan, LineIndex, pairKey, pairStates, type PairState, type RenderedWindow, type Report, type Rewrite, SAME, shownThread, type StepReport } from '../engine';
import { partitionPoint } from '../../shared/search';

/** The engine functions the views need (from `src/core`). */
export interface InspectorEngine {
  renderWindow(window: ContextWindow): RenderedWindow;
  /** Present once the engine exposes its fix planner. */
  planFix?(rewrite: Rewrite, sourceText: string): FixPlan | undefined;
}

/** `engine` whose fix plans are written to a repaired copy (a request log, a growing file): their title says so. */
export function fixToCopy(engine: InspectorEngine): InspectorEngine {
  const plan = engine.planFix;
  if (!plan) return engine;
  const planFix = (rewrite: Rewrite, sourceText: string) => {
    const fix = plan(rewrite, sourceText);
    return fix && { ...fix, title: `${fix.title} in a repaired copy` };
  };
  return { ...engine, planFix };
}

/** Window-level findings listed in a transcript view at most. */
export const FINDINGS_CAP = 500;

/** Rendered text with display line breaks, and the mapping of render offsets into it. */
export interface DisplayText {
  readonly text: string;
  /** Render offsets before which a line break was inserted, ascending, distinct. */
  readonly breaks: readonly number[];
}

/** Inserts a line break before every segment start (except at offset 0). */
export function displayText(rendered: RenderedWindow): DisplayText {
  const breaks = [...new Set(rendered.segments.map((s) => s.start))].filter((o) => o > 0).sort((a, b) => a - b);
  const parts: string[] = [];
  let last = 0;
  for (const at of breaks) {
    parts.push(rendered.text.slice(last, at));
    last = at;
  }
  parts.push(rendered.text.slice(last));
  return { text: parts.join('\n'), breaks };
}

/** Number of breaks strictly before `offset` (`inclusive`: at or before). */
function breaksBefore(breaks: readonly number[], offset: number, inclusive: boolean): number {
  return partitionPoint(breaks.length, (i) => {
    const at = breaks[i] ?? 0;
    return at < offset || (inclusive && at === offset);
  });
}

/** A character's display offset (a segment start moves past its line break). */
export function displayStart(display: DisplayText, offset: number): number {
  return offset + breaksBefore(display.breaks, offset, true);
}

/** A position between characters, kept before a line break inserted there (ends, the boundary). */
export function displayEnd(display: DisplayText, offset: number): number {
  return offset + breaksBefore(display.breaks, offset, false);
}

/** What the inspector says next to a call or result whose partner is missing or awaited. */
function pairLabel(state: PairState, id: string): string | undefined {
  if (state === 'pending') return `pending: no result for ${id} yet`;
  if (state === 'orphan-call') return `orphan: call ${id} has no result`;
  if (state === 'orphan-result') return `orphan: result ${id} has no call`;
  return undefined;
}

/**
 * Assigns palette colours to call ids, shared by both sides: a hash of the id (FNV-1a), so a pair
 * keeps its colour from step to step (and a step's panes are sent as splices of the previous step's).
 */
export class PairColours {
  constructor(private readonly size = 8) {}
  of(id: string): number {
    let hash = 0x811c9dc5;
    for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
    return (hash >>> 0) % this.size;
  }
}

/** Renders one window into a pane. */
export function paneText(
  window: ContextWindow,
  engine: InspectorEngine,
  colours: PairColours,
  boundaryTokens?: number,
): PaneText {
  return renderPane(window, engine, colours, boundaryTokens).pane;
}

/**
 * Where a pane's tools and messages lie in its display text, kept by the host for the step it
 * showed last: the next step's panes are sent as splices of it (`paneSplice`).
 */
export interface PaneLayout {
  readonly text: string;
  readonly tools: readonly string[];
  readonly messages: readonly string[];
  /** Display offsets of each message's first character and just past its last. */
  readonly starts: readonly number[];
  readonly ends: readonly number[];
}

function paneLayout(rendered: RenderedWindow, display: DisplayText): PaneLayout {
  const tools: string[] = [];
  const messages: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  for (const s of rendered.segments) {
    if (s.kind === 'tool') tools.push(rendered.text.slice(s.start, s.end));
    if (s.kind !== 'message') continue;
    messages.push(rendered.text.slice(s.start, s.end));
    starts.push(displayStart(display, s.start));
    ends.push(displayEnd(display, s.end));
  }
  return { text: display.text, tools, messages, starts, ends };
}

/** How many messages the two layouts start and end with alike, by the engine's alignment of their messages. */
function commonMessages(shown: PaneLayout, next: PaneLayout): { head: number; tail: number } {
  const alignment = alignMessages(shown.messages, next.messages);
  const same = (i: number, j: number) => alignment.afterOrigin[i] === j && alignment.afterKind[i] === SAME;
  const sameToolTexts = shown.tools.length === next.tools.length && shown.tools.every((t, i) => t === next.tools[i]);
  let head = 0;
  if (sameToolTexts) while (head < next.messages.length && same(head, head)) head++;
  const most = Math.min(shown.messages.length, next.messages.length) - head;
  let tail = 0;
  while (tail < most && same(next.messages.length - 1 - tail, shown.messages.length - 1 - tail)) tail++;
  return { head, tail };
}

/**
 * The splice turning pane text `shown` into `next`: the messages both start and end with are kept
 * (an append step keeps all of the shown window and adds its tail), the rest is sent.
 */
function paneSplice(shown: PaneLayout, next: PaneLayout): TextSplice {
  const { head, tail } = commonMessages(shown, next);
  const start = head === 0 ? 0 : shown.ends[head - 1]!;
  const shownEnd = tail === 0 ? shown.text.length : shown.starts[shown.messages.length - tail]!;
  const nextEnd = tail === 0 ? next.text.length : next.starts[next.messages.length - tail]!;
  const aligned = (head === 0 || next.ends[head - 1] === start) && shown.text.length - shownEnd === next.text.length - nextEnd;
  if (!aligned || start > shownEnd || start > nextEnd) return { start: 0, end: shown.text.length, text: next.text };
  return { start, end: shownEnd, text: next.text.slice(start, nextEnd) };
}

function renderPane(
  window: ContextWindow,
  engine: InspectorEngine,
  colours: PairColours,
  boundaryTokens?: number,
): { pane: PaneText; display: DisplayText; layout: PaneLayout } {
  const rendered = engine.renderWindow(window);
  const display = displayText(rendered);
  const states = pairStates(window);
  const segments: PaneSegment[] = [];
  for (const s of rendered.segments) {
    if (s.callId === undefined || s.message === undefined || s.block === undefined) continue;
    const block = window.messages[s.message]?.blocks[s.block];
    const role = block?.kind === 'tool_result' ? 'result' : 'call';
    const state = states.get(pairKey(s.callId, s.message, s.block)) ?? 'paired';
    const label = pairLabel(state, s.callId);
    segments.push({
      start: displayStart(display, s.start),
      end: displayEnd(display, s.end),
      message: s.message,
      callId: s.callId,
      role,
      colour: colours.of(s.callId),
      state,
      ...(label ? { label } : {}),
    });
  }
  segments.sort((a, b) => a.start - b.start);
  const pane = {
    text: display.text,
    boundaryOffset: displayEnd(display, rendered.boundaryOffset),
    boundaryMessages: Math.max(0, Math.min(window.boundary, window.messages.length)),
    ...(boundaryTokens === undefined ? {} : { boundaryTokens }),
    messageCount: window.messages.length,
    segments,
  };
  return { pane, display, layout: paneLayout(rendered, display) };
}

export function findingView(f: Finding, lines: LineIndex): FindingView {
  const { line, column } = lines.position(f.range.start);
  return {
    rule: f.rule,
    severity: f.severity,
    message: f.message,
    range: { start: f.range.start, end: f.range.end },
    line,
    column,
    ...(f.step === undefined ? {} : { step: f.step }),
    ...(f.toolCallId === undefined ? {} : { toolCallId: f.toolCallId }),
  };
}

/** A step as the webview shows it; `steps` (the report's) tell whether its thread is shown. */
export function stepSummary(step: StepReport, steps: readonly StepReport[]): StepSummary {
  const thread = shownThread(steps, step);
  return {
    index: step.index,
    decision: step.decision,
    source: step.source,
    untrusted: step.source === 'self_edit',
    applied: step.applied,
    rules: [...step.rules],
    cacheImpact: {
      consumedTokens: step.cacheImpact.consumedTokens,
      invalidatedTokens: step.cacheImpact.invalidatedTokens,
    },
    ...(thread === undefined ? {} : { thread }),
  };
}

function fixPreview(
  step: StepReport,
  engine: InspectorEngine,
  colours: PairColours,
  sourceText: string | undefined,
): FixPreview | undefined {
  if (step.decision !== 'abort' || !step.rewrite || !engine.planFix || sourceText === undefined) return undefined;
  const plan = engine.planFix(step.rewrite, sourceText);
  if (!plan) return undefined;
  return {
    title: plan.title,
    description: plan.description,
    decision: plan.verdict.decision,
    after: paneText(plan.window, engine, colours),
  };
}

/** A step's detail and, when it has a rewrite, the layouts of its two panes (for the next step's splices). */
export interface RenderedStep {
  readonly detail: StepDetail;
  readonly layouts?: { readonly before: PaneLayout; readonly after: PaneLayout };
}

/** The current step's diff, banner and findings, with its panes' layouts. */
export function renderStep(report: Report, index: number, engine: InspectorEngine, sourceText?: string): RenderedStep | undefined {
  const step = report.steps.find((s) => s.index === index);
  if (!step) return undefined;
  const lines = LineIndex.fromStarts(report.lineStarts);
  const findings = report.findings.filter((f) => f.step === index).map((f) => findingView(f, lines));
  const empty: PaneText = { text: '', boundaryOffset: 0, boundaryMessages: 0, messageCount: 0, segments: [] };
  if (!step.rewrite) {
    const unavailable = 'The report kept no rewrite for this step (checked without keepRewrites).';
    return { detail: { step: stepSummary(step, report.steps), before: empty, after: empty, findings, unavailable } };
  }
  const colours = new PairColours();
  const before = renderPane(step.rewrite.before, engine, colours, step.boundary.tokens);
  const after = renderPane(step.rewrite.after, engine, colours);
  const fix = fixPreview(step, engine, colours, sourceText);
  const breakOffset = step.cacheImpact.breakOffset;
  const changed = paneSplice(before.layout, after.layout);
  const detail: StepDetail = {
    step: stepSummary(step, report.steps),
    before: before.pane,
    after: after.pane,
    ...(breakOffset === undefined ? {} : { breakOffset: displayStart(before.display, breakOffset) }),
    changed: { start: changed.start, beforeEnd: changed.end, afterEnd: changed.start + changed.text.length },
    findings,
    ...(fix ? { fix } : {}),
  };
  return { detail, layouts: { before: before.layout, after: after.layout } };
}

const sameSegment = (a: PaneSegment | undefined, b: PaneSegment | undefined) =>
  a !== undefined &&
  b !== undefined &&
  a.start === b.start &&
  a.end === b.end &&
  a.message === b.message &&
  a.callId === b.callId &&
  a.role === b.role &&
  a.colour === b.colour &&
  a.state === b.state &&
  a.label === b.label;

/** `next`'s segments as the ones `shown` starts and ends with (the ends moved) and the rest. */
function segmentSplice(shown: PaneText, next: PaneText): SegmentSplice {
  const before = shown.segments;
  const after = next.segments;
  const most = Math.min(before.length, after.length);
  let keepHead = 0;
  while (keepHead < most && sameSegment(before[keepHead], after[keepHead])) keepHead++;
  const offset = next.text.length - shown.text.length;
  const messages = next.messageCount - shown.messageCount;
  let keepTail = 0;
  const moved = (i: number) => movedSegment(before[before.length - 1 - i]!, offset, messages);
  while (keepTail < most - keepHead && sameSegment(moved(keepTail), after[after.length - 1 - keepTail])) keepTail++;
  return { keepHead, keepTail, insert: after.slice(keepHead, after.length - keepTail) };
}

function paneSplices(shownPane: PaneText, pane: PaneText, shown: PaneLayout, next: PaneLayout): PaneSplice {
  const { text, segments: _segments, ...rest } = pane;
  return { ...rest, splice: paneSplice(shown, next), length: text.length, segments: segmentSplice(shownPane, pane) };
}

/** Step `to` as splices of step `from`'s pane texts; undefined when either has no rewrite (then it is sent whole). */
export function stepEdit(from: RenderedStep, to: RenderedStep): StepEdit | undefined {
  if (!from.layouts || !to.layouts) return undefined;
  const { before, after, ...rest } = to.detail;
  return {
    type: 'stepEdit',
    selected: to.detail.step.index,
    from: from.detail.step.index,
    detail: {
      ...rest,
      before: paneSplices(from.detail.before, before, from.layouts.before, to.layouts.before),
      after: paneSplices(from.detail.after, after, from.layouts.after, to.layouts.after),
    },
  };
}

/** The step to show: the requested one if it exists, else the first non-patch step, else the first. */
export function chooseStep(report: Report, ...wanted: (number | undefined)[]): number | undefined {
  for (const w of wanted) if (w !== undefined && report.steps.some((s) => s.index === w)) return w;
  return (report.steps.find((s) => s.decision !== 'patch') ?? report.steps[0])?.index;
}

/** The full transcript view answering `ready` and every report change. */
export function transcriptView(
  report: Report,
  selected: number | undefined,
  engine: InspectorEngine,
  sourceText?: string,
  rendered?: RenderedStep,
): TranscriptView {
  const windowLevel = report.findings.filter((f) => f.step === undefined);
  const lines = LineIndex.fromStarts(report.lineStarts);
  const index = chooseStep(report, selected);
  const detail = index === undefined ? undefined : rendered?.detail.step.index === index ? rendered.detail : renderStep(report, index, engine, sourceText)?.detail;
  return {
    protocol: PROTOCOL_VERSION,
    file: report.file,
    format: report.format,
    ...(report.tokenizer ? { tokenizer: `${report.tokenizer.encoding} (approximate)` } : {}),
    steps: report.steps.map((s) => stepSummary(s, report.steps)),
    windowFindings: windowLevel.slice(0, FINDINGS_CAP).map((f) => findingView(f, lines)),
    findingsTotal: windowLevel.length,
    ...(index === undefined ? {} : { selected: index }),
    ...(detail ? { detail } : {}),
    ...(!detail && report.finalWindow ? { pairs: paneText(report.finalWindow, engine, new PairColours()).segments } : {}),
  };
}
