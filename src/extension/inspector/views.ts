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
  PaneText,
  TranscriptView,
  StepDetail,
  StepSummary,
} from '../../shared/protocol';
import { PROTOCOL_VERSION } from '../../shared/protocol';
import { type ContextWindow, type Finding, type FixPlan, LineIndex, pairKey, pairStates, type PairState, type RenderedWindow, type Report, type Rewrite, shownThread, type StepReport } from '../engine';
import { partitionPoint } from '../../shared/search';

/** The engine functions the views need (from `src/core`). */
export interface InspectorEngine {
  renderWindow(window: ContextWindow): RenderedWindow;
  /** Present once the engine exposes its fix planner. */
  planFix?(rewrite: Rewrite, sourceText: string): FixPlan | undefined;
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

/** Assigns palette colours to call ids in order of first appearance, shared by both sides. */
export class PairColours {
  private readonly colours = new Map<string, number>();
  constructor(private readonly size = 8) {}
  of(id: string): number {
    let colour = this.colours.get(id);
    if (colour === undefined) this.colours.set(id, (colour = this.colours.size % this.size));
    return colour;
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

function renderPane(
  window: ContextWindow,
  engine: InspectorEngine,
  colours: PairColours,
  boundaryTokens?: number,
): { pane: PaneText; display: DisplayText } {
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
  return { pane, display };
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

/** The current step's diff, banner and findings. */
export function stepDetail(
  report: Report,
  index: number,
  engine: InspectorEngine,
  sourceText?: string,
): StepDetail | undefined {
  const step = report.steps.find((s) => s.index === index);
  if (!step) return undefined;
  const findings = report.findings.filter((f) => f.step === index).map((f) => findingView(f, LineIndex.fromStarts(report.lineStarts)));
  const empty: PaneText = { text: '', boundaryOffset: 0, boundaryMessages: 0, messageCount: 0, segments: [] };
  if (!step.rewrite) {
    const unavailable = 'The report kept no rewrite for this step (checked without keepRewrites).';
    return { step: stepSummary(step, report.steps), before: empty, after: empty, findings, unavailable };
  }
  const colours = new PairColours();
  const { pane: before, display } = renderPane(step.rewrite.before, engine, colours, step.boundary.tokens);
  const after = paneText(step.rewrite.after, engine, colours);
  const fix = fixPreview(step, engine, colours, sourceText);
  const breakOffset = step.cacheImpact.breakOffset;
  return {
    step: stepSummary(step, report.steps),
    before,
    after,
    ...(breakOffset === undefined ? {} : { breakOffset: displayStart(display, breakOffset) }),
    findings,
    ...(fix ? { fix } : {}),
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
): TranscriptView {
  const windowLevel = report.findings.filter((f) => f.step === undefined);
  const lines = LineIndex.fromStarts(report.lineStarts);
  const index = chooseStep(report, selected);
  const detail = index === undefined ? undefined : stepDetail(report, index, engine, sourceText);
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
