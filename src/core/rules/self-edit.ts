/**
 * self-edit — protects the rule that a rewrite the model asks for itself is
 * untrusted: it is judged by the same rules (1)–(4), never waved through.
 *
 * Adds an info finding to every step whose source is `self_edit`, so the
 * verdict shows it was validated as untrusted. It never changes the decision.
 */
import type { RewriteAnalysis } from '../analysis';
import type { Finding } from '../findings';
import type { Rewrite } from '../model';
import { rewriteRange } from './common';
import { defineRule, ruleFinding } from './rule';

export const meta = defineRule({
  id: 'self-edit',
  severity: 'info',
  decides: 'none',
  title: 'The model proposed this rewrite; judged as untrusted',
  protects: 'self-edits are judged by the same rules',
  fixes: [],
});

export function checkSelfEdit(a: RewriteAnalysis): Finding[] {
  return selfEditFindings(a.rewrite);
}

/** The rule needs only the rewrite itself (the guard's append shortcut calls it without an analysis). */
export function selfEditFindings(rewrite: Rewrite): Finding[] {
  if (rewrite.source !== 'self_edit') return [];
  return [ruleFinding(meta, rewriteRange(rewrite), 'The model proposed this rewrite itself; it was judged as untrusted by the same rules')];
}
