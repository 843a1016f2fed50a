/**
 * One side of the diff: its Monaco editor, model and decorations. Decorations
 * that matter everywhere (consumed tint, boundary, orphans, pending calls, the
 * active pair, violations) are set once per step; ordinary pair colours only
 * for the visible lines, refreshed on scroll, so a 10k-message window costs no
 * more than the screen it shows.
 */
import * as monaco from './monaco';
import type { PaneSegment, PaneText, TextSplice } from '../src/shared/protocol';
import { partitionPoint } from '../src/shared/search';

const { TrackedRangeStickiness, OverviewRulerLane } = monaco.editor;

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/**
 * Replaces a model's text `old` by `text` with one edit of the part between their common start and
 * end, so Monaco re-lays out only the lines that changed (a step's windows share most of their text);
 * a text that is mostly new is set whole.
 */
export function replaceText(model: monaco.editor.ITextModel, old: string, text: string): void {
  if (old === text) return;
  const most = Math.min(old.length, text.length);
  let start = 0;
  while (start < most && old.charCodeAt(start) === text.charCodeAt(start)) start++;
  if (start > 0 && isHighSurrogate(old.charCodeAt(start - 1))) start--;
  let end = 0;
  while (end < most - start && old.charCodeAt(old.length - 1 - end) === text.charCodeAt(text.length - 1 - end)) end++;
  if (end > 0 && isHighSurrogate(old.charCodeAt(old.length - 1 - end))) end--;
  // Mostly new text (another file, an empty pane): set it whole, as Monaco expects for a new document.
  if (2 * (start + end) < Math.max(old.length, text.length)) return model.setValue(text);
  const range = monaco.Range.fromPositions(model.getPositionAt(start), model.getPositionAt(old.length - end));
  model.applyEdits([{ range, text: text.slice(start, text.length - end) }]);
}

/** A pane's text as sent: `splice` applied to `base`. */
export interface Splice {
  readonly base: string;
  readonly splice: TextSplice;
}

/** First index whose segment starts after `offset`. */
function upperBound(segments: readonly PaneSegment[], offset: number): number {
  return partitionPoint(segments.length, (i) => (segments[i]?.start ?? 0) <= offset);
}

export type Side = 'before' | 'after';

/** Decoration options with Monaco's internal `description`: 'line-class' draws a whole-line `className` on the line's overlay row. */
interface RowClassOptions extends monaco.editor.IModelDecorationOptions {
  readonly description: 'line-class';
}

/** The boundary's view zone: the object given to Monaco (it reads `afterLineNumber` from it again on `layoutZone`) and its id. */
interface BoundaryZone {
  readonly given: monaco.editor.IViewZone;
  readonly id: string;
}

export class Pane {
  private pane: PaneText | undefined;
  /** Call / result segments, sorted by start. */
  private pairSegments: PaneSegment[] = [];
  /** Each pair's segments by call id: built on the first hover or selection of the step shown, not per step. */
  private byCall: Map<string, PaneSegment[]> | undefined;
  private readonly fixed: monaco.editor.IEditorDecorationsCollection;
  private readonly visible: monaco.editor.IEditorDecorationsCollection;
  private readonly active: monaco.editor.IEditorDecorationsCollection;
  private readonly violations: monaco.editor.IEditorDecorationsCollection;
  private boundaryZone: BoundaryZone | undefined;
  private scheduled = false;
  /** The lines `visible` decorates for the step shown ("first-last"); undefined once the step changes. */
  private visibleLines: string | undefined;

  constructor(
    readonly side: Side,
    readonly editor: monaco.editor.ICodeEditor,
    readonly model: monaco.editor.ITextModel,
  ) {
    this.fixed = editor.createDecorationsCollection();
    this.visible = editor.createDecorationsCollection();
    this.active = editor.createDecorationsCollection();
    this.violations = editor.createDecorationsCollection();
    editor.onDidScrollChange(() => this.scheduleVisible());
    editor.onDidLayoutChange(() => this.scheduleVisible());
  }

