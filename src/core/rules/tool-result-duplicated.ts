/**
 * tool-result-duplicated — protects (2) pairing integrity: a call has exactly one result.
 *
 * Every result after the first for the same call id is flagged, pointing at the
 * call (and the first result) as related locations.
 */
import type { Finding } from '../findings';
import { toolPairs, type ContextWindow, type ToolPair } from '../model';
import { firstRange, idRange, idText, related } from './common';
import { defineRule, ruleFinding } from './rule';

export const meta = defineRule({
  id: 'tool-result-duplicated',
  severity: 'error',
  decides: 'abort',
  title: 'A call has more than one result',
  protects: '(2) pairing integrity',
  fixes: ['compact'],
});

export function checkToolResultDuplicated(window: ContextWindow, pairs: Map<string, ToolPair> = toolPairs(window)): Finding[] {
  const findings: Finding[] = [];
  for (const pair of pairs.values()) {
    const [first, ...extra] = pair.results;
    for (const result of extra) {
      findings.push(
        ruleFinding(meta, firstRange(idRange(result.value), window.source), `Tool call ${idText(pair.id)} has more than one result`, {
          toolCallId: pair.id,
          related: [...related(idRange(pair.call?.value), 'the call'), ...related(idRange(first?.value), 'the first result')],
        }),
      );
    }
  }
  return findings;
}
