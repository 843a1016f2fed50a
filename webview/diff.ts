/**
 * The read-only Monaco diff editor: left the consumed prefix as the model saw
 * it, right the proposed rewrite (or the planned fix). Links tool pairs across
 * both sides on hover / click and marks the diff's changes that fall inside the
 * consumed prefix as violations.
 */
import * as monaco from './monaco';
import type { PaneText, StepDetail } from '../src/shared/protocol';
import { number } from './components';
import { DIFF_PROVIDERS, type KnownEnds, type LocalDiffProvider } from './diff-provider';
import { Folds, LongLines } from './fold';
import { Pane, type Splice } from './pane';
import { editorFont, THEME } from './theme';

/** How each side's text was sent: as a splice of the text shown before. */
export interface Splices {
  readonly before: Splice;
  readonly after: Splice;
}

export interface DiffContent {
  readonly before: PaneText;
  readonly after: PaneText;
  readonly beforeLabel: string;
  readonly afterLabel: string;
  readonly splices?: Splices;
  /** Where the two texts differ (`StepDetail.changed`), when the right side is the step's own. */
  readonly changed?: StepDetail['changed'];
}

/** What the diff shows of a step: its two windows (or the fix preview on the right) and their boundary labels. */
export function stepContent(detail: StepDetail, previewing: boolean, splices?: Splices): DiffContent {
  const after = previewing && detail.fix ? detail.fix.after : detail.after;
  const tokens = detail.before.boundaryTokens;
  const tokenText = tokens === undefined ? '' : ` · token ${number(tokens)}`;
  return {
    ...(splices ? { splices } : {}),
    ...(detail.changed && !previewing ? { changed: detail.changed } : {}),
    before: detail.before,
    after,
    beforeLabel: `▲ consumed · generation boundary after message ${detail.before.boundaryMessages}${tokenText} · ▼ not yet read`,
    afterLabel: `▲ consumed · boundary after message ${after.boundaryMessages} of ${after.messageCount} · ▼ not yet read`,
  };
}

/** The rendered bytes' language: plain text without brackets, so no whole-model bracket parse. */
const LANGUAGE = 'prefix-lens-rendered';

function renderedModel(): monaco.editor.ITextModel {
  if (!monaco.languages.getLanguages().some((l) => l.id === LANGUAGE)) {
    monaco.languages.register({ id: LANGUAGE });
    monaco.languages.setLanguageConfiguration(LANGUAGE, { brackets: [], colorizedBracketPairs: [], autoClosingPairs: [] });
  }
  const model = monaco.editor.createModel('', LANGUAGE);
  model.updateOptions({ bracketColorizationOptions: { enabled: false, independentColorPoolPerBracketType: false } });
  return model;
}

/** Below this width the diff is shown inline. */
export const NARROW_PX = 640;

export class DiffView {
  private readonly diff: monaco.editor.IStandaloneDiffEditor;
  private readonly provider: LocalDiffProvider;
  readonly before: Pane;
  readonly after: Pane;
  private readonly folds: Folds;
  private readonly longLines = new LongLines();
  private hovered: string | undefined;
  private pinned: string | undefined;
  /** Counts shows and clears: a diff computed for an older show marks and folds nothing. */
  private generation = 0;
  /** The panel's width, kept by a ResizeObserver: reading it per step would force a layout mid-step. */
  private width: number;
  /**
   * True from a step's reveal until the user scrolls, clicks or types in the diff: the editors are laid
   * out after the step's banner (automatic layout, a frame later), so the change centred in the old
   * height is revealed again in the new one.
   */
  private revealing = false;
  /**
   * True for the diff on screen (`DiffStack` lays the next step out in a hidden one): only it writes
   * the body's data attributes the tests and the bench read.
   */
  private onScreen = true;
  private violationCount = 0;
  private foldCount = 0;