  /**
   * Loads a pane's text (once per step) and its step-wide decorations. A text sent as a splice of the
   * one this pane shows is one edit of the model where the windows differ (an append step: its tail).
   */
  show(pane: PaneText, boundaryLabel: string, sent?: Splice): void {
    const previous = this.pane?.text;
    this.pairSegments = pane.segments.filter((s) => s.callId !== undefined);
    this.byCall = undefined;
    if (sent && previous === sent.base) this.model.applyEdits([{ range: this.range(sent.splice.start, sent.splice.end), text: sent.splice.text }]);
    else replaceText(this.model, previous ?? this.model.getValue(), pane.text);
    this.pane = pane;
    this.active.clear();
    this.violations.clear();
    this.visibleLines = undefined;
    this.fixed.set([...this.consumedDecorations(pane), ...this.markDecorations()]);
    this.drawBoundary(boundaryLabel);
    this.scheduleVisible();
  }

  /** 1-based line of the boundary (the last consumed line; 0 when nothing is consumed). */
  boundaryLine(): number {
    if (!this.pane || this.pane.boundaryMessages === 0) return 0;
    return this.model.getPositionAt(this.pane.boundaryOffset).lineNumber;
  }

  /** The call id of the call/result under a model position. */
  callAt(position: monaco.IPosition): string | undefined {
    const offset = this.model.getOffsetAt(position);
    const i = upperBound(this.pairSegments, offset) - 1;
    const s = this.pairSegments[i];
    return s && offset <= s.end ? s.callId : undefined;
  }

  segmentsOf(callId: string): readonly PaneSegment[] {
    if (!this.byCall) {
      this.byCall = new Map();
      for (const s of this.pairSegments) {
        const list = this.byCall.get(s.callId!) ?? [];
        list.push(s);
        this.byCall.set(s.callId!, list);
      }
    }
    return this.byCall.get(callId) ?? [];
  }

  /** Highlights a pair's members on this side (hover / selection). */
  setActive(callId: string | undefined): void {
    const segments = callId === undefined ? [] : this.segmentsOf(callId);
    this.active.set(
      segments.map((s) => ({
        range: this.range(s.start, s.end),
        options: {
          className: 'pl-pair-active',
          stickiness: TrackedRangeStickiness.NeverGrowsWhenTypingAtEdges,
          overviewRuler: { color: { id: 'focusBorder' }, position: OverviewRulerLane.Center },
        },
      })),
    );
  }

  /** The line of a pair's first member on this side. */
  callLine(callId: string): number | undefined {
    const first = this.segmentsOf(callId)[0];
    return first && this.model.getPositionAt(first.start).lineNumber;
  }

  revealCall(callId: string): void {
    const first = this.segmentsOf(callId)[0];
    if (first) this.editor.revealRangeInCenterIfOutsideViewport(this.range(first.start, first.end));
  }

  /** Marks changed spans inside the consumed prefix (from the diff's result). */
  setViolations(ranges: readonly monaco.IRange[]): void {
    this.violations.set(
      ranges.map((range) => ({
        range,
        options: {
          className: 'pl-violation',
          inlineClassName: 'pl-violation-text',
          linesDecorationsClassName: 'pl-violation-gutter',
          hoverMessage: { value: 'Changed inside the consumed prefix: the model already read these bytes.' },
          overviewRuler: { color: { id: 'editorError.foreground' }, position: OverviewRulerLane.Full },
        },
      })),
    );
  }

  range(start: number, end: number): monaco.Range {
    const from = this.model.getPositionAt(start);
    const to = this.model.getPositionAt(end);
    return new monaco.Range(from.lineNumber, from.column, to.lineNumber, to.column);
  }

  private consumedDecorations(pane: PaneText): monaco.editor.IModelDeltaDecoration[] {
    if (pane.boundaryMessages === 0) return [];
    const line = this.model.getPositionAt(pane.boundaryOffset).lineNumber;
    // One decoration, and no element of its own on each line on screen: the tint is a class of each line's overlay
    // row ('line-class', scripts/monaco-patches.js), the bar a background of its line number's element.
    const options: RowClassOptions = { description: 'line-class', isWholeLine: true, className: 'pl-consumed', lineNumberClassName: 'pl-consumed-gutter' };
    return [{ range: new monaco.Range(1, 1, line, 1), options }];
  }

