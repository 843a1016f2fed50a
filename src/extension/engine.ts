/**
 * The engine calls the extension uses, in one place: the extension host and
 * the worker thread both check through `runCheck`, so a file gives the same
 * report on either side. No `vscode` import (the worker runs plain Node).
 */
import type { CheckOptions, Report, TokenEncoding } from '../core/api';
import { checkTranscript, detectFormat } from '../core/index';
import { inputFromText } from '../core/io';

export { checkAgainst, RULES } from '../core/index';
export { applyEdits } from '../core/fix/edits';
export { planFix } from '../core/fix/plan';
export { addPlaceholderResult, removeOrphanedResult } from '../core/fix/single';

/** What one check needs: plain data, so it crosses to a worker thread unchanged. */
export interface CheckRequest {
  readonly file: string;
  readonly text: string;
  readonly tokens: TokenEncoding | false;
}

export function checkOptions(tokens: TokenEncoding | false): CheckOptions {
  return { keepRewrites: true, tokens };
}

/** Checks a document's text (never throws for bad input: the engine turns it into findings). */
export function runCheck(request: CheckRequest): Report {
  return checkTranscript(inputFromText(request.file, request.text), checkOptions(request.tokens));
}

/** True when the engine recognises the first bytes as a transcript format. */
export function recognises(head: string): boolean {
  return detectFormat(head) !== undefined;
}
