/**
 * Findings, their identity, and decisions. Rule ids are stable: diagnostics,
 * the CLI, SARIF and the docs all use them. The rule table is derived from the
 * rule modules (`rules/index.ts`).
 */
import type { RewriteSource } from './model';
import { RULES, type RULE_MODULES } from './rules/index';
import { ruleFinding, type RuleMeta } from './rules/rule';
import type { SourceRange } from './text';

/** The id of a rule: one per module listed in `rules/index.ts`. */
export type RuleId = (typeof RULE_MODULES)[number]['meta']['id'];

export type Severity = 'error' | 'warning' | 'info';

/** What a runtime should do with a rewrite. */
export type Decision = 'patch' | 'defer' | 'abort';

/** A place in another file (or the same one) that explains a finding. */
export interface RelatedLocation {
  /** Defaults to the file the finding is in. */
  readonly file?: string;
  readonly range: SourceRange;
  readonly message: string;
}

export interface Finding {
  readonly rule: RuleId;
  readonly severity: Severity;
  readonly message: string;
  /** Where in the checked file. */
  readonly range: SourceRange;
  /** 1-based index of the step that introduced it; undefined for window-level findings. */
  readonly step?: number;
  readonly toolCallId?: string;
  readonly related?: readonly RelatedLocation[];
}

/** A rule's metadata (`meta` in its module): severity, decision weight, title, what it protects, its fixes. */
export type RuleInfo = RuleMeta<RuleId>;

export { RULE_IDS, RULES } from './rules/index';

/** Builds a finding with the rule's default severity. */
export function finding(rule: RuleId, range: SourceRange, message: string, extra: Partial<Finding> = {}): Finding {
  return ruleFinding(RULES[rule], range, message, extra);
}

/**
 * The identity of one finding: rule, tool call id (else message) and where it
 * starts. Two checks that find the same thing give the same key, and a
 * transcript reports each key once.
 */
export function findingKey(f: Finding): string {
  return `${f.rule}\u0000${f.toolCallId ?? f.message}\u0000${f.range.start}`;
}

/** The findings without repeats of one `findingKey`, first kept. */
export function distinctFindings(findings: readonly Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((f) => {
    const key = findingKey(f);
    return !seen.has(key) && !!seen.add(key);
  });
}

/**
 * The identity of window findings across windows: rule + tool call id (else
 * message) + occurrence, not position, so the same orphan in the next window
 * (where everything has moved) is not new.
 */
export function identityKeys(findings: readonly Finding[]): string[] {
  const seen = new Map<string, number>();
  return findings.map((f) => {
    const base = `${f.rule}\u0000${f.toolCallId ?? f.message}`;
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    return `${base}\u0000${n}`;
  });
}

/**
 * The seed's precedence: any abort reason aborts, else any defer reason defers,
 * else patch. Weighs rules, not severities, so display overrides never change a verdict.
 */
export function decide(findings: readonly Finding[]): Decision {
  let decision: Decision = 'patch';
  for (const f of findings) {
    const weight = RULES[f.rule].decides;
    if (weight === 'abort') return 'abort';
    if (weight === 'defer') decision = 'defer';
  }
  return decision;
}

/** The result of judging one rewrite. */
export interface StepVerdict {
  readonly decision: Decision;
  readonly source: RewriteSource;
  readonly findings: readonly Finding[];
  readonly cacheImpact: CacheImpact;
}

/** What a prefix break costs in a provider's prompt cache. */
export interface CacheImpact {
  /** Tokens in the consumed prefix before the rewrite. */
  readonly consumedTokens: number;
  /** Consumed tokens at or after the first changed byte: the cache misses on these. */
  readonly invalidatedTokens: number;
  /** Offset of the first changed byte in the rendered consumed prefix, if any. */
  readonly breakOffset?: number;
}
