/**
 * The inspector's diff on screen, and a spare of the same size under it that lays out the step after
 * the one shown ahead of `]` (issue 14: an append step shown within a frame). The spare is covered by
 * the diff on screen (both opaque, each on a layer of its own) and `inert` (not clickable, not
 * focusable, not read by assistive technology). When the step laid out ahead is selected, showing it
 * is swapping which of the two is on top: the step's key costs a change of the layers' order, not its
 * model edits, diff and Monaco's render and paint of every line on screen. Any other step (or one
 * not laid out yet) is shown by the diff on screen, as before.
 */
import { type DiffContent, DiffView } from './diff';
import { el } from './dom';

interface Slot {
  readonly element: HTMLElement;
  readonly diff: DiffView;
}

/** What the spare holds: the step laid out as `key`, from the diff on screen's scroll positions then, and whether it is ready. */
interface Laid {
  readonly key: string;
  readonly from: readonly [number, number];
  ready: boolean;
}

export class DiffStack {
  private onScreen: Slot;
  /** Made with the first step laid out ahead (a transcript of one step never needs it). */
  private spare: Slot | undefined;
  private laid: Laid | undefined;

  /** `afterPaint`: runs work after the next frame's paint (`AfterPaint`, kind 'inert'). */
  constructor(
    private readonly host: HTMLElement,
    private readonly afterPaint: (work: () => void) => void,
  ) {
    this.onScreen = this.slot();
    this.onScreen.element.classList.add('pl-shown');
  }

  /** The diff on screen. */
  get shown(): DiffView {
    return this.onScreen.diff;
  }

  /** Shows a step in the diff on screen (the spare's step, if any, stays laid out). */
  show(content: DiffContent): Promise<boolean> {
    return this.shown.show(content);
  }

  /** Shows nothing; the step laid out ahead is dropped. */
  clear(): void {
    this.laid = undefined;
    this.shown.clear();
  }

  /**
   * Lays `content` out in the spare for `take(key)`, opened from where the diff on screen is scrolled
   * (so it opens where that diff would open it: a change already on screen is not scrolled to).
   * Resolves true once it is ready (its diff computed, marked and revealed).
   */
  async layAhead(key: string, content: DiffContent): Promise<boolean> {
    const spare = this.spare ?? (this.spare = this.slot(true));
    const laid: Laid = { key, from: this.shown.scrollTops(), ready: false };
    this.laid = laid;
    const shown = await spare.diff.show(content, laid.from);
    laid.ready = shown && this.laid === laid;
    return laid.ready;
  }

  /**
   * Puts the step laid out as `key` on screen; false (and nothing changed) when it is not that step,
   * not ready yet, or the diff on screen was scrolled or focused since (the step is then shown there).
   */
  take(key: string): boolean {
    const laid = this.laid;
    const spare = this.spare;
    this.laid = undefined;
    if (!laid || !spare || laid.key !== key || !laid.ready) return false;
    const [left, right] = this.shown.scrollTops();
    if (left !== laid.from[0] || right !== laid.from[1] || this.onScreen.element.contains(document.activeElement)) return false;
    const old = this.onScreen;
    this.onScreen = spare;
    this.spare = old;
    spare.element.classList.add('pl-shown');
    old.element.classList.remove('pl-shown');
    old.diff.setOnScreen(false);
    spare.diff.setOnScreen(true);
    // `inert` restyles every element of both diffs (~5 ms): moved once the step is painted (until then
    // the diff on screen takes no click, the one under it is covered).
    this.afterPaint(() => {
      for (const slot of [this.onScreen, this.spare]) if (slot) slot.element.inert = slot !== this.onScreen;
    });
    return true;
  }

  private slot(spare = false): Slot {
    const element = el('div', { className: 'pl-diff-slot' });
    element.inert = spare;
    this.host.append(element);
    const diff = new DiffView(element);
    if (spare) diff.setOnScreen(false);
    return { element, diff };
  }
}
