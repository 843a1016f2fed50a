/**
 * Pair states: whether each tool call and result of a window has its partner.
 * The one definition the orphan rules, the inspector and the diagnostics use.
 *
 * A call without a result is an orphan wherever it sits, except in a live
 * window (a native trace, a session transcript) where a call at the frontier —
 * no later assistant turn — is still pending. A result whose call is not in
 * the window is an orphan (the rule reports it as `server-state-pairing` when
 * the window continues server-side state).
 */
import type { Finding, RelatedLocation } from './findings';
import { toolPairs, type ContextWindow, type ToolPair } from './model';
import type { Report } from './results';
import { idRange } from './rules/common';

export type PairState = 'paired' | 'pending' | 'orphan-call' | 'orphan-result';

/** The frontier of a window: the index of its last assistant message (-1 when none). A live window's calls from there on are pending. */
export function frontier(window: ContextWindow): number {
  let last = window.messages.length - 1;
  while (last >= 0 && window.messages[last]?.role !== 'assistant') last--;
  return last;
}

/** The state of every pair of a window, keyed like `toolPairs` (by `pairKey`), in order of first appearance. */
export function pairStates(window: ContextWindow, pairs: ReadonlyMap<string, ToolPair> = toolPairs(window)): Map<string, PairState> {
  const lastAssistant = frontier(window);
  const states = new Map<string, PairState>();
  for (const [key, pair] of pairs) states.set(key, pairState(window, pair, lastAssistant));
  return states;
}

/** The state of one pair of `window`, whose frontier is `lastAssistant` (`frontier(window)`). */
export function pairState(window: ContextWindow, pair: ToolPair, lastAssistant: number): PairState {
  return placedState(window, pair.call ? pair.call.message : -1, pair.results.length > 0, lastAssistant);
}

/** The state of a pair of `window` whose call is in message `call` (-1: none), with results or not (`pairState`, from an index's numbers). */
export function placedState(window: ContextWindow, call: number, hasResults: boolean, lastAssistant: number): PairState {
  if (call < 0) return 'orphan-result';
  if (hasResults) return 'paired';
  return window.live && call >= lastAssistant ? 'pending' : 'orphan-call';
}

/**
 * A finding's related locations: its own, and for a pair a rewrite broke, the
 * partner as it was in the window before the rewrite (the call of an orphaned
 * result, the result of an orphaned call) unless the finding already points there.
 */
export function relatedLocations(finding: Finding, report: Report): RelatedLocation[] {
  const own = finding.related ?? [];
  if (finding.step === undefined || !finding.toolCallId) return [...own];
  if (finding.rule !== 'tool-result-orphaned' && finding.rule !== 'tool-use-orphaned') return [...own];
  const before = report.steps.find((s) => s.index === finding.step)?.rewrite?.before;
  const pair = before ? toolPairs(before).get(finding.toolCallId) : undefined;
  const partner =
    finding.rule === 'tool-result-orphaned'
      ? { range: idRange(pair?.call?.value), message: 'the call, before the rewrite dropped it' }
      : { range: idRange(pair?.results[0]?.value), message: 'the result, before the rewrite dropped it' };
  const range = partner.range;
  if (!range || own.some((r) => r.range.start === range.start)) return [...own];
  return [...own, { range, message: partner.message }];
}