  constructor(readonly container: HTMLElement) {
    this.width = container.clientWidth;
    new ResizeObserver(([entry]) => (this.width = entry?.contentRect.width ?? this.width)).observe(container);
    const font = editorFont();
    this.diff = monaco.editor.createDiffEditor(container, {
      theme: THEME,
      readOnly: true,
      originalEditable: false,
      automaticLayout: true,
      renderSideBySide: true,
      // A narrow panel (a 400 px split) gets one inline column, not two unreadable halves.
      useInlineViewWhenSpaceIsLimited: true,
      renderSideBySideInlineBreakpoint: NARROW_PX,
      enableSplitViewResizing: true,
      ignoreTrimWhitespace: false,
      renderIndicators: true,
      // No 3 px bar where the other side inserted text: its place is read from the DOM after the frame wrote
      // its lines, a forced layout in every step's frame (the inserted lines and the filler zone show the change).
      experimental: { showEmptyDecorations: false },
      diffAlgorithm: 'advanced',
      maxComputationTime: 5000,
      maxFileSize: 200,
      wordWrap: 'on',
      wrappingStrategy: 'simple',
      minimap: { enabled: false },
      scrollBeyondLastLine: true,
      renderControlCharacters: true,
      unicodeHighlight: { invisibleCharacters: true, ambiguousCharacters: false, nonBasicASCII: false },
      stopRenderingLineAfter: 20_000,
      links: false,
      contextmenu: false,
      // Whole-model analyses a 10k-message window cannot afford, and a plain-text diff does not need.
      bracketPairColorization: { enabled: false },
      guides: { bracketPairs: false, indentation: false, highlightActiveIndentation: false },
      matchBrackets: 'never',
      occurrencesHighlight: 'off',
      selectionHighlight: false,
      folding: false,
      renderGutterMenu: false,
      editContext: false,
      fontFamily: font.fontFamily,
      fontSize: font.fontSize,
      ariaLabel: 'Consumed prefix (left) and proposed rewrite (right)',
    });
    const original = renderedModel();
    const modified = renderedModel();
    this.diff.setModel({ original, modified });
    this.provider = DIFF_PROVIDERS.claim();
    this.before = new Pane('before', this.diff.getOriginalEditor(), original);
    this.after = new Pane('after', this.diff.getModifiedEditor(), modified);
    for (const pane of [this.before, this.after]) this.linkPairs(pane);
    this.folds = new Folds(this.before.editor, this.after.editor, (count) => {
      this.foldCount = count;
      this.publish();
    });
    this.revealAgainOnLayout(container);
  }

  /** A layout change of either editor while `revealing` reveals the step's first change again. */
  private revealAgainOnLayout(container: HTMLElement): void {
    for (const pane of [this.before, this.after]) {
      // In the next frame: the editor wraps its lines again for the new layout first.
      pane.editor.onDidLayoutChange(() => requestAnimationFrame(() => this.revealing && this.revealFirstChange()));
      pane.editor.onKeyDown(() => (this.revealing = false));
    }
    for (const type of ['wheel', 'mousedown', 'touchstart'] as const) container.addEventListener(type, () => (this.revealing = false), { capture: true, passive: true });
  }

  /**
   * Shows a step's two windows; resolves once the diff is computed and violations are marked, true
   * unless another show or a clear came first. `from`: the scroll positions to open the step from
   * (another diff's, [left, right]), before it is revealed; else where this diff is.
   */
  async show(content: DiffContent, from?: readonly [number, number]): Promise<boolean> {
    const computed = this.nextDiff();
    const generation = ++this.generation;
    this.hovered = this.pinned = undefined;
    this.before.show(content.before, content.beforeLabel, content.splices?.before);
    this.after.show(content.after, content.afterLabel, content.splices?.after);
    this.provider.recompute(this.knownEnds(content.changed));
    await computed;
    if (generation !== this.generation) return false;
    // Once the diff's zones are in place, as they were in the diff scrolled there (the text above is the same).
    if (from) this.scrollTo(from);
    // One decorations event per side for the violations and the pair colours on screen, not one per
    // collection: each makes the editor re-check every line on screen.
    deferDecorationEvents(this.before.model, () =>
      deferDecorationEvents(this.after.model, () => {
        this.markViolations(content.before);
        this.folds.apply(this.diff.getLineChanges() ?? [], this.longLines.of(content.before.text, this.before.model, content.splices?.before));
        this.revealFirstChange();
        this.revealing = true;
        for (const pane of [this.before, this.after]) pane.decorateVisible();
      }),
    );
    return true;
  }

