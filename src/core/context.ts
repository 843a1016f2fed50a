/**
 * Per-check working state shared by the adapters' windows, the guard and the
 * window checks: renders, window findings and token counts are computed once
 * per object / string. Create one per check (never module-level).
 */
import type { TokenEncoding } from './results';
import { textIndex, type TextIndex } from './align';
import type { Finding } from './findings';
import { idIndex, type IdIndex } from './id-index';
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
  readonly idIndexes: WeakMap<ContextWindow, IdIndex>;
}

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
    idIndexes: new WeakMap(),
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

/** Where each id of a window reaches (for judging cuts of it), once per window object. */
export function idIndexOf(window: ContextWindow, context: EngineContext): IdIndex {
  let index = context.idIndexes.get(window);
  if (!index) context.idIndexes.set(window, (index = idIndex(window)));
  return index;
}
