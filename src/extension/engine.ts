/**
 * The extension's one door to the engine (`src/core`): every engine type and
 * call the extension uses comes through here (a unit test keeps it so). The
 * extension host and the worker thread both check through `checkRequest`, so
 * a file gives the same report on either side. No `vscode` import (the worker
 * runs plain Node).
 */
import type { CheckOptions, Report, TokenEncoding } from '../core/index';
import { checkAgainst, checkTranscript, detectFormat, inputFromFile, inputFromText } from '../core/index';

export type {
  CheckOptions,
  ContextWindow,
  Decision,
  Finding,
  FixPlan,
  PairState,
  RelatedLocation,
  RenderedWindow,
  Report,
  Rewrite,
  RuleId,
  Severity,
  SourceRange,
  StepReport,
  TextEdit,
  TokenEncoding,
  ToolPair,
  JsonNode,
  Message,
  SessionSummary,
} from '../core/index';
export { LineIndex, pairKey, pairStates, planFix, relatedLocations, renderWindow, RULES, toolPairs, CARRIED_FROM, renderJson } from '../core/index';
export { addPlaceholderResult, removeOrphanedResult } from '../core/fix/single';
export { applyEdits } from '../core/fix/edits';
export { toMarkdown } from '../core/report/markdown';
export { toSarif } from '../core/report/sarif';
export { shownThread } from '../core/report/json';
export { startProxy, type RunningProxy } from '../core/live/proxy';

/** A document's text and the name it is reported under. */
export interface FileText {
  readonly file: string;
  readonly text: string;
}

/**
 * What one check needs: plain data, so it crosses to a worker thread
 * unchanged. `transcript`: a document on its own; `against`: `newer` judged
 * as a rewrite of `older` ("Compare with…").
 */
export type CheckRequest =
  | ({ readonly kind: 'transcript'; readonly tokens: TokenEncoding | false } & FileText)
  | { readonly kind: 'against'; readonly older: FileText; readonly newer: FileText; readonly tokens: TokenEncoding | false };

/** The file a request is reported under, and how much text it checks (UTF-16 units). */
export function requestSize(request: CheckRequest): { readonly file: string; readonly length: number } {
  if (request.kind === 'transcript') return { file: request.file, length: request.text.length };
  return { file: request.newer.file, length: request.older.text.length + request.newer.text.length };
}

/** Checks a request (never throws for bad input: the engine turns it into findings). */
export function checkRequest(request: CheckRequest): Report {
  const options: CheckOptions = { keepRewrites: true, tokens: request.tokens };
  if (request.kind === 'against') return checkAgainst(request.older, request.newer, options);
  return checkTranscript(inputFromText(request.file, request.text), options);
}

/** True when the engine recognises the first bytes as a transcript format. */
export function recognises(head: string): boolean {
  return detectFormat(head) !== undefined;
}

/** Checks a file on disk as the engine reads it (a zip such as `.eval` included): the session view's check. */
export function checkFile(path: string, tokens: TokenEncoding | false): Report {
  return checkTranscript(inputFromFile(path), { keepRewrites: true, tokens });
}
