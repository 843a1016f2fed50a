/**
 * The changes a rewrite makes to the consumed prefix, element by element:
 * tools added or removed (each as one change listing them), modified or reordered; consumed messages modified,
 * removed or with messages inserted among them. Shared by `prefix-mutated`
 * (meaning changed) and `render-unstable` (bytes changed, meaning not).
 */
import { alignedBeforeLength, alignedRuns, MODIFIED, type AlignedRun } from '../align';
import type { RewriteAnalysis } from '../analysis';
import { explainRenderDifference } from '../meaning';

export type PrefixChange =
  | { readonly kind: 'tool-modified'; readonly before: number; readonly after: number; readonly cause?: string }
  /** Every tool that left the registry, as one change (one cause, one finding). */
  | { readonly kind: 'tools-removed'; readonly before: readonly number[] }
  /** Every tool that joined the registry, as one change. */
  | { readonly kind: 'tools-inserted'; readonly after: readonly number[] }
  | { readonly kind: 'tools-reordered' }
  | { readonly kind: 'message-modified'; readonly before: number; readonly after: number; readonly cause?: string }
  | { readonly kind: 'messages-removed'; readonly from: number; readonly to: number; readonly nextAfter: number }
  | { readonly kind: 'message-inserted'; readonly after: number };

/** The changes of one analysis, listed once for the two rules that read them (a cache keyed by the analysis object, not state). */
const listed = new WeakMap<RewriteAnalysis, readonly PrefixChange[]>();

export function prefixChanges(a: RewriteAnalysis): readonly PrefixChange[] {
  if (a.prefixIntact) return [];
  let changes = listed.get(a);
  if (!changes) listed.set(a, (changes = [...(a.toolsChanged ? toolChanges(a) : []), ...messageChanges(a)]));
  return changes;
}

function toolChanges(a: RewriteAnalysis): PrefixChange[] {
  const changes: PrefixChange[] = [];
  const afterByName = new Map<string, number[]>();
  a.after.window.tools.forEach((t, i) => afterByName.set(t.name, [...(afterByName.get(t.name) ?? []), i]));
  const matched = new Set<number>();
  const removed: number[] = [];
  let lastAfter = -1;
  let reordered = false;
  a.before.window.tools.forEach((tool, j) => {
    const i = afterByName.get(tool.name)?.find((k) => !matched.has(k));
    if (i === undefined) return void removed.push(j);
    matched.add(i);
    if (i < lastAfter) reordered = true;
    lastAfter = i;
    const beforeText = a.before.toolTexts[j] ?? '';
    const afterText = a.after.toolTexts[i] ?? '';
    if (beforeText === afterText) return;
    const cause = explainRenderDifference(beforeText, afterText);
    changes.push({ kind: 'tool-modified', before: j, after: i, ...(cause && { cause }) });
  });
  const inserted = a.after.window.tools.flatMap((_, i) => (matched.has(i) ? [] : [i]));
  if (removed.length > 0) changes.push({ kind: 'tools-removed', before: removed });
  if (inserted.length > 0) changes.push({ kind: 'tools-inserted', after: inserted });
  if (reordered) changes.push({ kind: 'tools-reordered' });
  return changes;
}

function messageChanges(a: RewriteAnalysis): PrefixChange[] {
  const changes: PrefixChange[] = [];
  const lastRetained = consumedChanges(a, changes);
  // The runtime's own compaction summary (`elision`) stands for the messages it removed: that removal is the change.
  const removed = changes.some((c) => c.kind === 'messages-removed');
  insertedChanges(a, lastRetained, removed, changes);
  return changes;
}

/**
 * Adds the consumed messages modified or removed; returns the last after index
 * a consumed message went to. Walks the alignment's runs: a run kept in place
 * costs one step. (Each loop is a function of its own: V8 compiles a hot loop
 * on its own, without what follows it.)
 */
function consumedChanges(a: RewriteAnalysis, changes: PrefixChange[]): number {
  const runs = alignedRuns(a.alignment);
  const consumed = Math.min(a.rewrite.before.boundary, alignedBeforeLength(a.alignment));
  let lastRetained = -1;
  // The first consumed before message past the runs walked so far.
  let j = 0;
  for (let r = 0; r < runs.length && j < consumed; r++) {
    const run = runs[r] as AlignedRun;
    const to = Math.min(run.before, consumed);
    if (to > j) changes.push({ kind: 'messages-removed', from: j, to, nextAfter: run.after });
    j = Math.max(j, to);
    const end = Math.min(run.before + run.length, consumed);
    if (end <= run.before) break;
    if (run.kind === MODIFIED) for (let k = run.before; k < end; k++) changes.push(modified(a, k, run.after + k - run.before));
    lastRetained = run.after + end - 1 - run.before;
    j = end;
  }
  // Past the last run: nothing is kept after these.
  if (j < consumed) changes.push({ kind: 'messages-removed', from: j, to: consumed, nextAfter: -1 });
  return lastRetained;
}

/** Adds the after messages before `lastRetained` that stand for no before message (a marker of a removal excepted). */
function insertedChanges(a: RewriteAnalysis, lastRetained: number, removed: boolean, changes: PrefixChange[]): void {
  const runs = alignedRuns(a.alignment);
  let i = 0;
  for (let r = 0; r <= runs.length && i < lastRetained; r++) {
    const run = runs[r];
    const to = Math.min(run ? run.after : lastRetained, lastRetained);
    for (; i < to; i++) if (!(removed && a.rewrite.after.messages[i]?.elision)) changes.push({ kind: 'message-inserted', after: i });
    if (run) i = Math.max(i, run.after + run.length);
  }
}

function modified(a: RewriteAnalysis, j: number, i: number): PrefixChange {
  const cause = explainRenderDifference(a.before.messageTexts.at(j) ?? '', a.after.messageTexts.at(i) ?? '');
  return { kind: 'message-modified', before: j, after: i, ...(cause && { cause }) };
}
