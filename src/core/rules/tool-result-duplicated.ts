/**
 * tool-result-duplicated — protects (2) pairing integrity: a call has exactly one result.
 *
 * Every result after the first for the same call id is flagged, pointing at the
 * call (and the first result) as related locations.
 */
import type { Finding } from '../findings';
import { toolPairs, type ContextWindow, type ToolPair } from '../model';
import { firstRange, idRange, idText, related } from './common';
import { collected, defineRule, ruleFinding, type Emit } from './rule';

export const meta = defineRule({
  id: 'tool-result-duplicated',
  severity: 'error',
  decides: 'abort',
  title: 'A call has more than one result',
  protects: '(2) pairing integrity',
  fixes: ['compact'],
});

export function checkToolResultDuplicated(window: ContextWindow, pairs: Map<string, ToolPair> = toolPairs(window)): Finding[] {
  return collected((emit) => emitToolResultDuplicated(window, pairs, emit));
}

export function emitToolResultDuplicated(window: ContextWindow, pairs: ReadonlyMap<string, ToolPair>, emit: Emit): void {
  for (const pair of pairs.values()) {
    const results = pair.results;
    if (results.length < 2) continue;
    const first = results[0];
    // One message and one list of related locations per pair: a call with a million results holds them once.
    const message = `Tool call ${idText(pair.id)} has more than one result`;
    const relatedTo = [...related(idRange(pair.call?.value), 'the call'), ...related(idRange(first?.value), 'the first result')];
    for (let r = 1; r < results.length; r++) {
      const result = results[r] as (typeof results)[number];
      emit(
        ruleFinding(meta, firstRange(idRange(result.value), window.source), message, {
          toolCallId: pair.id,
          related: relatedTo,
        }),
      );
    }
  }
}
