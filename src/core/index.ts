/**
 * Prefix Lens as a library (`import { checkTranscript, createGuard, guardRewrite } from 'prefix-lens'`).
 * Plain Node, no `vscode`.
 */
export { checkAgainst, checkTranscript, UnknownFormatError, type CheckInput } from './check';
export { Follower, type FollowOptions, type TextChange } from './follow';
export { checkSession, readSubAgents, subAgentDir, type SubAgent, type SubAgentSource } from './sub-agents';
export { boundaryPosition, createGuard, guardRewrite, judgeRewrite, windowFindings, type Guard, type GuardOptions, type GuardRewriteOptions, type ProposalObject, type WindowObject } from './guard';
export { renderBlock, renderJson, renderMessage, renderMessageParts, renderTool, renderWindow, RenderCache, type MessageRender } from './render';
export { canonicalJson, explainRenderDifference } from './meaning';
export { ADAPTERS, adapterFor, detectFormat } from './formats/registry';
export { nativeAdapter, windowFromObject } from './formats/native';
export { inputFromFile, inputFromText, type SniffableInput } from './io';
export { createEngineContext, type EngineContext } from './context';
export { createTokenCounter, type TokenCounter } from './tokens';
export { checkWindow } from './rules/index';
export { decide, finding, RULE_IDS, RULES } from './findings';
export type { CacheImpact, Decision, Finding, RelatedLocation, RuleId, RuleInfo, Severity, StepVerdict } from './findings';
export type { FixKind } from './rules/rule';
export type * from './model';
export { CARRIED_FROM, pairKey, toolCalls, toolPairs, toolResults } from './model';
export { pairStates, relatedLocations, type PairState } from './pairing';
export type * from './results';
export type { CacheReason, CacheRow, PairCounts, SessionSummary, UsageTotals } from './session';
export type { ThreadSummary, ThreadWindow } from './file-threads';
export type * from './transcript';
export type { LineColumn, SourceLine, SourceRange } from './text';
export { LineIndex } from './text';
export type { JsonNode } from './json/parse';
export { planFix, type PlanFixOptions } from './fix/plan';
export { applyEdits } from './fix/edits';
export { guardedFetch, GuardRefusedError, refusalOf, type GuardedFetchOptions } from './live/fetch';
export { LiveGuard, type LiveGuardOptions, type LiveVerdict, type PendingExchange, type JudgeOutcome } from './live/judge';
export { providerErrorBody, providerOfPath, refusalMessage, type LiveProvider } from './live/endpoints';
export { rebuildStreamedBody } from './live/sse';
export { startProxy, type ProxyOptions, type RunningProxy, type VerdictEvent } from './live/proxy';
