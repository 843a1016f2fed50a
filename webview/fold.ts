/**
 * Large blocks fold behind a size badge. Each display line is one tool,
 * message or block; a line of at least `FOLD_CHARS` characters that the diff
 * left unchanged is hidden on both sides at once (so the two sides stay
 * aligned) and a badge saying its size takes its place. The badge is a button:
 * a click on it, or Enter or Space when it has focus, expands the block on both sides. Lines a change
 * touches are never folded: the change is what the step is about.
 */
import * as monaco from './monaco';
import { el } from './dom';
import type { Splice } from './pane';

/** Unchanged lines at least this long (characters) fold. */
export const FOLD_CHARS = 2_000;

/** Our hidden areas' owner in Monaco's view model (it merges areas per owner). */
const HIDDEN_AREAS_OWNER = { name: 'prefix-lens-fold' };
/** After the boundary zone (ordinal 10000, Monaco's default) when both follow the same line. */
const BADGE_ORDINAL = 10_001;
const BADGE_PX = 24;

/**
 * `setHiddenAreas` is on Monaco's code editor widget, not in its public typings. With `forceUpdate` it
 * compares the ranges with the lines hidden now (tracked through edits) and does nothing when equal.
 */
interface HidesLines {
  setHiddenAreas(ranges: monaco.IRange[], owner?: unknown, forceUpdate?: boolean): void;
}

/** One folded block: the same unchanged line on each side. */
interface Fold {
  readonly original: number;
  readonly modified: number;
  readonly zones: [string | undefined, string | undefined];
}

/**
 * Pairs of unchanged lines (original, modified) from the diff's line changes, in order, whose original
 * line is one of `keep` (ascending): only those lines are visited, not every line between the changes.
 */
export function unchangedLines(
  changes: readonly monaco.editor.ILineChange[],
  originalCount: number,
  modifiedCount: number,
  keep: readonly number[],
): [number, number][] {
  const pairs: [number, number][] = [];
  let o = 1;
  let m = 1;
  let next = 0;
  // The lines from `o` and `m` on, paired while both sides last.
  const run = (originalEnd: number, modifiedEnd: number) => {
    const last = Math.min(originalEnd, o + (modifiedEnd - m));
    while (next < keep.length && keep[next]! < o) next++;
    for (; next < keep.length && keep[next]! <= last; next++) pairs.push([keep[next]!, m + (keep[next]! - o)]);
  };
  for (const c of changes) {
    const inserted = c.originalEndLineNumber === 0;
    const deleted = c.modifiedEndLineNumber === 0;
    const originalEnd = Math.min(originalCount, inserted ? c.originalStartLineNumber : c.originalStartLineNumber - 1);
    run(originalEnd, Math.min(modifiedCount, deleted ? c.modifiedStartLineNumber : c.modifiedStartLineNumber - 1));
    o = inserted ? c.originalStartLineNumber + 1 : c.originalEndLineNumber + 1;
    m = deleted ? c.modifiedStartLineNumber + 1 : c.modifiedEndLineNumber + 1;
  }
  run(originalCount, modifiedCount);
  return pairs;
}

/**
 * The lines of `text` at least `FOLD_CHARS` long (1-based, ascending), found with `indexOf` on the string
 * the model was given: a fraction of asking the model each line's length (25k lookups per step).
 * Undefined when the model may split lines elsewhere (a `\r`) or counts other lines than `lineCount`.
 */
export function longLines(text: string, lineCount: number): number[] | undefined {
  if (text.includes('\r')) return undefined;
  const lines: number[] = [];
  let start = 0;
  let line = 1;
  for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start), line++) {
    if (end - start >= FOLD_CHARS) lines.push(line);
    start = end + 1;
  }
  if (text.length - start >= FOLD_CHARS) lines.push(line);
  return line === lineCount ? lines : undefined;
}

