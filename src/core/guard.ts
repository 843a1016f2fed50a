/**
 * Judging one rewrite: the window checks of the proposal (only findings it
 * introduces), the before/after step rules, the seed's decision precedence
 * and the cost in the provider's prompt cache.
 */
import { analyseRewrite, type RewriteAnalysis } from './analysis';
import type { BoundaryPosition, TokenEncoding } from './results';
import { messageOffset } from './render';
import { createEngineContext, layoutOf, pairsOf, type EngineContext } from './context';
import { decide, distinctFindings, introducedFindings, type CacheImpact, type Finding, type StepVerdict } from './findings';
import { extendPairs, extensionFindings, isExtension, type PairLookup } from './append-step';
import { judgeCut, type CutSources } from './cut-step';
import { lazyWindow } from './formats/native-lazy';
import { extendsMessages, plainBaseOf, windowFromObject, type PlainBase, type ReadRun } from './formats/native-object';
import type { ContextWindow, Message, Rewrite, RewriteSource } from './model';
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

/**
 * Judges a rewrite against the window just before it. A pure extension (see
 * `append-step.ts`) is judged on the pairs it touches; anything else by the full judge.
 */
export function judgeRewrite(rewrite: Rewrite, options: GuardOptions = {}, beforePairs?: PairLookup): StepVerdict {
  const context = options.context ?? createEngineContext(options.tokens ?? false);
  const consumed = () => (context.tokens ? boundaryPosition(rewrite.before, context).tokens : 0);
  return judgeExtension(rewrite, context, consumed, beforePairs) ?? judgeOther(rewrite, { ...options, context });
}

/** The verdict of a pure extension, or undefined when `rewrite` is not one. `beforePairs`: a lookup of the window before's pairs, when the caller has one. */
function judgeExtension(rewrite: Rewrite, context: EngineContext, consumedTokens: () => number, beforePairs?: PairLookup): StepVerdict | undefined {
  if (!isExtension(rewrite.before, rewrite.after, context.render)) return undefined;
  const extension = extensionFindings(rewrite, () => beforePairs ?? pairsOf(rewrite.before, context));
  if (!extension) return undefined;
  const findings = byPosition(distinctFindings([...extension.introduced, ...extension.step]));
  return { decision: decide(findings), source: rewrite.source, findings, cacheImpact: { consumedTokens: consumedTokens(), invalidatedTokens: 0 } };
}

/** A rewrite that is not a pure extension: judged on what it cuts when it keeps one run of the window (`cut-step.ts`), else fully. */
function judgeOther(rewrite: Rewrite, options: GuardOptions & { readonly context: EngineContext }, sources?: CutSources, reused?: readonly ReadRun[]): StepVerdict {
  const cut = judgeCut(rewrite, options.context, options.beforeFile, sources, reused);
  return cut ? stepVerdict(cut.analysis, cut.introduced, options.context) : judgeFully(rewrite, options);
}

/** The full judge: every window check on both windows, every step rule on their analysis. */
export function judgeFully(rewrite: Rewrite, options: GuardOptions = {}): StepVerdict {
  const context = options.context ?? createEngineContext(options.tokens ?? false);
  const analysis = analyseRewrite(rewrite, context, options.beforeFile);
  return stepVerdict(analysis, introducedFindings(windowFindings(rewrite.before, context), windowFindings(rewrite.after, context)), context);
}

/** The verdict on an analysed rewrite: the window findings it introduces and every step rule's, in the full judge's order. */
export function stepVerdict(analysis: RewriteAnalysis, introduced: readonly Finding[], context: EngineContext): StepVerdict {
  const findings = byPosition(distinctFindings([...introduced, ...STEP_CHECKS.flatMap((check) => check(analysis))]));
  return { decision: decide(findings), source: analysis.rewrite.source, findings, cacheImpact: cacheImpact(analysis, context) };
}

function isContextWindow(value: unknown): value is ContextWindow {
  const v = value as Partial<ContextWindow> | null;
  return !!v && typeof v === 'object' && typeof v.format === 'string' && typeof v.live === 'boolean' && Array.isArray(v.messages);
}

/**
 * The library entry point for a runtime: judge a proposed replacement of the
 * current window before applying it. Accepts ContextWindows or plain
 * native-trace-shaped objects; a proposal without `boundary` gets one
 * inferred by aligning its messages with the current window. The same as
 * `createGuard(window, options).check(proposal, options)`.
 */
