/**
 * What the step rules share about one rewrite: both windows rendered per
 * message (cached), their tool pairs, the message alignment and where the
 * consumed prefix first breaks. Built once per step in time linear in the
 * size of the two windows.
 */
import { alignIndexed, type Alignment } from './align';
import { layoutOf, pairsOf, textIndexOf, type EngineContext } from './context';
import { CARRIED_FROM, type ContextWindow, type Message, type Rewrite, type ToolPair } from './model';
import type { RenderCache } from './render';

export interface WindowView {
  readonly window: ContextWindow;
  readonly messageTexts: readonly string[];
  readonly toolTexts: readonly string[];
  readonly pairs: Map<string, ToolPair>;
}

export interface RewriteAnalysis {
  readonly rewrite: Rewrite;
  readonly before: WindowView;
  readonly after: WindowView;
  readonly alignment: Alignment;
  readonly render: RenderCache;
  /** True when the consumed tool registry changed (tools count as consumed once any message is). */
  readonly toolsChanged: boolean;
  /** First consumed before message whose bytes differ at its position in after; -1 when none. */
  readonly breakMessage: number;
  /** How many leading messages are byte-identical at the same positions on both sides. */
  readonly commonMessages: number;
  /** True when nothing before the boundary changed: the rewrite is a patch as far as bytes go. */
  readonly prefixIntact: boolean;
  /** File of the before window's sources, when it is not the checked file. */
  readonly beforeFile?: string;
}

/** A window's renders come from its layout (computed once per window object). */
export function viewOf(window: ContextWindow, context: EngineContext): WindowView {
  const layout = layoutOf(window, context);
  return { window, messageTexts: layout.messageTexts, toolTexts: layout.toolTexts, pairs: pairsOf(window, context) };
}

function commonLength(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  let k = 0;
  while (k < n && a[k] === b[k]) k++;
  return k;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((text, i) => text === b[i]);
}

export function analyseRewrite(rewrite: Rewrite, context: EngineContext, beforeFile?: string): RewriteAnalysis {
  return analyseViews(rewrite, viewOf(rewrite.before, context), viewOf(rewrite.after, context), context, beforeFile);
}

/** The analysis of a rewrite whose windows are seen as `before` and `after` (their renders are the windows' layouts). */
export function analyseViews(rewrite: Rewrite, before: WindowView, after: WindowView, context: EngineContext, beforeFile?: string): RewriteAnalysis {
  const render = context.render;
  const consumed = Math.min(rewrite.before.boundary, before.messageTexts.length);
  const toolsChanged = consumed > 0 && !sameList(before.toolTexts, after.toolTexts);
  const commonMessages = commonLength(before.messageTexts, after.messageTexts);
  const breakMessage = commonMessages < consumed ? commonMessages : -1;
  const alignment =
    breakMessage === -1 && !toolsChanged
      ? prefixAlignment(before.messageTexts.length, after.messageTexts.length, consumed)
      : alignWindows(rewrite, after.messageTexts, context);
  return {
    rewrite,
    before,
    after,
    alignment,
    render,
    toolsChanged,
    breakMessage,
    commonMessages,
    prefixIntact: breakMessage === -1 && !toolsChanged,
    ...(beforeFile !== undefined && { beforeFile }),
  };
}

/** Two readings of the same message (the same object, or carried over from one reading): the same render. */
function sameReading(a: Message | undefined, b: Message | undefined): boolean {
  return a === b || (!!a && !!b && a[CARRIED_FROM] !== undefined && a[CARRIED_FROM] === b[CARRIED_FROM]);
}

/** `alignMessages` of the two windows' renders; a message the after window shares with the before one is matched without a lookup. */
function alignWindows(rewrite: Rewrite, afterTexts: readonly string[], context: EngineContext): Alignment {
  const before = rewrite.before.messages;
  const after = rewrite.after.messages;
  return alignIndexed(textIndexOf(rewrite.before, context), {
    afterLength: after.length,
    afterText: (i) => afterTexts[i] as string,
    shared: { before, after },
    same: (i, j) => sameReading(after[i], before[j]),
    sameRole: (j, i) => before[j]?.role === after[i]?.role,
  });
}

/**
 * The alignment of an intact prefix without hashing: the consumed messages
 * map one to one; what follows is aligned positionally as modified, extra
 * messages are inserted or removed.
 */
function prefixAlignment(beforeLength: number, afterLength: number, consumed: number): Alignment {
  const afterOrigin = new Int32Array(afterLength).fill(-1);
  const afterKind = new Uint8Array(afterLength).fill(2);
  const beforeFate = new Int32Array(beforeLength).fill(-1);
  const common = Math.min(beforeLength, afterLength);
  for (let k = 0; k < common; k++) {
    afterOrigin[k] = k;
    afterKind[k] = k < consumed ? 0 : 1;
    beforeFate[k] = k;
  }
  return { afterOrigin, afterKind, beforeFate };
}

/**
 * Ids of calls whose result the model has not consumed: no result yet, or the
 * result lies at or after the boundary. (Not the pair state `pending`, which is
 * a call with no result at a live window's frontier: see pairing.ts.)
 */
export function unconsumedCallIds(view: WindowView): Set<string> {
  const unconsumed = new Set<string>();
  for (const pair of view.pairs.values()) {
    if (!pair.call) continue;
    const first = pair.results[0];
    if (!first || first.message >= view.window.boundary) unconsumed.add(pair.id);
  }
  return unconsumed;
}
