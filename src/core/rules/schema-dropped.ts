/**
 * schema-dropped — protects (3) schema versioning: a schema may leave the active
 * registry only when no pending call still needs it.
 *
 * A call is pending until the model has consumed its result (no result yet, or
 * the result lies after the boundary). Pending calls on either side of the
 * rewrite count. With a historical registry (native trace) a schema that only
 * completed pairs reference stays resolvable and may leave (the registry change
 * still defers as `prefix-mutated`); without one (provider request bodies) every
 * call in the proposal counts.
 */
import { unconsumedCallIds, type RewriteAnalysis } from '../analysis';
import type { Finding } from '../findings';
import type { ToolCall } from '../model';
import { firstRange, idRange, idText, q, related, rewriteRange } from './common';
import { defineRule, ruleFinding } from './rule';

export const meta = defineRule({
  id: 'schema-dropped',
  severity: 'error',
  decides: 'abort',
  title: 'A schema left the registry while a call still needs it',
  protects: '(3) schema versioning',
  fixes: ['compact'],
  leads: 3,
});

export function checkSchemaDropped(a: RewriteAnalysis): Finding[] {
  const afterNames = new Set(a.rewrite.after.tools.map((t) => t.name));
  const dropped = new Map(a.rewrite.before.tools.filter((t) => !afterNames.has(t.name)).map((t) => [t.name, t] as const));
  if (!dropped.size) return [];
  const findings: Finding[] = [];
  const reported = new Set<string>();
  const report = (call: ToolCall, inAfter: boolean, why: string) => {
    const tool = dropped.get(call.name);
    if (!tool || reported.has(call.id)) return;
    reported.add(call.id);
    const at = inAfter ? idRange(call) : undefined;
    const callRelated = inAfter ? [] : related(idRange(call), 'the call that needs it', a.beforeFile);
    findings.push(
      ruleFinding(meta, firstRange(at, a.rewrite.after.toolsSource, rewriteRange(a.rewrite)), `Tool ${q(call.name)} was dropped from the registry while call ${idText(call.id)} ${why}`, {
        toolCallId: call.id,
        related: [...callRelated, ...related(tool.source, 'the dropped declaration', a.beforeFile)],
      }),
    );
  };
  const historical = a.rewrite.after.historicalTools !== undefined;
  const unconsumedAfter = unconsumedCallIds(a.after);
  for (const pair of a.after.pairs.values()) {
    if (!pair.call) continue;
    if (unconsumedAfter.has(pair.id)) report(pair.call.value, true, 'is still pending');
    else if (!historical) report(pair.call.value, true, 'still references it (no historical registry)');
  }
  for (const id of unconsumedCallIds(a.before)) {
    const call = a.before.pairs.get(id)?.call?.value;
    if (call) report(call, false, 'was still pending');
  }
  return findings;
}
