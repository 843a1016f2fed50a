/**
 * The baseline for the guard benchmark: a straight port of the seed's naive
 * set-compare guard. It compares the sets of tool_use ids and tool_result ids
 * before and after, the tool names the calls need, and the consumed prefix
 * messages serialised with JSON.stringify. No rendering, no positions, no
 * reasons beyond a rule id: what a runtime would write first.
 */
import type { Decision, RuleId } from '../src/core/findings';
import type { ContextWindow } from '../src/core/model';

export interface ReferenceVerdict {
  readonly decision: Decision;
  readonly reasons: RuleId[];
}

function ids(window: ContextWindow): { calls: Set<string>; results: Set<string>; callNames: Set<string> } {
  const calls = new Set<string>();
  const results = new Set<string>();
  const callNames = new Set<string>();
  for (const message of window.messages) {
    for (const block of message.blocks) {
      if (block.kind === 'tool_call') {
        calls.add(block.id);
        callNames.add(block.name);
      } else if (block.kind === 'tool_result') {
        results.add(block.callId);
      }
    }
  }
  return { calls, results, callNames };
}

/** Judges `after` as a rewrite of `before` with set compares and JSON.stringify. */
export function referenceGuard(before: ContextWindow, after: ContextWindow): ReferenceVerdict {
  const old = ids(before);
  const next = ids(after);
  const reasons: RuleId[] = [];
  for (const id of next.results) if (!next.calls.has(id)) reasons.push('tool-result-orphaned');
  for (const id of old.calls) {
    if (old.results.has(id) && next.results.has(id) !== next.calls.has(id)) reasons.push('tool-use-orphaned');
  }
  const registry = new Set(after.tools.map((t) => t.name));
  for (const name of next.callNames) if (!registry.has(name)) reasons.push('schema-dropped');
  if (reasons.length > 0) return { decision: 'abort', reasons: [...new Set(reasons)] };
  const consumedBefore = JSON.stringify(before.messages.slice(0, before.boundary));
  const consumedAfter = JSON.stringify(after.messages.slice(0, before.boundary));
  const toolsSame = JSON.stringify(before.tools) === JSON.stringify(after.tools);
  if (consumedBefore === consumedAfter && toolsSame) return { decision: 'patch', reasons };
  return { decision: 'defer', reasons: ['prefix-mutated'] };
}
