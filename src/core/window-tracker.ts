/**
 * The window findings a check reports: each window's findings whose identity
 * (rule, call id, occurrence) the previous window did not have. A window that
 * extends the previous one (its messages in place, the same bytes) is checked
 * on the pairs its new messages touch (`append-step.ts`), with a pair index
 * kept from window to window and extended by each new tail; any other window
 * is checked in full.
 */
import { extendPairs, extensionWindowFindings, isExtension } from './append-step';
import { pairsOf, type EngineContext } from './context';
import { identityKeys, type Finding } from './findings';
import { windowFindings } from './guard';
import type { ContextWindow, ToolPair } from './model';

export class WindowTracker {
  /** Identities of the last window's findings. */
  private keys = new Set<string>();
  private window: ContextWindow | undefined;
  /**
   * The last window's pair index. Once extended, its members may be earlier
   * readings of the same bytes at the same places: good for `append-step.ts`,
   * which reads only their places and contents, never for the engine context.
   */
  private pairs: Map<string, ToolPair> | undefined;

  constructor(
    private readonly context: EngineContext,
    /** False: every window checked in full (the reference the incremental path is tested against). */
    private readonly incremental = true,
  ) {}

  /** An independent copy: windows given to one are not seen by the other. */
  fork(): WindowTracker {
    const copy = new WindowTracker(this.context, this.incremental);
    copy.keys = new Set(this.keys);
    copy.window = this.window;
    copy.pairs = this.pairs;
    return copy;
  }

  /** The findings of `window` the previous window did not have, in the order of the full checks. */
  next(window: ContextWindow): Finding[] {
    const fresh = (this.incremental && this.extension(window)) || this.full(window);
    this.window = window;
    return fresh;
  }

  private full(window: ContextWindow): Finding[] {
    const findings = windowFindings(window, this.context);
    const keys = identityKeys(findings);
    const fresh = findings.filter((_, i) => !this.keys.has(keys[i] ?? ''));
    this.keys = new Set(keys);
    this.pairs = pairsOf(window, this.context);
    return fresh;
  }

  private extension(window: ContextWindow): Finding[] | undefined {
    const previous = this.window;
    const pairs = this.pairs;
    if (!previous || !pairs || !isExtension(previous, window, this.context.render)) return undefined;
    const touched = extensionWindowFindings(previous, window, () => pairs);
    if (!touched) return undefined;
    const afterKeys = this.keysOf(touched.after, new Set(touched.reused));
    const fresh = touched.after.filter((_, i) => !this.keys.has(afterKeys[i] ?? ''));
    for (const key of identityKeys(touched.before)) this.keys.delete(key);
    for (const key of afterKeys) this.keys.add(key);
    this.pairs = extendPairs(pairs, window, previous.messages.length);
    return fresh;
  }

  /**
   * The identities of the touched pairs' findings after: as `identityKeys`
   * gives them, a reused id's occurrences numbered after the ones the window
   * already had (they are the window's last calls with that id).
   */
  private keysOf(findings: readonly Finding[], reused: ReadonlySet<Finding>): string[] {
    const others = identityKeys(findings.filter((f) => !reused.has(f)));
    const seen = new Map<string, number>();
    let k = 0;
    return findings.map((f) => {
      if (!reused.has(f)) return others[k++] ?? '';
      const base = `${f.rule}\u0000${f.toolCallId ?? f.message}`;
      let n = seen.get(base) ?? 0;
      while (this.keys.has(`${base}\u0000${n}`)) n++;
      seen.set(base, n + 1);
      return `${base}\u0000${n}`;
    });
  }
}