  /** The equal lines at both models' start and end, from where the host says the texts differ. */
  private knownEnds(changed: DiffContent['changed']): KnownEnds | undefined {
    if (!changed) return undefined;
    const original = this.before.model;
    const modified = this.after.model;
    const head = original.getPositionAt(changed.start).lineNumber - 1;
    const tail = original.getLineCount() - original.getPositionAt(changed.beforeEnd).lineNumber;
    const consistent = modified.getPositionAt(changed.start).lineNumber - 1 === head && modified.getLineCount() - modified.getPositionAt(changed.afterEnd).lineNumber === tail;
    return consistent ? { head, tail, versions: [original.getVersionId(), modified.getVersionId()] } : undefined;
  }

  /**
   * Opens a step where it matters: its first change, else the boundary (on the side that is shown).
   * A change already wholly on screen on both sides (the next append of a log shown at its end) is
   * not scrolled to: a scroll moves every line on screen and costs the step's frame a full redraw.
   */
  private revealFirstChange(): void {
    const first = this.diff.getLineChanges()?.[0];
    const inline = this.isInline();
    if (!first) {
      const pane = inline ? this.after : this.before;
      pane.editor.revealLineInCenter(Math.max(1, pane.boundaryLine()));
      return;
    }
    const shown = (editor: monaco.editor.ICodeEditor, start: number, end: number) => {
      const ranges = editor.getVisibleRanges();
      return ranges.length > 0 && ranges[0]!.startLineNumber <= Math.max(1, start) && Math.max(start, end) <= ranges[ranges.length - 1]!.endLineNumber;
    };
    // Inline, lines the step dropped are a zone below the line before them: on screen when the line after the zone is.
    const inlineDeletion = inline && first.modifiedEndLineNumber === 0;
    const modifiedEnd = inlineDeletion ? first.modifiedStartLineNumber + 1 : first.modifiedEndLineNumber;
    const onScreen = shown(this.after.editor, first.modifiedStartLineNumber, modifiedEnd) && (inline || shown(this.before.editor, first.originalStartLineNumber, first.originalEndLineNumber));
    if (onScreen) return;
    if (!inline && (first.modifiedEndLineNumber === 0 || first.originalEndLineNumber !== 0)) {
      this.before.editor.revealLineInCenter(Math.max(1, first.originalStartLineNumber));
    } else if (inlineDeletion) {
      // The line before the dropped lines at the top (no padding above it), so the zone of dropped lines below it fits.
      const editor = this.after.editor;
      editor.setScrollTop(editor.getTopForLineNumber(Math.max(1, first.modifiedStartLineNumber)));
    } else this.after.editor.revealLineInCenter(Math.max(1, first.modifiedStartLineNumber));
  }

  /** True when the panel is too narrow for two columns and Monaco shows the diff inline. */
  isInline(): boolean {
    return this.width < NARROW_PX;
  }

  /** Shows nothing (a transcript without steps, or no transcript). */
  clear(): void {
    this.generation++;
    this.revealing = false;
    this.hovered = this.pinned = undefined;
    this.folds.reset();
    this.longLines.reset();
    const empty: PaneText = { text: '', boundaryOffset: 0, boundaryMessages: 0, messageCount: 0, segments: [] };
    this.before.show(empty, '');
    this.after.show(empty, '');
    this.before.setViolations([]);
    this.violationCount = 0;
    this.publish();
  }

  /** Puts this diff on screen or off it (`DiffStack`); on screen, its counts go to the body's data attributes. */
  setOnScreen(onScreen: boolean): void {
    this.onScreen = onScreen;
    this.publish();
  }

  /** The body's data attributes for the diff on screen: its violations and folds. */
  private publish(): void {
    if (!this.onScreen) return;
    const data = document.body.dataset;
    data.violations = String(this.violationCount);
    data.folds = String(this.foldCount);
  }

  /** Both editors' scroll positions, [left, right]. */
  scrollTops(): [number, number] {
    return [this.before.editor.getScrollTop(), this.after.editor.getScrollTop()];
  }

