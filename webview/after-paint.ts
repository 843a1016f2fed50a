/**
 * Work the inspector leaves for when the browser is idle after the frame that
 * shows a step, so the step's own frame carries only what it must paint.
 */

/** What may wait for the paint, by kind (a later one of a kind replaces the earlier). */
export type AfterPaintKind = 'pairs' | 'timeline' | 'heights' | 'texts';

export class AfterPaint {
  private readonly waiting = new Map<AfterPaintKind, () => void>();

  /**
   * Runs `work` when the browser is idle after the next frame (at most 100 ms
   * later); a later `work` of the same kind replaces it.
   */
  run(kind: AfterPaintKind, work: () => void): void {
    if (this.waiting.size === 0) {
      requestAnimationFrame(() => requestIdleCallback(() => this.flush(), { timeout: 100 }));
    }
    this.waiting.set(kind, work);
  }

  /** Forgets the waiting work of this kind (it is being done now instead). */
  drop(kind: AfterPaintKind): void {
    this.waiting.delete(kind);
  }

  private flush(): void {
    const works = [...this.waiting.values()];
    this.waiting.clear();
    for (const work of works) work();
  }
}

/**
 * A pane text spliced from the step shown before (`applyStepEdit`) is, in V8, a rope of the parts it was
 * joined from: the first read by position copies it into one string. Unread, that copy (1.4 MB per side
 * of a 10k-message window, ~0.7 ms each) would fall in the next step's splice, which slices it. Read
 * once when idle after the paint; only the time it is copied changes, never the text.
 */
export function settle(text: string): void {
  text.charCodeAt(0);
}
