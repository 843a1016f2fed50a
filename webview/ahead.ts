/**
 * The step after the one shown, laid out ahead of `]` (the host's `nextStep`, see protocol.ts) in the
 * `DiffStack`'s spare, and shown by a swap when the host then sends that very step.
 */
import { applyStepEdit, type StepDetail, type StepEdit } from '../src/shared/protocol';
import type { DiffContent } from './diff';
import type { DiffStack } from './diff-stack';

/** A step laid out ahead: the `nextStep` message (as JSON), the step shown it was spliced from, its detail, and whether it shows the fix preview. */
interface Ahead {
  readonly key: string;
  readonly base: StepDetail;
  readonly detail: StepDetail;
  readonly previewing: boolean;
}

export class StepsAhead {
  private ahead: Ahead | undefined;

  constructor(private readonly diffs: DiffStack) {}

  /**
   * Lays out `edit` (the step after `base`, the step shown) in the spare; `content` makes the diff's
   * content as the panel shows that step. Says on the body (`data-ahead`) which step is ready, for
   * the tests: the step shown by the swap is then the one they can check.
   */
  lay(base: StepDetail, edit: StepEdit, previewing: boolean, content: (detail: StepDetail) => DiffContent): void {
    const detail = applyStepEdit(base, edit);
    this.drop();
    if (!detail) return;
    const ahead: Ahead = { key: JSON.stringify(edit), base, detail, previewing };
    this.ahead = ahead;
    void this.diffs.layAhead(ahead.key, content(detail)).then((ready) => {
      if (ready && this.ahead === ahead) document.body.dataset.ahead = String(edit.selected);
    });
  }

  /**
   * The step of `edit` (a `stepEdit` of `base`, the step shown), put on screen by a swap, when it is
   * the step laid out ahead: the same message from the same step, shown the same way, and ready.
   * Undefined when the panel must show it itself (`DiffStack.take` changed nothing).
   */
  take(base: StepDetail | undefined, edit: StepEdit, previewing: (detail: StepDetail) => boolean): StepDetail | undefined {
    const ahead = this.ahead;
    this.drop();
    if (!ahead || ahead.base !== base || ahead.previewing !== previewing(ahead.detail)) return undefined;
    // The message itself, not only its step: a grown file's step differs from the one laid out ahead.
    if (JSON.stringify(edit) !== ahead.key || !this.diffs.take(ahead.key)) return undefined;
    return ahead.detail;
  }

  /** Forgets the step laid out ahead (another step or transcript is shown). */
  drop(): void {
    this.ahead = undefined;
    document.body.dataset.ahead = '';
  }
}
