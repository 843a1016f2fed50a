/** Shared by the provider position modules of `tool-result-misplaced`. */
import type { Finding } from '../../findings';
import type { ContextWindow, ToolPair } from '../../model';
import { firstRange, idRange, idText, messageName, related } from '../common';

/** A misplaced result as a position module reports it; `tool-result-misplaced` makes it a finding. */
export type Misplacement = Omit<Finding, 'rule' | 'severity'>;

/** A pair's result, as `toolPairs` indexes it. */
export type PairResult = ToolPair['results'][number];

/** A pair whose call is in the window, with at least one result: the ones position rules judge. */
export type PlacedPair = ToolPair & { readonly call: NonNullable<ToolPair['call']> };

export function placedPairs(pairs: Map<string, ToolPair>): PlacedPair[] {
  return [...pairs.values()].filter((p): p is PlacedPair => p.call !== undefined && p.results.length > 0);
}

/**
 * Judges each pair: no finding when one of its results sits where `isPlaced` says
 * it must (a second result is `tool-result-duplicated`'s business), else one
 * finding on the first result, saying `why`.
 */
export function judgePairs(
  window: ContextWindow,
  pairs: Map<string, ToolPair>,
  isPlaced: (pair: PlacedPair, result: PairResult) => boolean,
  why: (pair: PlacedPair, result: PairResult) => string,
): Misplacement[] {
  const findings: Misplacement[] = [];
  for (const pair of placedPairs(pairs)) {
    if (pair.results.some((result) => isPlaced(pair, result))) continue;
    const result = pair.results[0];
    if (result) findings.push(misplacement(window, pair, result, why(pair, result)));
  }
  return findings;
}

export function misplacement(window: ContextWindow, pair: PlacedPair | ToolPair, result: PairResult, message: string): Misplacement {
  const call = pair.call?.value;
  return {
    message,
    range: firstRange(idRange(result.value), window.messages[result.message]?.source, window.source),
    toolCallId: pair.id,
    related: related(call?.source, `the call ${idText(pair.id)}`),
  };
}

/** Names a window message in the format's own terms (`messages[3]`, `input[0]`, `line 18`): `messageName` of rules/common.ts. */
export function messageLabel(window: ContextWindow, index: number, arrayName: string): string {
  return messageName(window, index, arrayName);
}
