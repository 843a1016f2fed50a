/**
 * schema-changed — protects (2) pairing integrity and (3) schema versioning: a
 * pending call's result is interpreted under the schema version it was made against.
 *
 * Flags a pending call whose `schema_version` no longer matches the active
 * registry version of its tool after the rewrite, when it matched (or the call
 * or tool differed) before: the rewrite introduced the mismatch.
 */
import { unconsumedCallIds, type RewriteAnalysis } from '../analysis';
import type { Finding } from '../findings';
import type { ContextWindow, Rewrite, ToolCall, ToolSchema } from '../model';
import { firstRange, idRange, idText, q, related, rewriteRange } from './common';
import { defineRule, ruleFinding } from './rule';

export const meta = defineRule({
  id: 'schema-changed',
  severity: 'error',
  decides: 'abort',
  title: "A call's schema version no longer matches its result's",
  protects: '(2) pairing integrity, (3) schema versioning',
  fixes: ['compact'],
  leads: 4,
});

function activeTool(window: ContextWindow, name: string): ToolSchema | undefined {
  return window.tools.find((t) => t.name === name);
}

function mismatch(call: ToolCall, tool: ToolSchema | undefined): boolean {
  return call.schemaVersion !== undefined && tool?.version !== undefined && tool.version !== call.schemaVersion;
}

export function checkSchemaChanged(a: RewriteAnalysis): Finding[] {
  const findings: Finding[] = [];
  for (const id of unconsumedCallIds(a.after)) {
    const call = a.after.pairs.get(id)?.call?.value;
    const found = call && newSchemaMismatch(a.rewrite, id, call, a.before.pairs.get(id)?.call?.value);
    if (found) findings.push(found);
  }
  return findings;
}

/**
 * The finding on a pending call of the proposal whose tool now declares another
 * version than the call's, when its call before (if any) matched: undefined otherwise.
 */
export function newSchemaMismatch(rewrite: Rewrite, id: string, call: ToolCall, callBefore: ToolCall | undefined): Finding | undefined {
  const tool = activeTool(rewrite.after, call.name);
  if (!tool || !mismatch(call, tool)) return undefined;
  if (callBefore && mismatch(callBefore, activeTool(rewrite.before, callBefore.name))) return undefined;
  return schemaChangedFinding(rewrite, id, call, tool);
}

function schemaChangedFinding(rewrite: Rewrite, id: string, call: ToolCall, tool: ToolSchema): Finding {
  return ruleFinding(meta, firstRange(idRange(call), rewriteRange(rewrite)), `Call ${idText(id)} was made against ${call.name} version ${q(call.schemaVersion ?? '')}, but the registry now declares version ${q(tool.version ?? '')}`, {
    toolCallId: id,
    related: related(tool.source, 'the declaration now active'),
  });
}