  /** Orphans and pending calls: few, and they matter wherever they are. */
  private markDecorations(): monaco.editor.IModelDeltaDecoration[] {
    return this.pairSegments
      .filter((s) => s.state === 'orphan-call' || s.state === 'orphan-result' || s.state === 'pending')
      .map((s) => {
        const orphan = s.state !== 'pending';
        return {
          range: this.range(s.start, s.end),
          options: {
            className: orphan ? 'pl-orphan' : 'pl-pending',
            hoverMessage: { value: s.label ?? '' },
            after: { content: `  ${orphan ? '⚠' : '⏳'} ${s.label ?? ''}`, inlineClassName: orphan ? 'pl-orphan-label' : 'pl-pending-label' },
            overviewRuler: {
              color: { id: orphan ? 'editorError.foreground' : 'editorWarning.foreground' },
              position: OverviewRulerLane.Right,
            },
          },
        };
      });
  }

  /**
   * The boundary line: one view zone per side, moved and relabelled in place from step to step
   * (removing and adding it would rebuild its node and the editor's whitespace list each step).
   */
  private drawBoundary(label: string): void {
    const line = this.boundaryLine();
    const zone = this.boundaryZone;
    this.editor.changeViewZones((zones) => {
      if (zone && label) {
        zone.given.afterLineNumber = line;
        zone.given.domNode.firstChild!.textContent = label;
        zones.layoutZone(zone.id);
        return;
      }
      if (zone) zones.removeZone(zone.id);
      this.boundaryZone = undefined;
      if (!label) return;
      const node = document.createElement('div');
      node.className = 'pl-boundary';
      node.dataset.side = this.side;
      const text = document.createElement('span');
      text.className = 'pl-boundary-label';
      text.textContent = label;
      node.append(text);
      const given: monaco.editor.IViewZone = { afterLineNumber: line, heightInPx: 22, domNode: node, showInHiddenAreas: true };
      this.boundaryZone = { given, id: zones.addZone(given) };
    });
  }

  private scheduleVisible(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => {
      this.scheduled = false;
      this.decorateVisible();
    });
  }

  /**
   * Pair colours for the call/result segments on screen (plus a margin). The diff calls it once the
   * step is scrolled to its change, so the step's first frame has them; scrolling calls it again
   * (once per frame), and it does nothing while the same lines of the same step are on screen.
   */
  decorateVisible(): void {
    const ranges = this.editor.getVisibleRanges();
    const first = ranges[0];
    const last = ranges[ranges.length - 1];
    if (!first || !last || !this.pane) return this.visible.clear();
    const margin = 50;
    const startLine = Math.max(1, first.startLineNumber - margin);
    const endLine = Math.min(this.model.getLineCount(), last.endLineNumber + margin);
    const lines = `${startLine}-${endLine}`;
    if (lines === this.visibleLines) return;
    this.visibleLines = lines;
    const from = this.model.getOffsetAt({ lineNumber: startLine, column: 1 });
    const to = this.model.getOffsetAt({ lineNumber: endLine, column: this.model.getLineMaxColumn(endLine) });
    const decorations: monaco.editor.IModelDeltaDecoration[] = [];
    for (let i = Math.max(0, upperBound(this.pairSegments, from) - 1); i < this.pairSegments.length; i++) {
      const s = this.pairSegments[i]!;
      if (s.start > to) break;
      if (s.end < from) continue;
      const kind = s.role === 'result' ? 'pl-result' : 'pl-call';
      // The bar is a class of the line number's element (one element per line, not one more per pair): a
      // display line holds one call or result, so no two pairs' bars share a line.
      decorations.push({
        range: this.range(s.start, s.end),
        options: { inlineClassName: `pl-pair pl-c${s.colour ?? 0} ${kind}`, lineNumberClassName: `pl-pair-gutter pl-c${s.colour ?? 0}` },
      });
    }
    this.visible.set(decorations);
  }
}
