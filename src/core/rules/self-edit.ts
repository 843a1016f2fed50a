/**
 * self-edit — protects the rule that a rewrite the model asks for itself is
 * untrusted: it is judged by the same rules (1)–(4), never waved through.
 *
 * Adds an info finding to every step whose source is `self_edit`, so the
 * verdict shows it was validated as untrusted. It never changes the decision.
 */
import type { RewriteAnalysis } from '../analysis';
import { finding, type Finding } from '../findings';
import type { Rewrite } from '../model';
import { rewriteRange } from './common';

export function checkSelfEdit(a: RewriteAnalysis): Finding[] {
  return selfEditFindings(a.rewrite);
}

/** The rule needs only the rewrite itself (the guard's append shortcut calls it without an analysis). */
export function selfEditFindings(rewrite: Rewrite): Finding[] {
  if (rewrite.source !== 'self_edit') return [];
  return [finding('self-edit', rewriteRange(rewrite), 'The model proposed this rewrite itself; it was judged as untrusted by the same rules')];
}
