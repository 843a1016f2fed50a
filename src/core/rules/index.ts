/**
 * The rule modules, in two groups: window checks (pairing, run on every
 * window) and step checks (run on every rewrite, comparing before and after).
 */
import type { RewriteAnalysis } from '../analysis';
import type { Finding } from '../findings';
import { toolPairs, type ContextWindow } from '../model';
import { checkElisionUnmarked } from './elision-unmarked';
import { checkPairStraddled } from './pair-straddled';
import { checkPrefixMutated } from './prefix-mutated';
import { checkRenderUnstable } from './render-unstable';
import { checkSchemaChanged } from './schema-changed';
import { checkSchemaDropped } from './schema-dropped';
import { checkSelfEdit } from './self-edit';
import { checkToolCallIdReused } from './tool-call-id-reused';
import { checkToolResultDuplicated } from './tool-result-duplicated';
import { checkToolResultMisplaced } from './tool-result-misplaced';
import { checkToolResultOrphaned } from './tool-result-orphaned';
import { checkConsumedResultDropped, checkToolUseOrphaned } from './tool-use-orphaned';

/** Pairing checks of one window, in a stable order. */
export function checkWindow(window: ContextWindow, pairs = toolPairs(window)): Finding[] {
  return [
    ...checkToolUseOrphaned(window, pairs),
    ...checkToolResultOrphaned(window, pairs),
    ...checkToolResultDuplicated(window, pairs),
    ...checkToolCallIdReused(window),
    ...checkToolResultMisplaced(window, pairs),
  ];
}

/** The before/after checks of one rewrite. */
export const STEP_CHECKS: readonly ((a: RewriteAnalysis) => Finding[])[] = [
  checkPrefixMutated,
  checkRenderUnstable,
  checkPairStraddled,
  checkSchemaDropped,
  checkSchemaChanged,
  checkConsumedResultDropped,
  checkElisionUnmarked,
  checkSelfEdit,
];

export {
  checkElisionUnmarked,
  checkPairStraddled,
  checkPrefixMutated,
  checkRenderUnstable,
  checkSchemaChanged,
  checkSchemaDropped,
  checkSelfEdit,
  checkToolCallIdReused,
  checkToolResultDuplicated,
  checkToolResultMisplaced,
  checkToolResultOrphaned,
  checkToolUseOrphaned,
  checkConsumedResultDropped,
};
