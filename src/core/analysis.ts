/**
 * What the step rules share about one rewrite: both windows rendered per
 * message (cached), their tool pairs, the message alignment and where the
 * consumed prefix first breaks. Built once per step in time linear in the
 * size of the two windows.
 */
import { alignFound, indexedFinder, MODIFIED, RunAlignment, SAME, type AlignedRun, type Alignment, type AlignSides, type TextFinder } from './align';
import { layoutOf, pairsOf, textIndexOf, type EngineContext } from './context';
import { CARRIED_FROM, type ContextWindow, type Message, type Rewrite, type ToolPair } from './model';
import type { RenderCache } from './render';

/** A window's message renders by index: its layout's, or rendered when first asked for (a window read lazily). */
export interface MessageTexts {
  readonly length: number;
  at(index: number): string | undefined;
}

export interface WindowView {
  readonly window: ContextWindow;
  readonly messageTexts: MessageTexts;
  readonly toolTexts: readonly string[];
  readonly pairs: Map<string, ToolPair>;
  /** How after messages are looked up among this window's by text when aligning; default its text index (`textIndexOf`). */
  readonly findText?: (after: readonly Message[]) => TextFinder;
}

/** The renders of a window's messages, each rendered (through the cache) when first asked for. */
export function textsOnDemand(window: ContextWindow, render: RenderCache): MessageTexts {
  const messages = window.messages;
  return { length: messages.length, at: (i) => (messages[i] ? render.messageText(messages[i]) : undefined) };
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

/** How many leading messages render alike; the same message object renders alike without its text. */
function commonLength(rewrite: Rewrite, a: MessageTexts, b: MessageTexts): number {
  const x = rewrite.before.messages;
  const y = rewrite.after.messages;
  const n = Math.min(a.length, b.length);
  let k = 0;
  while (k < n && (x[k] === y[k] || a.at(k) === b.at(k))) k++;
  return k;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((text, i) => text === b[i]);
}

export function analyseRewrite(rewrite: Rewrite, context: EngineContext, beforeFile?: string): RewriteAnalysis {
  return analyseViews(rewrite, viewOf(rewrite.before, context), viewOf(rewrite.after, context), context, beforeFile);
}

/**
 * The analysis of a rewrite whose windows are seen as `before` and `after` (their renders are the windows' layouts).
 * `run`: a run of the before window's messages the after window keeps (the same objects), when the caller found one.
 */
export function analyseViews(rewrite: Rewrite, before: WindowView, after: WindowView, context: EngineContext, beforeFile?: string, run?: AlignSides['run']): RewriteAnalysis {
  const render = context.render;
  const consumed = Math.min(rewrite.before.boundary, before.messageTexts.length);
  const toolsChanged = consumed > 0 && !sameList(before.toolTexts, after.toolTexts);
  const commonMessages = commonLength(rewrite, before.messageTexts, after.messageTexts);
  const breakMessage = commonMessages < consumed ? commonMessages : -1;
  const alignment =
    breakMessage === -1 && !toolsChanged
      ? prefixAlignment(before.messageTexts.length, after.messageTexts.length, consumed)
      : alignWindows(rewrite, after.messageTexts, context, before.findText, run);
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
function alignWindows(rewrite: Rewrite, afterTexts: MessageTexts, context: EngineContext, findText?: (after: readonly Message[]) => TextFinder, run?: AlignSides['run']): Alignment {
  const before = rewrite.before.messages;
  const after = rewrite.after.messages;
  const sides: AlignSides = {
    ...(run && { run }),
    afterLength: after.length,
    afterText: (i: number) => afterTexts.at(i) as string,
    shared: { before, after },
    sameMessage: (i: number, j: number) => sameReading(after[i], before[j]),
    sameRole: (j: number, i: number) => before[j]?.role === after[i]?.role,
  };
  return alignFound(before.length, findText ? findText(after) : indexedFinder(textIndexOf(rewrite.before, context), sides.afterText), sides);
}

/**
 * The alignment of an intact prefix without hashing: the consumed messages
 * map one to one; what follows is aligned positionally as modified, extra
 * messages are inserted or removed.
 */
function prefixAlignment(beforeLength: number, afterLength: number, consumed: number): Alignment {
  const common = Math.min(beforeLength, afterLength);
  const same = Math.min(consumed, common);
  const runs: AlignedRun[] = [];
  if (same > 0) runs.push({ after: 0, before: 0, length: same, kind: SAME });
  if (common > same) runs.push({ after: same, before: same, length: common - same, kind: MODIFIED });
  return new RunAlignment(runs, afterLength, beforeLength);
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
