/**
 * Work the inspector leaves for after the frame that shows a step, so the
 * step's own frame carries only what it must paint.
 */

/** What may wait for the paint, by kind (a later one of a kind replaces the earlier). */
export type AfterPaintKind = 'pairs' | 'timeline' | 'heights' | 'texts' | 'ahead' | 'inert';

/**
 * Kinds that must be done before the next step arrives, not whenever the browser is idle: a task of
 * background priority right after the frame. While steps follow each other (`]` held, or the bench)
 * the panel gets no idle period between them: each idle callback then ran at its timeout, after the
 * next step had already paid for the work in its own message task. The request for the next step
 * to lay out ahead (`ahead`) is one too: it must be laid out before the user's next key; and the
 * diffs' `inert` after a swap (`inert`), which makes the diff on screen clickable again.
 */
const SOON: ReadonlySet<AfterPaintKind> = new Set<AfterPaintKind>(['texts', 'ahead', 'inert']);

/** Chromium's task scheduler (`scheduler.postTask`), not in TypeScript's DOM library. */
interface TaskScheduler {
  postTask(task: () => void, options: { priority: 'background' }): Promise<unknown>;
}

/** Runs `task` after the tasks waiting now (the frame's, the page's own): background priority where the browser has it. */
function postBackground(task: () => void): void {
  const scheduler = (globalThis as { scheduler?: Partial<TaskScheduler> }).scheduler;
  if (typeof scheduler?.postTask === 'function') void scheduler.postTask(task, { priority: 'background' });
  else setTimeout(task, 0);
}

export class AfterPaint {
  private readonly idle = new Map<AfterPaintKind, () => void>();
  private readonly soon = new Map<AfterPaintKind, () => void>();

  /**
   * Runs `work` after the next frame: when the browser is idle (at most 100 ms later), or for the
   * `SOON` kinds in a background task right after it; a later `work` of the same kind replaces it.
   */
  run(kind: AfterPaintKind, work: () => void): void {
    const waiting = SOON.has(kind) ? this.soon : this.idle;
    if (waiting.size === 0) {
      if (waiting === this.soon) requestAnimationFrame(() => postBackground(() => flush(this.soon)));
      else requestAnimationFrame(() => requestIdleCallback(() => flush(this.idle), { timeout: 100 }));
    }
    waiting.set(kind, work);
  }

  /** Forgets the waiting work of this kind (it is being done now instead). */
  drop(kind: AfterPaintKind): void {
    this.idle.delete(kind);
    this.soon.delete(kind);
  }
}

function flush(waiting: Map<AfterPaintKind, () => void>): void {
  const works = [...waiting.values()];
  waiting.clear();
  for (const work of works) work();
}

/**
 * A pane text spliced from the step shown before (`applyStepEdit`) is, in V8, a rope of the parts it was
 * joined from: the first read by position copies it into one string. Unread, that copy (1.4 MB per side
 * of a 10k-message window, 0.3-0.5 ms each) would fall in the next step's splice, which slices it. Read
 * once right after the paint; only the time it is copied changes, never the text.
 */
export function settle(text: string): void {
  text.charCodeAt(0);
}
