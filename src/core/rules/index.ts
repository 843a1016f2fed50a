/**
 * The one list of rule modules. Each module carries its metadata (`meta`)
 * beside its check; the rule table, the `RuleId` union, the README table and
 * the per-rule severity setting are derived from this list. Checks run in two
 * groups: window checks (pairing, on every window) and step checks (on every
 * rewrite, comparing before and after); reader rules have no check (the
 * readers emit them). See "Adding a rule" in docs/rules.md.
 */
import type { RewriteAnalysis } from '../analysis';
import type { Finding, RuleId, RuleInfo } from '../findings';
import { toolPairs, type ContextWindow, type ToolPair } from '../model';
import * as branchStarted from './branch-started';
import { collected, type Emit } from './rule';
import * as elisionUnmarked from './elision-unmarked';
import * as invalidJson from './invalid-json';
import * as pairStraddled from './pair-straddled';
import * as prefixMutated from './prefix-mutated';
import * as recordSkipped from './record-skipped';
import * as renderUnstable from './render-unstable';
import * as schemaChanged from './schema-changed';
import * as schemaDropped from './schema-dropped';
import * as selfEdit from './self-edit';
import * as serverStatePairing from './server-state-pairing';
import * as toolCallIdReused from './tool-call-id-reused';
import * as toolResultDuplicated from './tool-result-duplicated';
import * as toolResultMisplaced from './tool-result-misplaced';
import * as toolResultOrphaned from './tool-result-orphaned';
import * as toolUseOrphaned from './tool-use-orphaned';

/** Every rule, in the order of the rule table (README, SARIF, settings). */
export const RULE_MODULES = [
  prefixMutated,
  renderUnstable,
  toolUseOrphaned,
  toolResultOrphaned,
  toolResultMisplaced,
  toolResultDuplicated,
  toolCallIdReused,
  pairStraddled,
  schemaDropped,
  schemaChanged,
  elisionUnmarked,
  selfEdit,
  invalidJson,
  serverStatePairing,
  recordSkipped,
  branchStarted,
] as const;

export const RULE_IDS: readonly RuleId[] = RULE_MODULES.map((m) => m.meta.id);

export const RULES: Readonly<Record<RuleId, RuleInfo>> = Object.fromEntries(RULE_MODULES.map((m) => [m.meta.id, m.meta])) as Record<RuleId, RuleInfo>;

/**
 * The window checks, in the order their findings are listed: each hands its
 * findings to `emit` one by one (its module's `checkX` lists what its `emitX` emits).
 */
export const WINDOW_CHECKS: readonly ((window: ContextWindow, pairs: Map<string, ToolPair>, emit: Emit) => void)[] = [
  toolUseOrphaned.emitToolUseOrphaned,
  toolResultOrphaned.emitToolResultOrphaned,
  toolResultDuplicated.emitToolResultDuplicated,
  toolCallIdReused.emitToolCallIdReused,
  toolResultMisplaced.emitToolResultMisplaced,
];

/** Pairing checks of one window, in a stable order. */
export function checkWindow(window: ContextWindow, pairs = toolPairs(window)): Finding[] {
  return collected((emit) => emitWindowFindings(window, pairs, emit));
}

/** `checkWindow`'s findings handed to `emit` one by one, without a list of them all. */
export function emitWindowFindings(window: ContextWindow, pairs: Map<string, ToolPair>, emit: Emit): void {
  for (const check of WINDOW_CHECKS) check(window, pairs, emit);
}

/** The before/after checks of one rewrite, in the order their findings are listed. */
export const STEP_CHECKS: readonly ((a: RewriteAnalysis) => Finding[])[] = [
  prefixMutated.checkPrefixMutated,
  renderUnstable.checkRenderUnstable,
  pairStraddled.checkPairStraddled,
  schemaDropped.checkSchemaDropped,
  schemaChanged.checkSchemaChanged,
  toolUseOrphaned.checkConsumedResultDropped,
  elisionUnmarked.checkElisionUnmarked,
  selfEdit.checkSelfEdit,
];
