/**
 * The extension's one door to the engine (`src/core`): every engine type and
 * call the extension uses comes through here (a unit test keeps it so). The
 * extension host and the worker thread both check through `checkRequest`, so
 * a file gives the same report on either side. No `vscode` import (the worker
 * runs plain Node).
 */
import type { CheckOptions, Report, TokenEncoding } from '../core/index';
import { checkTranscript, detectFormat, inputFromText } from '../core/index';

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
} from '../core/index';
export { checkAgainst, LineIndex, pairKey, pairStates, planFix, relatedLocations, renderWindow, RULES } from '../core/index';
export { addPlaceholderResult, removeOrphanedResult } from '../core/fix/single';
export { toMarkdown } from '../core/report/markdown';
export { toSarif } from '../core/report/sarif';

/** A document's text and the name it is reported under. */
export interface FileText {
  readonly file: string;
  readonly text: string;
}

/** What one check needs: plain data, so it crosses to a worker thread unchanged. */
export interface CheckRequest extends FileText {
  readonly tokens: TokenEncoding | false;
}

export function checkOptions(tokens: TokenEncoding | false): CheckOptions {
  return { keepRewrites: true, tokens };
}

/** Checks a document's text (never throws for bad input: the engine turns it into findings). */
export function checkRequest(request: CheckRequest): Report {
  return checkTranscript(inputFromText(request.file, request.text), checkOptions(request.tokens));
}

/** True when the engine recognises the first bytes as a transcript format. */
export function recognises(head: string): boolean {
  return detectFormat(head) !== undefined;
}
