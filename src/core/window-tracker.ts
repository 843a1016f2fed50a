/**
 * The window findings a check reports: each window's findings whose identity
 * (rule, call id, occurrence) the previous window did not have. A window that
 * extends the previous one (its messages in place, the same bytes) is checked
 * on the pairs its new messages touch (`append-step.ts`), with a pair index
 * kept from window to window and extended by each new tail; any other window
 * is checked in full, its findings handed on one by one (a window of millions
 * of calls sharing one id never holds a list of its findings).
 */
import { extendedLookup, extensionWindowFindings, isExtension, touchedPairEntries, type PairLookup } from './append-step';
import { extendsMessages } from './formats/native-object';
import { exactWindow, isShallow } from './formats/carry';
import { pairsOf, type EngineContext } from './context';
import { eachIdentity, identityName, IdentitySet, type Finding } from './findings';
import type { ContextWindow, Message, ToolPair } from './model';
import { PairIndex } from './pair-index';
import type { KnownPairs } from './session';
import { emitWindowFindings } from './rules/index';
import { collected, type Emit } from './rules/rule';

export class WindowTracker {
  /** Identities of the last window's findings. */
  private keys = new IdentitySet();
  private window: ContextWindow | undefined;
  /**
   * The last window's pair index. Once extended, its members may be earlier
   * readings of the same bytes at the same places: good for `append-step.ts`,
   * which reads only their places and contents, never for the engine context.
   */
  private pairs: Map<string, ToolPair> | PairIndex | undefined;
  /** True when `pairs` is this tracker's own copy (made by an extension, not shared with a fork or the context): extended in place. */
  private ownsPairs = false;

  constructor(
    private readonly context: EngineContext,
    /** False: every window checked in full (the reference the incremental path is tested against). */
    private readonly incremental = true,
  ) {}

  /** An independent copy: windows given to one are not seen by the other. */
  fork(): WindowTracker {
    const copy = new WindowTracker(this.context, this.incremental);
    copy.keys = this.keys.clone();
    copy.window = this.window;
    copy.pairs = this.pairs;
    this.ownsPairs = false;
    return copy;
  }

  /**
   * A copy whose last window is `move`d (an edit before it changed the
   * text's length: follow-reuse.ts); its pair index is made again when next
   * needed.
   */
  moved(move: (window: ContextWindow) => ContextWindow): WindowTracker {
    const copy = this.fork();
    if (copy.window) copy.window = move(copy.window);
    if (copy.window !== this.window) copy.pairs = undefined;
    return copy;
  }

  /**
   * A pair lookup of `window` when it extends the last window by the same
   * message objects (a request log's previous request plus its response: the
   * window its next step is judged against), built from the last window's
   * index; for `append-step.ts` only (see `pairs`).
   */
  pairsOf(window: ContextWindow): PairLookup | undefined {
    const last = this.window;
    const pairs = this.pairs;
    if (!this.incremental || !last || !pairs || !extendsMessages(last.messages, window.messages)) return undefined;
    return extendedLookup(pairs, window, last.messages.length);
  }

  /**
   * The pairs of `window` when it is the last window this tracker saw (its
   * pair index: a `toolPairs` map, or an extended index, which reads as one),
   * for its summary's pair counts without walking its messages' blocks.
   */
  knownPairs(window: ContextWindow): KnownPairs | undefined {
    return window === this.window ? this.pairs : undefined;
  }

  /** The findings of `window` the previous window did not have, in the order of the full checks. */
  next(window: ContextWindow): Finding[] {
    return collected((emit) => this.nextEach(window, emit));
  }

  /**
   * `next`'s findings handed to `emit` one by one. A window of first readings
   * (carry.ts `EXACT_WINDOW`) that has fresh findings is checked again as its
   * exact window, so that their ranges are in its line.
   */
  nextEach(window: ContextWindow, emit: Emit): void {
    if (!isShallow(window)) return this.nextOf(window, emit);
    const saved = { keys: this.keys.clone(), window: this.window, pairs: this.pairs };
    const fresh = collected((found) => this.nextOf(window, found));
    if (fresh.length === 0) return;
    // The pair index may have been extended in place: without it the exact window is checked in full.
    Object.assign(this, saved, { pairs: this.ownsPairs ? undefined : saved.pairs });
    this.nextOf(exactWindow(window), emit);
  }