export function guardRewrite(window: ContextWindow | WindowObject, proposal: ContextWindow | ProposalObject, options: GuardRewriteOptions = {}): StepVerdict {
  return judgeLazily(window, proposal, options) ?? createGuard(window, options).check(proposal, options);
}

/**
 * `createGuard(window).check(proposal)` on plain objects with the window read
 * lazily (`formats/native-lazy.ts`): the judges read only the messages their
 * verdict needs. Undefined when the window cannot be read so.
 */
function judgeLazily(window: ContextWindow | WindowObject, proposal: ContextWindow | ProposalObject, options: GuardRewriteOptions): StepVerdict | undefined {
  if (isContextWindow(window) || isContextWindow(proposal)) return undefined;
  const context = options.context ?? createEngineContext(options.tokens ?? false);
  const lazy = lazyWindow(window, context.render);
  if (!lazy) return undefined;
  const before = lazy.window;
  // The runs of the window's messages the proposal reuses: its kept run, found as it is read.
  const reused: { runs?: ReadRun[] } = {};
  const rewrite: Rewrite = { source: options.source ?? 'runtime', before, after: windowFromObject(proposal, before, lazy.base, context.render, undefined, reused), applied: true };
  const consumed = () => (context.tokens ? (boundaryPosition(before, context).tokens ?? 0) : 0);
  const judging = { context, ...(options.beforeFile !== undefined && { beforeFile: options.beforeFile }) };
  return judgeExtension(rewrite, context, consumed, lazy.pairs) ?? judgeOther(rewrite, judging, lazy.cut, reused.runs);
}

/**
 * A stateful guard for a runtime's loop (see the README's library section).
 * It keeps the current window and what it learned of it; `check` never
 * changes it. Plain message objects passed again (the same objects) are not
 * read again: treat them as immutable once given (replace a message to change
 * it, do not edit it in place).
 */
export interface Guard {
  /** The current window. */
  readonly window: ContextWindow;
  /** The verdict `guardRewrite(guard.window, proposal, options)` gives, at the cost of what the proposal changes. */
  check(proposal: ContextWindow | ProposalObject, options?: { readonly source?: RewriteSource }): StepVerdict;
  /** Makes the proposal the current window (whatever its verdict: the runtime decides); returns it. */
  apply(proposal: ContextWindow | ProposalObject): ContextWindow;
  /** The runtime appends messages (user turns, tool results): the boundary stays. */
  append(messages: readonly unknown[]): ContextWindow;
  /** The model generated messages: appended, and the boundary moves past them (all consumed). */
  generate(messages: readonly unknown[]): ContextWindow;
}

/**
 * Starts a guard on `window`: a ContextWindow (then `append`/`generate` take
 * `Message`s) or a plain native-trace-shaped object (then they take plain
 * messages, as a proposal's `messages` do).
 */
export function createGuard(window: ContextWindow | WindowObject, options: GuardOptions = {}): Guard {
  return new StatefulGuard(window, options);
}

class StatefulGuard implements Guard {
  private current: ContextWindow;
  /** The plain objects the current window was read from (plain mode). */
  private plain: PlainBase | undefined;
  private readonly plainMode: boolean;
  private readonly context: EngineContext;
  /** The consumed tokens of a window (the current one, or the one before it when extended). */
  private tokens: { readonly window: ContextWindow; readonly total: number } | undefined;

  constructor(
    window: ContextWindow | WindowObject,
    private readonly options: GuardOptions,
  ) {
    this.context = options.context ?? createEngineContext(options.tokens ?? false);
    this.plainMode = !isContextWindow(window);
    this.current = isContextWindow(window) ? window : windowFromObject(window, undefined, undefined, this.context.render);
    this.plain = isContextWindow(window) ? undefined : plainBaseOf(window, this.current);
  }

  get window(): ContextWindow {
    return this.current;
  }

  check(proposal: ContextWindow | ProposalObject, options: { readonly source?: RewriteSource } = {}): StepVerdict {
    const rewrite: Rewrite = { source: options.source ?? 'runtime', before: this.current, after: this.proposal(proposal), applied: true };
    const verdict = judgeExtension(rewrite, this.context, () => this.consumedTokens());
    if (verdict) return verdict;
    return judgeOther(rewrite, { context: this.context, ...(this.options.beforeFile !== undefined && { beforeFile: this.options.beforeFile }) });
  }

  apply(proposal: ContextWindow | ProposalObject): ContextWindow {
    const next = this.proposal(proposal);
    this.advance(next, isContextWindow(proposal) ? undefined : plainBaseOf(proposal, next, this.plain));
    return next;
  }