  /** Scrolls both editors to `tops` ([left, right]), as another diff of the same size shows its step. */
  scrollTo(tops: readonly [number, number]): void {
    this.before.editor.setScrollTop(tops[0]);
    this.after.editor.setScrollTop(tops[1]);
  }

  /** Selects a pair (from the pairs list): highlights and reveals it on both sides. */
  selectPair(callId: string | undefined): void {
    this.pinned = callId;
    this.highlight();
    if (!callId) return;
    this.revealing = false;
    for (const pane of [this.before, this.after]) {
      const line = pane.callLine(callId);
      if (line !== undefined) this.folds.expandLine(pane === this.before ? 'original' : 'modified', line);
      pane.revealCall(callId);
    }
  }

  private nextDiff(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, 10_000);
      const listener = this.diff.onDidUpdateDiff(done);
      function done() {
        clearTimeout(timer);
        listener.dispose();
        resolve();
      }
    });
  }

  private linkPairs(pane: Pane): void {
    const editor = pane.editor;
    editor.onMouseMove((e) => {
      const position = e.target.position;
      const id = position ? pane.callAt(position) : undefined;
      if (id !== this.hovered) {
        this.hovered = id;
        this.highlight();
      }
    });
    editor.onMouseLeave(() => {
      this.hovered = undefined;
      this.highlight();
    });
    editor.onMouseDown((e) => {
      const position = e.target.position;
      this.pinned = position ? pane.callAt(position) : undefined;
      this.highlight();
    });
  }

  private highlight(): void {
    const id = this.hovered ?? this.pinned;
    this.before.setActive(id);
    this.after.setActive(id);
    if (this.onScreen) document.body.dataset.activePair = id ?? '';
  }

  /**
   * Changes on the left inside the consumed prefix are violations of prefix identity: text replaced
   * or removed before the boundary, or text inserted before it. Text inserted at the boundary itself
   * (an append) or after it changes nothing the model read.
   */
  private markViolations(before: PaneText): void {
    const model = this.before.model;
    const consumed = before.boundaryMessages === 0 ? 0 : before.boundaryOffset;
    const ranges: monaco.IRange[] = [];
    for (const change of this.diff.getLineChanges() ?? []) {
      for (const range of originalRanges(change, model)) {
        const start = model.getOffsetAt(range.getStartPosition());
        const end = model.getOffsetAt(range.getEndPosition());
        if (start >= consumed) continue;
        ranges.push(end > consumed ? monaco.Range.fromPositions(range.getStartPosition(), model.getPositionAt(consumed)) : range);
      }
    }
    this.before.setViolations(ranges);
    this.violationCount = ranges.length;
    this.publish();
  }

  layout(): void {
    this.diff.layout();
  }
}

/** The left side's changed ranges of a line change: its character changes, else its whole lines (empty for lines inserted after a line). */
function originalRanges(change: monaco.editor.ILineChange, model: monaco.editor.ITextModel): monaco.Range[] {
  if (change.originalEndLineNumber === 0) {
    const line = change.originalStartLineNumber;
    // Lines inserted after `line`: at the start of the next line (or the end of the text).
    const at = line < model.getLineCount() ? new monaco.Position(line + 1, 1) : new monaco.Position(Math.max(1, line), model.getLineMaxColumn(Math.max(1, line)));
    return [monaco.Range.fromPositions(at, at)];
  }
  const inner = (change.charChanges ?? []).filter((c) => c.originalEndLineNumber > 0);
  if (inner.length) return inner.map((c) => new monaco.Range(c.originalStartLineNumber, c.originalStartColumn, c.originalEndLineNumber, c.originalEndColumn));
  const end = change.originalEndLineNumber;
  return [new monaco.Range(change.originalStartLineNumber, 1, end, model.getLineMaxColumn(end))];
}

/**
 * `changeDecorations` is on Monaco's text model, not in its public typings: decoration changes made in
 * its callback (from any collection) reach the editor as one event when it returns.
 */
interface DefersDecorationEvents {
  changeDecorations(callback: () => void): void;
}

function deferDecorationEvents(model: monaco.editor.ITextModel, work: () => void): void {
  (model as unknown as DefersDecorationEvents).changeDecorations(work);
}
