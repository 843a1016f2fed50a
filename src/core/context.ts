/**
 * Per-check working state shared by the adapters' windows, the guard and the
 * window checks: renders, window findings and token counts are computed once
 * per object / string. Create one per check (never module-level).
 */
import type { TokenEncoding } from './results';
import { textIndex, type TextIndex } from './align';
import type { Finding } from './findings';
import { toolPairs, type ContextWindow, type ToolPair } from './model';
import { RenderCache, windowLayout, type WindowLayout } from './render';
import { createTokenCounter, type TokenCounter } from './tokens';
import { BoundaryPositions } from './boundary';

export interface EngineContext {
  readonly render: RenderCache;
  readonly tokens?: TokenCounter;
  readonly windowFindings: WeakMap<ContextWindow, readonly Finding[]>;
  readonly pairs: WeakMap<ContextWindow, Map<string, ToolPair>>;
  readonly layouts: WeakMap<ContextWindow, WindowLayout>;
  readonly textIndexes: WeakMap<ContextWindow, TextIndex>;
  /** Boundary positions, per window object and from the window a window extends. */
  readonly positions: BoundaryPositions;
  /** Per window, every call of each id that more than one call has, in order. */
  readonly repeatedCalls: WeakMap<ContextWindow, ReadonlyMap<string, readonly CallMember[]>>;
}

/** A call at its place in a window (as `ToolPair.call`). */
export type CallMember = NonNullable<ToolPair['call']>;

export function createEngineContext(tokens: TokenEncoding | false = 'o200k_base'): EngineContext {
  const render = new RenderCache();
  const counter = tokens === false ? undefined : createTokenCounter(tokens);
  return {
    render,
    ...(counter && { tokens: counter }),
    windowFindings: new WeakMap(),
    pairs: new WeakMap(),
    layouts: new WeakMap(),
    textIndexes: new WeakMap(),
    positions: new BoundaryPositions(render, counter),
    repeatedCalls: new WeakMap(),
  };
}

/** The render layout of a window, computed once per window object. */
export function layoutOf(window: ContextWindow, context: EngineContext): WindowLayout {
  let layout = context.layouts.get(window);
  if (!layout) context.layouts.set(window, (layout = windowLayout(window, context.render)));
  return layout;
}

/** The tool pairs of a window, indexed once per window object. */
export function pairsOf(window: ContextWindow, context: EngineContext): Map<string, ToolPair> {
  let pairs = context.pairs.get(window);
  if (!pairs) context.pairs.set(window, (pairs = toolPairs(window)));
  return pairs;
}

/** A window's messages indexed by rendered text for aligning against it, once per window object. */
export function textIndexOf(window: ContextWindow, context: EngineContext): TextIndex {
  let index = context.textIndexes.get(window);
  if (!index) context.textIndexes.set(window, (index = textIndex(layoutOf(window, context).messageTexts)));
  return index;
}

/** Every call of each id that more than one call of the window has, in order; once per window object. */
export function repeatedCallsOf(window: ContextWindow, context: EngineContext): ReadonlyMap<string, readonly CallMember[]> {
  let repeated = context.repeatedCalls.get(window);
  if (repeated) return repeated;
  const calls = new Map<string, CallMember[]>();
  window.messages.forEach((message, m) =>
    message.blocks.forEach((block, b) => {
      if (block.kind !== 'tool_call') return;
      const member = { message: m, block: b, value: block };
      const list = calls.get(block.id);
      if (list) list.push(member);
      else calls.set(block.id, [member]);
    }),
  );
  repeated = new Map([...calls].filter(([, list]) => list.length > 1));
  context.repeatedCalls.set(window, repeated);
  return repeated;
}