  private nextOf(window: ContextWindow, emit: Emit): void {
    if (!(this.incremental && this.extension(window, emit))) this.full(window, emit);
    this.window = window;
  }

  /** Every window finding, numbered as `identityKeys` numbers them; the fresh ones emitted. Uses the context's list when a step already made it. */
  private full(window: ContextWindow, emit: Emit): void {
    const keys = new IdentitySet();
    const previous = this.keys;
    const onFinding = (f: Finding) => {
      const name = identityName(f);
      if (!previous.has(f.rule, name, keys.addNext(f.rule, name))) emit(f);
    };
    const pairs = pairsOf(window, this.context);
    const known = this.context.windowFindings.get(window);
    if (known) known.forEach(onFinding);
    else emitWindowFindings(window, pairs, onFinding);
    this.keys = keys;
    this.pairs = pairs;
    this.ownsPairs = false;
  }

  /** True when `window` extends the previous one and its fresh findings were emitted. */
  private extension(window: ContextWindow, emit: Emit): boolean {
    const previous = this.window;
    const pairs = this.pairs;
    if (!previous || !pairs || !isExtension(previous, window, this.context.render)) return false;
    // A tail longer than what it extends is checked in full: the touched-pair indexes would cost more than the window's own.
    if (window.messages.length > 2 * previous.messages.length) return false;
    const touched = extensionWindowFindings(previous, window, () => pairs);
    if (!touched) return false;
    const after = this.numbered(touched.after, new Set(touched.reused));
    const fresh = touched.after.filter((f, i) => !this.keys.has(f.rule, identityName(f), after[i] ?? 0));
    eachIdentity(touched.before, (f, n) => this.keys.delete(f.rule, identityName(f), n));
    touched.after.forEach((f, i) => this.keys.add(f.rule, identityName(f), after[i] ?? 0));
    this.pairs = extendedIndex(pairs, previous.messages, window, this.ownsPairs);
    this.ownsPairs = true;
    for (const f of fresh) emit(f);
    return true;
  }

  /**
   * The occurrence numbers of the touched pairs' findings after: as
   * `identityKeys` gives them, a reused id's occurrences numbered after the
   * ones the window already had (they are the window's last calls with that id).
   */
  private numbered(findings: readonly Finding[], reused: ReadonlySet<Finding>): number[] {
    const out: number[] = new Array<number>(findings.length).fill(0);
    const others: number[] = [];
    eachIdentity(
      findings.filter((f) => !reused.has(f)),
      (_, n) => others.push(n),
    );
    const seen = new Map<string, number>();
    let k = 0;
    findings.forEach((f, i) => {
      if (!reused.has(f)) {
        out[i] = others[k++] ?? 0;
        return;
      }
      const name = identityName(f);
      let n = seen.get(name) ?? 0;
      while (this.keys.has(f.rule, name, n)) n++;
      seen.set(name, n + 1);
      out[i] = n;
    });
    return out;
  }
}

/**
 * The pair index of `window`, an extension of the window of `indexed` whose
 * pairs are `pairs`: a `PairIndex` (`pairs` itself when it is one and
 * `inPlace`, a copy otherwise), the pairs the new messages touch set. Reads as
 * `toolPairs(window)` (append-step.ts `extendPairs`, as numbers).
 */
function extendedIndex(pairs: Map<string, ToolPair> | PairIndex, indexed: readonly Message[], window: ContextWindow, inPlace: boolean): PairIndex {
  const touched = touchedPairEntries(pairs, window, indexed.length);
  const index = pairs instanceof PairIndex ? (inPlace ? pairs : pairs.clone()) : PairIndex.of(pairs, indexed);
  for (const [key, entry] of touched) index.set(key, entry, window.messages);
  return index;
}