function newlines(text: string, from = 0, to = text.length): number {
  let count = 0;
  for (let at = text.indexOf('\n', from); at !== -1 && at < to; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

/**
 * The left side's long lines, kept from step to step: a text sent as a splice of the one scanned before
 * is scanned only where the splice changed it (an append: its last lines), the lines after it renumbered.
 */
export class LongLines {
  private scanned: { readonly text: string; readonly lines: readonly number[]; readonly lineCount: number } | undefined;

  /** The long lines of `text`, which `model` holds (sent as `sent`, when it was a splice); undefined as `longLines`. */
  of(text: string, model: monaco.editor.ITextModel, sent?: Splice): readonly number[] | undefined {
    const lineCount = model.getLineCount();
    if (this.scanned?.text === text) return this.scanned.lines;
    const lines = (sent && this.spliced(sent, model, lineCount)) ?? longLines(text, lineCount);
    this.scanned = lines && { text, lines, lineCount };
    return lines;
  }

  reset(): void {
    this.scanned = undefined;
  }

  private spliced(sent: Splice, model: monaco.editor.ITextModel, lineCount: number): number[] | undefined {
    const scanned = this.scanned;
    const { start, end, text } = sent.splice;
    if (!scanned || scanned.text !== sent.base || text.includes('\r')) return undefined;
    const removed = newlines(sent.base, start, end);
    const added = newlines(text);
    if (scanned.lineCount + added - removed !== lineCount) return undefined;
    // The splice's lines: from the one it starts in (the same line number before and after) to the one it ends in.
    const first = model.getPositionAt(start).lineNumber;
    const lines = scanned.lines.filter((l) => l < first);
    for (let l = first; l <= first + added; l++) if (model.getLineLength(l) >= FOLD_CHARS) lines.push(l);
    for (const l of scanned.lines) if (l > first + removed) lines.push(l + added - removed);
    return lines;
  }
}

/** "28.1 KB" for a line's UTF-8 size. */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The start of a folded line as plain, direction-safe text (controls, bidi and zero-width characters shown as ·). */
function preview(line: string): string {
  // eslint-disable-next-line no-control-regex
  return line.slice(0, 100).replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g, '·');
}

export class Folds {
  private folds: Fold[] = [];

  constructor(
    private readonly original: monaco.editor.ICodeEditor,
    private readonly modified: monaco.editor.ICodeEditor,
    /** Told how many folds there are after each change. */
    private readonly onCount: (count: number) => void,
  ) {
    // Monaco's text layer lies above view zones: a click on a badge reaches the editor as a click on its zone.
    for (const editor of [original, modified]) {
      editor.onMouseDown((e) => {
        if (e.target.type !== monaco.editor.MouseTargetType.CONTENT_VIEW_ZONE) return;
        const id = e.target.detail.viewZoneId;
        const fold = this.folds.find((f) => f.zones.includes(id));
        if (fold) this.expand(fold);
      });
    }
  }

  /**
   * Folds every long unchanged line of the step just shown (after its diff is computed), in place of
   * the previous step's folds. Lines hidden before and still folded stay hidden (no re-layout).
   * `long`: the left side's long lines (`LongLines`), undefined to ask the model each line's length.
   */
  apply(changes: readonly monaco.editor.ILineChange[], long: readonly number[] | undefined): void {
    const originalModel = this.original.getModel();
    const modifiedModel = this.modified.getModel();
    if (!originalModel || !modifiedModel) return;
    const count = originalModel.getLineCount();
    const keep = long ?? Array.from({ length: count }, (_, i) => i + 1).filter((line) => originalModel.getLineLength(line) >= FOLD_CHARS);
    // No long line (most windows of short messages): nothing to pair.
    const lines = keep.length === 0 ? [] : unchangedLines(changes, count, modifiedModel.getLineCount(), keep);
    if (lines.length === 0 && this.folds.length === 0) return;
    for (const fold of this.folds.splice(0)) this.removeBadges(fold);
    for (const [o, m] of lines) {
      const text = originalModel.getLineContent(o);
      const label = `${sizeText(new TextEncoder().encode(text).length)} block folded`;
      const fold: Fold = { original: o, modified: m, zones: [undefined, undefined] };
      fold.zones[0] = this.addBadge(this.original, o, label, text, () => this.expand(fold));
      fold.zones[1] = this.addBadge(this.modified, m, label, text, () => this.expand(fold));
      this.folds.push(fold);
    }
    this.hide();
  }

  /** Expands the fold holding this line of one side (a pair revealed there); true if there was one. */
  expandLine(side: 'original' | 'modified', line: number): boolean {
    const fold = this.folds.find((f) => f[side] === line);
    if (fold) this.expand(fold);
    return Boolean(fold);
  }

  /** Expands every fold (nothing stays hidden). */
  reset(): void {
    if (this.folds.length === 0) return;
    for (const fold of this.folds.splice(0)) this.removeBadges(fold);
    this.hide();
  }

  private expand(fold: Fold): void {
    this.folds = this.folds.filter((f) => f !== fold);
    this.removeBadges(fold);
    this.hide();
  }

  private hide(): void {
    const lines = (side: 'original' | 'modified') => this.folds.map((f) => new monaco.Range(f[side], 1, f[side], 1));
    (this.original as unknown as HidesLines).setHiddenAreas(lines('original'), HIDDEN_AREAS_OWNER, true);
    (this.modified as unknown as HidesLines).setHiddenAreas(lines('modified'), HIDDEN_AREAS_OWNER, true);
    this.onCount(this.folds.length);
  }

  private addBadge(editor: monaco.editor.ICodeEditor, line: number, label: string, text: string, onExpand: () => void): string | undefined {
    const badge = el(
      'button',
      { className: 'pl-fold', title: 'Expand this block (Enter)', attrs: { type: 'button', 'aria-label': `Expand the ${label} at line ${line}` } },
      el('span', { className: 'codicon codicon-unfold', attrs: { 'aria-hidden': 'true' } }),
      el('span', { className: 'pl-fold-size', text: label }),
      el('span', { className: 'pl-fold-preview', text: preview(text) }),
    );
    badge.dataset.line = String(line);
    // Enter and Space on the focused badge (a mouse click arrives through the editor, see the constructor).
    badge.addEventListener('click', onExpand);
    const node = el('div', { className: 'pl-fold-zone' }, badge);
    let id: string | undefined;
    editor.changeViewZones((zones) => {
      id = zones.addZone({ afterLineNumber: line - 1, heightInPx: BADGE_PX, domNode: node, showInHiddenAreas: true, ordinal: BADGE_ORDINAL });
    });
    return id;
  }

  private removeBadges(fold: Fold): void {
    const [original, modified] = fold.zones;
    this.original.changeViewZones((zones) => original && zones.removeZone(original));
    this.modified.changeViewZones((zones) => modified && zones.removeZone(modified));
  }
}
