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

/** The window findings of `after` whose identity `before` does not have (in `after`'s order). */
export function introducedFindings(before: readonly Finding[], after: readonly Finding[]): Finding[] {
  const beforeKeys = new Set(identityKeys(before));
  return identityKeys(after).flatMap((key, i) => (beforeKeys.has(key) ? [] : [after[i] as Finding]));
}

/** The part of a finding's identity beside its rule: its tool call id, else its message. */
export function identityName(f: Finding): string {
  return f.toolCallId ?? f.message;
}

/**
 * A set of finding identities (those `identityKeys` gives), held per rule and
 * name (`identityName`) as the occurrences present. Occurrences 0..n-1, as one
 * window's findings number them, are held as the count n: a million findings
 * on one reused id are one entry, and no key string is made per finding.
 */
export class IdentitySet {
  private readonly byRule = new Map<RuleId, Map<string, number | Set<number>>>();

  has(rule: RuleId, name: string, n: number): boolean {
    const held = this.byRule.get(rule)?.get(name);
    return typeof held === 'number' ? n < held : !!held?.has(n);
  }

  /** Adds the next occurrence of `rule` + `name` in a set built only this way (one window's findings in order); returns its number. */
  addNext(rule: RuleId, name: string): number {
    const names = this.names(rule);
    const held = names.get(name);
    const n = typeof held === 'number' ? held : (held?.size ?? 0);
    this.add(rule, name, n);
    return n;
  }

  add(rule: RuleId, name: string, n: number): void {
    const names = this.names(rule);
    const held = names.get(name) ?? 0;
    if (held === n) names.set(name, n + 1);
    else if (typeof held !== 'number') held.add(n);
    else if (n > held) names.set(name, new Set([...range(held), n]));
  }

  delete(rule: RuleId, name: string, n: number): void {
    const names = this.byRule.get(rule);
    const held = names?.get(name);
    if (!names || held === undefined) return;
    if (typeof held !== 'number') held.delete(n);
    else if (n === held - 1) names.set(name, n);
    else if (n < held) names.set(name, new Set(range(held).filter((k) => k !== n)));
  }

  /** An independent copy. */
  clone(): IdentitySet {
    const copy = new IdentitySet();
    for (const [rule, names] of this.byRule) copy.byRule.set(rule, new Map([...names].map(([name, held]) => [name, typeof held === 'number' ? held : new Set(held)])));
    return copy;
  }

  private names(rule: RuleId): Map<string, number | Set<number>> {
    let names = this.byRule.get(rule);
    if (!names) this.byRule.set(rule, (names = new Map()));
    return names;
  }
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, k) => k);
}

/** Each finding with its occurrence number among those of the same rule and name (as `identityKeys` numbers them). */
export function eachIdentity(findings: readonly Finding[], fn: (f: Finding, n: number) => void): void {
  const seen = new IdentitySet();
  for (const f of findings) fn(f, seen.addNext(f.rule, identityName(f)));
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
