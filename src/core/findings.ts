/**
 * Findings, decisions and the rule table. Rule ids are stable: diagnostics,
 * the CLI, SARIF and the docs all use them.
 */
import type { RewriteSource } from './model';
import type { SourceRange } from './text';

export type RuleId =
  | 'prefix-mutated'
  | 'render-unstable'
  | 'tool-use-orphaned'
  | 'tool-result-orphaned'
  | 'tool-result-misplaced'
  | 'tool-result-duplicated'
  | 'tool-call-id-reused'
  | 'pair-straddled'
  | 'schema-dropped'
  | 'schema-changed'
  | 'elision-unmarked'
  | 'self-edit'
  | 'invalid-json'
  | 'server-state-pairing'
  | 'record-skipped';

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

export interface RuleInfo {
  readonly id: RuleId;
  readonly severity: Severity;
  /** How the rule weighs in a step's decision. */
  readonly decides: Decision | 'none';
  readonly title: string;
  /** The seed condition it protects: (1) prefix identity … (4) deterministic re-render. */
  readonly protects: string;
}

export const RULES: Readonly<Record<RuleId, RuleInfo>> = {
  'prefix-mutated': {
    id: 'prefix-mutated',
    severity: 'warning',
    decides: 'defer',
    title: 'The consumed prefix changed',
    protects: '(1) prefix identity',
  },
  'render-unstable': {
    id: 'render-unstable',
    severity: 'warning',
    decides: 'defer',
    title: 'Same meaning, different bytes',
    protects: '(4) deterministic re-render',
  },
  'tool-use-orphaned': {
    id: 'tool-use-orphaned',
    severity: 'error',
    decides: 'abort',
    title: 'A tool call has no result',
    protects: '(2) pairing integrity',
  },
  'tool-result-orphaned': {
    id: 'tool-result-orphaned',
    severity: 'error',
    decides: 'abort',
    title: 'A tool result has no call',
    protects: '(2) pairing integrity',
  },
  'tool-result-misplaced': {
    id: 'tool-result-misplaced',
    severity: 'error',
    decides: 'abort',
    title: 'A tool result is not where the provider requires it',
    protects: '(2) pairing integrity',
  },
  'tool-result-duplicated': {
    id: 'tool-result-duplicated',
    severity: 'error',
    decides: 'abort',
    title: 'A call has more than one result',
    protects: '(2) pairing integrity',
  },
  'tool-call-id-reused': {
    id: 'tool-call-id-reused',
    severity: 'error',
    decides: 'abort',
    title: 'Two calls share one id',
    protects: '(2) pairing integrity',
  },
  'pair-straddled': {
    id: 'pair-straddled',
    severity: 'error',
    decides: 'abort',
    title: 'An edit changed one member of a tool pair but not the other',
    protects: '(2) pairing integrity',
  },
  'schema-dropped': {
    id: 'schema-dropped',
    severity: 'error',
    decides: 'abort',
    title: 'A schema left the registry while a call still needs it',
    protects: '(3) schema versioning',
  },
  'schema-changed': {
    id: 'schema-changed',
    severity: 'error',
    decides: 'abort',
    title: "A call's schema version no longer matches its result's",
    protects: '(2) pairing integrity, (3) schema versioning',
  },
  'elision-unmarked': {
    id: 'elision-unmarked',
    severity: 'warning',
    decides: 'defer',
    title: 'History was removed without an elision marker',
    protects: '(1) prefix identity',
  },
  'self-edit': {
    id: 'self-edit',
    severity: 'info',
    decides: 'none',
    title: 'The model proposed this rewrite; judged as untrusted',
    protects: 'self-edits are judged by the same rules',
  },
  'invalid-json': {
    id: 'invalid-json',
    severity: 'error',
    decides: 'none',
    title: 'Not valid JSON',
    protects: 'every line is checked',
  },
  'server-state-pairing': {
    id: 'server-state-pairing',
    severity: 'info',
    decides: 'none',
    title: 'The call of this result lives in server-side state',
    protects: '(2) pairing integrity',
  },
  'record-skipped': {
    id: 'record-skipped',
    severity: 'info',
    decides: 'none',
    title: 'A record of an unknown type was skipped',
    protects: 'every line is checked',
  },
};

export const RULE_IDS = Object.keys(RULES) as RuleId[];

/** Builds a finding with the rule's default severity. */
export function finding(rule: RuleId, range: SourceRange, message: string, extra: Partial<Finding> = {}): Finding {
  return { rule, severity: RULES[rule].severity, message, range, ...extra };
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
