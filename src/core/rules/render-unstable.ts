/**
 * render-unstable — protects (4) deterministic re-render: the consumed prefix,
 * rendered again, gives the same bytes.
 *
 * Flags consumed messages and tool declarations whose bytes changed while their
 * meaning did not (key order, whitespace inside an embedded JSON string, number
 * form, unicode normalisation), naming the cause. It defers (the cache breaks)
 * but is not an edit: it never counts as a pair straddle.
 */
import type { RewriteAnalysis } from '../analysis';
import type { Finding } from '../findings';
import { at, firstRange, messageName, q, related, rewriteRange } from './common';
import { changedBlock } from './prefix-mutated';
import { prefixChanges } from './prefix-changes';
import { defineRule, ruleFinding } from './rule';

export const meta = defineRule({
  id: 'render-unstable',
  severity: 'warning',
  decides: 'defer',
  title: 'Same meaning, different bytes',
  protects: '(4) deterministic re-render',
  fixes: [],
});

export function checkRenderUnstable(a: RewriteAnalysis): Finding[] {
  const findings: Finding[] = [];
  for (const change of prefixChanges(a)) {
    if (change.kind === 'tool-modified' && change.cause) {
      const tool = a.rewrite.after.tools[change.after];
      findings.push(
        ruleFinding(meta, firstRange(tool?.source, a.rewrite.after.toolsSource, rewriteRange(a.rewrite)), `Tool ${q(tool?.name ?? '')} re-rendered with different bytes, same meaning: ${change.cause}`, {
          related: related(a.rewrite.before.tools[change.before]?.source, 'the bytes the model read', a.beforeFile),
        }),
      );
    } else if (change.kind === 'message-modified' && change.cause) {
      const block = changedBlock(a, change.before, change.after);
      findings.push(
        ruleFinding(meta, firstRange(block.after, rewriteRange(a.rewrite)), `The consumed message${at(messageName(a.rewrite.after, change.after))} re-rendered with different bytes, same meaning: ${change.cause}`, {
          related: related(block.before, 'the bytes the model read', a.beforeFile),
        }),
      );
    }
  }
  return findings;
}
