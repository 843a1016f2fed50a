/**
 * What a rule module carries beside its check: its metadata, the way an ESLint
 * rule carries `meta` beside `create`. `rules/index.ts` lists the modules; the
 * rule table (`RULES`), the `RuleId` union, the README table, the per-rule
 * severity setting in `package.json` and the extension's fix and lens orders
 * are all derived from these, so a rule is added in one module.
 */
import type { Decision, Finding, RuleId, Severity } from '../findings';
import type { SourceRange } from '../text';

/**
 * The fixes Prefix Lens offers for a finding: `compact` re-plans an aborting
 * step as a compaction in whole pairs (`planFix`, step findings);
 * `remove-result` deletes an orphaned tool result and `add-result` adds a
 * placeholder result for a pending call (`fix/single.ts`, window findings).
 */
export type FixKind = 'compact' | 'remove-result' | 'add-result';

export interface RuleMeta<Id extends string = RuleId> {
  readonly id: Id;
  /** The default severity (display only: settings may override it, decisions never change). */
  readonly severity: Severity;
  /** How the rule weighs in a step's decision. */
  readonly decides: Decision | 'none';
  readonly title: string;
  /** The seed condition it protects: (1) prefix identity … (4) deterministic re-render. */
  readonly protects: string;
  /** The fixes that address its findings. */
  readonly fixes: readonly FixKind[];
  /** Rank when one finding sums up a step (the CodeLens): lower leads; rules without it follow by severity. */
  readonly leads?: number;
}

/** Declares a rule's metadata, keeping its id as a literal type for the `RuleId` union. */
export function defineRule<const Id extends string>(meta: RuleMeta<Id>): RuleMeta<Id> {
  return meta;
}

/** Where a window check hands each finding, in order (so a check of millions of calls need not hold them all). */
export type Emit = (finding: Finding) => void;

/** The findings a check emits, as a list. */
export function collected(check: (emit: Emit) => void): Finding[] {
  const findings: Finding[] = [];
  check((f) => findings.push(f));
  return findings;
}

/** A finding of a rule, with the rule's default severity. */
export function ruleFinding(rule: RuleMeta, range: SourceRange, message: string, extra: Partial<Finding> = {}): Finding {
  return { rule: rule.id, severity: rule.severity, message, range, ...extra };
}
