/**
 * The fixed window as the planner describes it to the edit writer: every
 * message and tool of the fix, said by where it comes from (kept from the
 * proposal, restored from the window before the rewrite, or the new marker).
 */

/** One message of the fixed window. */
export type TargetMessage =
  /** A message of the proposal, kept; `removed` lists the indexes of blocks taken out of it. */
  | { readonly kind: 'after'; readonly index: number; readonly removed: ReadonlySet<number> }
  /** A message of the window before the rewrite, restored (copied byte for byte). */
  | { readonly kind: 'before'; readonly index: number }
  /** The elision marker appended at the frontier. */
  | { readonly kind: 'marker'; readonly text: string };

/** One tool schema of the fixed window. */
export type TargetTool =
  | { readonly kind: 'after'; readonly index: number }
  | { readonly kind: 'before'; readonly index: number };

export interface FixTarget {
  readonly messages: readonly TargetMessage[];
  readonly tools: readonly TargetTool[];
  /** How many leading messages of the fix are consumed, for a proposal that states its boundary (native `boundary`). */
  readonly boundary?: number;
}
