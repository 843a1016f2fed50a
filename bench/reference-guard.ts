/**
 * The baseline for the guard benchmark: a straight port of the seed's naive
 * set-compare guard, on the same plain window objects the seed reads (and a
 * runtime holds). It compares the sets of tool_use ids and tool_result ids
 * before and after, the tool names the calls need, and the consumed prefix
 * messages serialised with JSON.stringify. No rendering, no positions, no
 * reasons beyond a rule id: what a runtime would write first.
 */
import type { Decision, RuleId } from '../src/core/findings';
import type { PlainWindow } from './windows';

export interface ReferenceVerdict {
  readonly decision: Decision;
  readonly reasons: RuleId[];
}

type Block = { type?: string; id?: string; name?: string; tool_use_id?: string };

function ids(window: PlainWindow): { calls: Set<string>; results: Set<string>; callNames: Set<string> } {
  const calls = new Set<string>();
  const results = new Set<string>();
  const callNames = new Set<string>();
  for (const message of window.messages as { content?: unknown }[]) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as Block[]) {
      if (block.type === 'tool_use') {
        calls.add(block.id ?? '');
        callNames.add(block.name ?? '');
      } else if (block.type === 'tool_result') {
        results.add(block.tool_use_id ?? '');
      }
    }
  }
  return { calls, results, callNames };
}

/** Judges `after` as a rewrite of `before` with set compares and JSON.stringify. */
export function referenceGuard(before: PlainWindow, after: PlainWindow): ReferenceVerdict {
  const old = ids(before);
  const next = ids(after);
  const reasons: RuleId[] = [];
  for (const id of next.results) if (!next.calls.has(id)) reasons.push('tool-result-orphaned');
  for (const id of old.calls) {
    if (old.results.has(id) && next.results.has(id) !== next.calls.has(id)) reasons.push('tool-use-orphaned');
  }
  const registry = new Set((after.tools as { name?: string }[]).map((t) => t.name));
  for (const name of next.callNames) if (!registry.has(name)) reasons.push('schema-dropped');
  if (reasons.length > 0) return { decision: 'abort', reasons: [...new Set(reasons)] };
  const consumedBefore = JSON.stringify(before.messages.slice(0, before.boundary));
  const consumedAfter = JSON.stringify(after.messages.slice(0, before.boundary));
  const toolsSame = JSON.stringify(before.tools) === JSON.stringify(after.tools);
  if (consumedBefore === consumedAfter && toolsSame) return { decision: 'patch', reasons };
  return { decision: 'defer', reasons: ['prefix-mutated'] };
}
