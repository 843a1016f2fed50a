/**
 * Judging one rewrite: the window checks of the proposal (only findings it
 * introduces), the before/after step rules, the seed's decision precedence
 * and the cost in the provider's prompt cache.
 */
import { analyseRewrite, type RewriteAnalysis } from './analysis';
import type { BoundaryPosition, TokenEncoding } from './results';
import { createEngineContext, layoutOf, pairsOf, type EngineContext } from './context';
import { decide, type CacheImpact, type Finding, type StepVerdict } from './findings';
import { windowFromObject } from './formats/native';
import type { ContextWindow, Rewrite, RewriteSource } from './model';
import { identityKeys } from './rules/common';
import { checkWindow, STEP_CHECKS } from './rules/index';

export interface GuardOptions {
  /** Count tokens for the cache impact; default false here (fast), pass an encoding to count. */
  readonly tokens?: TokenEncoding | false;
  /** Shared caches across many calls (one check, a runtime's session). */
  readonly context?: EngineContext;
  /** File of the before window's sources, when it is not the file being checked (`checkAgainst`). */
  readonly beforeFile?: string;
}

export interface GuardRewriteOptions extends GuardOptions {
  /** Who proposes the rewrite; default `runtime`. `self_edit` is judged as untrusted. */
  readonly source?: RewriteSource;
}

/** A plain native-trace-shaped window: `{tools?, messages, boundary?}` (see docs/trace-format.md). */
export interface WindowObject {
  readonly tools?: readonly unknown[];
  readonly messages: readonly unknown[];
  readonly boundary?: number;
}

/** A proposal as a plain object: a missing field is unchanged from the current window. */
export interface ProposalObject {
  readonly tools?: readonly unknown[];
  readonly messages?: readonly unknown[];
  readonly boundary?: number;
}

/** The pairing findings of a window, computed once per window object. */
export function windowFindings(window: ContextWindow, context: EngineContext): readonly Finding[] {
  let findings = context.windowFindings.get(window);
  if (!findings) context.windowFindings.set(window, (findings = checkWindow(window, pairsOf(window, context))));
  return findings;
}

/** Sorts findings by where they are, keeping the rule order for equal positions. */
export function byPosition(findings: readonly Finding[]): Finding[] {
  return findings
    .map((f, i) => [f, i] as const)
    .sort(([a, i], [b, j]) => a.range.start - b.range.start || a.range.end - b.range.end || i - j)
    .map(([f]) => f);
}

/** Drops repeats of one finding (same rule, call id and position) found by two checks. */
function distinct(findings: readonly Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((f) => {
    const key = `${f.rule}\u0000${f.toolCallId ?? f.message}\u0000${f.range.start}`;
    return !seen.has(key) && !!seen.add(key);
  });
}

/** Judges a rewrite against the window just before it. */
export function judgeRewrite(rewrite: Rewrite, options: GuardOptions = {}): StepVerdict {
  const context = options.context ?? createEngineContext(options.tokens ?? false);
  const analysis = analyseRewrite(rewrite, context, options.beforeFile);
  const beforeKeys = new Set(identityKeys(windowFindings(rewrite.before, context)));
  const afterFindings = windowFindings(rewrite.after, context);
  const introduced = identityKeys(afterFindings).flatMap((key, i) => (beforeKeys.has(key) ? [] : [afterFindings[i] as Finding]));
  const findings = byPosition(distinct([...introduced, ...STEP_CHECKS.flatMap((check) => check(analysis))]));
  return { decision: decide(findings), source: rewrite.source, findings, cacheImpact: cacheImpact(analysis, context) };
}

function isContextWindow(value: unknown): value is ContextWindow {
  const v = value as Partial<ContextWindow> | null;
  return !!v && typeof v === 'object' && typeof v.format === 'string' && typeof v.live === 'boolean' && Array.isArray(v.messages);
}

/**
 * The library entry point for a runtime: judge a proposed replacement of the
 * current window before applying it. Accepts ContextWindows or plain
 * native-trace-shaped objects; a proposal without `boundary` gets one
 * inferred by aligning its messages with the current window.
 */
export function guardRewrite(window: ContextWindow | WindowObject, proposal: ContextWindow | ProposalObject, options: GuardRewriteOptions = {}): StepVerdict {
  const before = isContextWindow(window) ? window : windowFromObject(window);
  const after = isContextWindow(proposal) ? proposal : windowFromObject(proposal, before);
  return judgeRewrite({ source: options.source ?? 'runtime', before, after, applied: true }, options);
}

/** Where the boundary of a window sits, in messages, rendered offset and tokens. */
export function boundaryPosition(window: ContextWindow, context: EngineContext): BoundaryPosition {
  const layout = layoutOf(window, context);
  const consumed = Math.min(window.boundary, layout.messageTexts.length);
  return { messages: consumed, offset: layout.boundaryOffset, tokens: consumedTokens(layout.toolTexts, layout.messageTexts, consumed, context) };
}

/** Tokens of texts[from, to) (0 when counting is off). */
function tokensOf(texts: readonly string[], from: number, to: number, context: EngineContext): number {
  const counter = context.tokens;
  if (!counter) return 0;
  let total = 0;
  for (let j = from; j < to; j++) total += counter.count(texts[j] ?? '');
  return total;
}

/** Tokens of the consumed prefix: the tools (once any message is consumed) and the consumed messages. */
function consumedTokens(tools: readonly string[], messages: readonly string[], consumed: number, context: EngineContext): number {
  if (consumed <= 0) return 0;
  return tokensOf(tools, 0, tools.length, context) + tokensOf(messages, 0, consumed, context);
}

function commonPrefixLength(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let k = 0;
  while (k < n && a.charCodeAt(k) === b.charCodeAt(k)) k++;
  return k;
}

/** Consumed tokens before the rewrite, and those at or after the first changed byte (per message). */
function cacheImpact(a: RewriteAnalysis, context: EngineContext): CacheImpact {
  const layout = layoutOf(a.rewrite.before, context);
  const consumed = Math.min(a.rewrite.before.boundary, layout.messageTexts.length);
  const total = consumedTokens(layout.toolTexts, layout.messageTexts, consumed, context);
  if (a.toolsChanged) {
    const offset = '{"tools":['.length + commonPrefixLength(a.before.toolTexts.join(','), a.after.toolTexts.join(','));
    return { consumedTokens: total, invalidatedTokens: total, breakOffset: offset };
  }
  const j = a.breakMessage;
  if (j < 0) return { consumedTokens: total, invalidatedTokens: 0 };
  const offset = (layout.messageStarts[j] ?? 0) + commonPrefixLength(a.before.messageTexts[j] ?? '', a.after.messageTexts[j] ?? '');
  const invalidated = tokensOf(layout.messageTexts, j, consumed, context);
  return { consumedTokens: total, invalidatedTokens: invalidated, breakOffset: offset };
}