  append(messages: readonly unknown[]): ContextWindow {
    return this.extend(messages, false);
  }

  generate(messages: readonly unknown[]): ContextWindow {
    return this.extend(messages, true);
  }

  private proposal(proposal: ContextWindow | ProposalObject): ContextWindow {
    return isContextWindow(proposal) ? proposal : windowFromObject(proposal, this.current, this.plain, this.context.render);
  }

  private extend(added: readonly unknown[], generated: boolean): ContextWindow {
    const read = this.plainMode ? windowFromObject({ messages: added }).messages : (added as readonly Message[]);
    const messages = [...this.current.messages, ...read];
    const next: ContextWindow = { ...this.current, messages, boundary: generated ? messages.length : this.current.boundary };
    const before = this.plain?.messages;
    const plainMessages = before && read.length === added.length ? { plain: [...before.plain, ...added], read: messages } : undefined;
    this.advance(next, this.plain && { ...(this.plain.tools && { tools: this.plain.tools }), ...(plainMessages && { messages: plainMessages }) });
    return next;
  }

  private advance(next: ContextWindow, plain: PlainBase | undefined): void {
    // The pair index of an extension is the current one's, extended.
    const pairs = this.context.pairs.get(this.current);
    if (pairs && extendsMessages(this.current.messages, next.messages)) this.context.pairs.set(next, extendPairs(pairs, next, this.current.messages.length));
    const counted = this.tokens?.window === this.current ? this.tokens.total : undefined;
    this.tokens = counted === undefined ? undefined : extendedTokens(this.current, counted, next, this.context);
    this.current = next;
    this.plain = plain;
  }

  private consumedTokens(): number {
    if (!this.context.tokens) return 0;
    if (this.tokens?.window !== this.current) this.tokens = { window: this.current, total: boundaryPosition(this.current, this.context).tokens ?? 0 };
    return this.tokens.total;
  }
}

/** The consumed tokens of `next` from those of `window`, when `next` extends it; else undefined (counted again when asked). */
function extendedTokens(window: ContextWindow, total: number, next: ContextWindow, context: EngineContext): { window: ContextWindow; total: number } | undefined {
  const counter = context.tokens;
  const from = Math.min(window.boundary, window.messages.length);
  const to = Math.min(next.boundary, next.messages.length);
  if (!counter || next.tools !== window.tools || to < from || !extendsMessages(window.messages, next.messages)) return undefined;
  let sum = total;
  if (from === 0 && to > 0) for (const tool of next.tools) sum += counter.count(context.render.tool(tool));
  for (let i = from; i < to; i++) sum += counter.count(context.render.messageText(next.messages[i] as Message));
  return { window: next, total: sum };
}

/** Where the boundary of a window sits, in messages, rendered offset and tokens. */
export function boundaryPosition(window: ContextWindow, context: EngineContext): BoundaryPosition {
  return context.positions.of(window, () => {
    const layout = layoutOf(window, context);
    const consumed = Math.min(window.boundary, layout.messageTexts.length);
    return { messages: consumed, offset: layout.boundaryOffset, tokens: consumedTokens(layout.toolTexts, layout.messageTexts, consumed, context) };
  });
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
  const before = a.rewrite.before;
  const consumed = Math.min(before.boundary, before.messages.length);
  // Counting needs every consumed render; without a counter only the break's offset is read.
  const layout = context.tokens ? layoutOf(before, context) : undefined;
  const total = layout ? consumedTokens(layout.toolTexts, layout.messageTexts, consumed, context) : 0;
  if (a.toolsChanged) {
    const offset = '{"tools":['.length + commonPrefixLength(a.before.toolTexts.join(','), a.after.toolTexts.join(','));
    return { consumedTokens: total, invalidatedTokens: total, breakOffset: offset };
  }
  const j = a.breakMessage;
  if (j < 0) return { consumedTokens: total, invalidatedTokens: 0 };
  const start = context.layouts.get(before)?.messageStarts[j] ?? messageOffset(a.before.toolTexts, (k) => a.before.messageTexts.at(k) ?? '', j);
  const offset = start + commonPrefixLength(a.before.messageTexts.at(j) ?? '', a.after.messageTexts.at(j) ?? '');
  const invalidated = layout ? tokensOf(layout.messageTexts, j, consumed, context) : 0;
  return { consumedTokens: total, invalidatedTokens: invalidated, breakOffset: offset };
}
