/**
 * Per-check working state shared by the adapters' windows, the guard and the
 * window checks: renders, window findings and token counts are computed once
 * per object / string. Create one per check (never module-level).
 */
import type { TokenEncoding } from './api';
import type { Finding } from './findings';
import type { ContextWindow } from './model';
import { RenderCache } from './render';
import { createTokenCounter, type TokenCounter } from './tokens';

export interface EngineContext {
  readonly render: RenderCache;
  readonly tokens?: TokenCounter;
  readonly windowFindings: WeakMap<ContextWindow, readonly Finding[]>;
}

export function createEngineContext(tokens: TokenEncoding | false = 'o200k_base'): EngineContext {
  return {
    render: new RenderCache(),
    ...(tokens !== false && { tokens: createTokenCounter(tokens) }),
    windowFindings: new WeakMap(),
  };
}
