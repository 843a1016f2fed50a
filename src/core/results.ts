/**
 * The engine's public result types: what `checkTranscript`, `guardRewrite`,
 * `renderWindow` and `planFix` return. Plain data only (structured-cloneable),
 * so results cross a worker thread or a webview message unchanged.
 */
import type { CacheImpact, Decision, Finding, RuleId, StepVerdict } from './findings';
import type { Limits } from './limits';
import type { ContextWindow, FormatId, Rewrite, RewriteSource } from './model';
import type { SessionSummary } from './session';
import type { ThreadWindow } from './file-threads';
import type { SubAgent } from './sub-agents';
import type { SourceRange } from './text';

export type TokenEncoding = 'o200k_base' | 'cl100k_base';

export interface CheckOptions {
  /** Skip content sniffing and read the file as this format. */
  readonly format?: FormatId;
  /** Token counts for boundaries and cache impact; false = skip counting (fastest). Default o200k_base. */
  readonly tokens?: TokenEncoding | false;
  /** Keep each step's before/after windows in the report (the extension needs them; the CLI does not). */
  readonly keepRewrites?: boolean;
  /** Bounds on reading and reporting (docs/limits.md); unset ones keep their defaults. */
  readonly limits?: Partial<Limits>;
}

/** Where and why reading stopped before the end of the file. */
export interface ReadStop {
  readonly reason: string;
  /** Offset just past the last line read (0 when nothing was read). */
  readonly offset: number;
}

/** Where the generation boundary sits in a rendered window. */
export interface BoundaryPosition {
  /** Consumed messages. */
  readonly messages: number;
  /** Offset in the rendered text just past the consumed prefix. */
  readonly offset: number;
  /** Tokens in the consumed prefix (0 when counting is off). */
  readonly tokens: number;
}

export interface StepReport {
  /** 1-based. */
  readonly index: number;
  readonly decision: Decision;
  readonly source: RewriteSource;
  readonly applied: boolean;
  /** Distinct rule ids of the step's findings, in order. */
  readonly rules: readonly RuleId[];
  /** The event / line that proposed the rewrite. */
  readonly range?: SourceRange;
  /** The conversation of the file the step belongs to (`ThreadInfo.id`), when the reader threads the file. */
  readonly thread?: number;
  /** The boundary of the window the rewrite was judged against. */
  readonly boundary: BoundaryPosition;
  readonly cacheImpact: CacheImpact;
  /** Present when `keepRewrites` was set. */
  readonly rewrite?: Rewrite;
}

export interface Report {
  readonly file: string;
  readonly format: FormatId;
  readonly steps: readonly StepReport[];
  /** Every finding, window-level and per step, sorted by position. */
  readonly findings: readonly Finding[];
  /** Offsets at which the file's lines start, for offset → line/column (see `LineIndex.fromStarts`). */
  readonly lineStarts: readonly number[];
  /** The token encoding used, and that it approximates the provider's tokenizer. */
  readonly tokenizer?: { readonly encoding: TokenEncoding; readonly approximate: true };
  /** Set when reading stopped before the end (a limit, a special file, a reader error): the file has not passed. */
  readonly stopped?: ReadStop;
  /** Findings not listed, per rule, beyond `limits.maxFindingsPerRule` (each such rule also has a summary finding). */
  readonly omitted?: Readonly<Partial<Record<RuleId, number>>>;
  /** The session at a glance, with the cache figures the log reports (see session.ts). */
  readonly session?: SessionSummary;
  /** The last window of the transcript (when `keepRewrites` was set), for the inspector and fixes. */
  readonly finalWindow?: ContextWindow;
  /** When the file has more than one conversation (and `keepRewrites` was set): the last window of each (the session view shows them apart). */
  readonly threadWindows?: readonly ThreadWindow[];
  /** A Claude Code session checked with its sub-agent files (`checkSession`): each one's own report, and the call that started it. */
  readonly subAgents?: readonly SubAgent[];
}

/** One rendered piece of a window, mapped back to the model and the source file. */
export interface RenderSegment {
  readonly start: number;
  readonly end: number;
  readonly kind: 'tool' | 'message' | 'block';
  readonly tool?: number;
  readonly message?: number;
  readonly block?: number;
  /** Set on tool_call / tool_result blocks. */
  readonly callId?: string;
  readonly source?: SourceRange;
}

/** A window rendered to the bytes a provider would see, in provider order (tools, system, messages). */
export interface RenderedWindow {
  readonly text: string;
  /** Offset just past the consumed prefix. */
  readonly boundaryOffset: number;
  readonly segments: readonly RenderSegment[];
}

/** A replacement of a source range, as the extension's quick fix applies it. */
export interface TextEdit {
  readonly range: SourceRange;
  readonly newText: string;
}

/** The nearest acceptable rewrite to an aborting one. */
export interface FixPlan {
  /** One line for a quick-fix title / hover. */
  readonly title: string;
  /** What was elided, restored or kept, in words (the marker's text). */
  readonly description: string;
  /** The fixed proposal. */
  readonly window: ContextWindow;
  /** The fixed proposal re-judged: never `abort`. */
  readonly verdict: StepVerdict;
  /** Edits against the source file that turn the aborting proposal into `window`. */
  readonly edits: readonly TextEdit[];
}
