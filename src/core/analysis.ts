/**
 * What the step rules share about one rewrite: both windows rendered per
 * message (cached), their tool pairs, the message alignment and where the
 * consumed prefix first breaks. Built once per step in time linear in the
 * size of the two windows.
 */
import { alignMessages, type Alignment } from './align';
import { toolPairs, type ContextWindow, type Rewrite, type ToolPair } from './model';
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
  /** True when nothing before the boundary changed: the rewrite is a patch as far as bytes go. */
  readonly prefixIntact: boolean;
  /** File of the before window's sources, when it is not the checked file. */
  readonly beforeFile?: string;
}

export function viewOf(window: ContextWindow, render: RenderCache): WindowView {
  return {
    window,
    messageTexts: window.messages.map((m) => render.messageText(m)),
    toolTexts: window.tools.map((t) => render.tool(t)),
    pairs: toolPairs(window),
  };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((text, i) => text === b[i]);
}

export function analyseRewrite(rewrite: Rewrite, render: RenderCache, beforeFile?: string): RewriteAnalysis {
  const before = viewOf(rewrite.before, render);
  const after = viewOf(rewrite.after, render);
  const consumed = Math.min(rewrite.before.boundary, before.messageTexts.length);
  const toolsChanged = consumed > 0 && !sameList(before.toolTexts, after.toolTexts);
  let breakMessage = -1;
  for (let j = 0; j < consumed; j++) {
    if (before.messageTexts[j] !== after.messageTexts[j]) {
      breakMessage = j;
      break;
    }
  }
  const alignment =
    breakMessage === -1 && !toolsChanged
      ? prefixAlignment(before.messageTexts.length, after.messageTexts.length, consumed)
      : alignMessages(before.messageTexts, after.messageTexts, {
          before: rewrite.before.messages.map((m) => m.role),
          after: rewrite.after.messages.map((m) => m.role),
        });
  return {
    rewrite,
    before,
    after,
    alignment,
    render,
    toolsChanged,
    breakMessage,
    prefixIntact: breakMessage === -1 && !toolsChanged,
    ...(beforeFile !== undefined && { beforeFile }),
  };
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
 * Ids of calls still pending in a window: no result yet, or the result lies
 * at or after the boundary (the model has not consumed it).
 */
export function pendingCallIds(view: WindowView): Set<string> {
  const pending = new Set<string>();
  for (const pair of view.pairs.values()) {
    if (!pair.call) continue;
    const first = pair.results[0];
    if (!first || first.message >= view.window.boundary) pending.add(pair.id);
  }
  return pending;
}
