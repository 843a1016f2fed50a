/**
 * The changes a rewrite makes to the consumed prefix, element by element:
 * tools added or removed (each as one change listing them), modified or reordered; consumed messages modified,
 * removed or with messages inserted among them. Shared by `prefix-mutated`
 * (meaning changed) and `render-unstable` (bytes changed, meaning not).
 */
import { MODIFIED } from '../align';
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
 * a consumed message went to. (Each loop is a function of its own: V8 compiles
 * a hot loop on its own, without what follows it.)
 */
function consumedChanges(a: RewriteAnalysis, changes: PrefixChange[]): number {
  const { afterKind, beforeFate } = a.alignment;
  const consumed = Math.min(a.rewrite.before.boundary, beforeFate.length);
  // Read once: each read of an imported binding may be a call (module interop), and the loop below reads it per message.
  const modifiedKind = MODIFIED;
  let lastRetained = -1;
  for (let j = 0; j < consumed; j++) {
    const i = beforeFate[j] ?? -1;
    if (i >= 0) {
      lastRetained = Math.max(lastRetained, i);
      if (afterKind[i] === modifiedKind) changes.push(modified(a, j, i));
      continue;
    }
    let to = j;
    while (to < consumed && (beforeFate[to] ?? -1) < 0) to++;
    changes.push({ kind: 'messages-removed', from: j, to, nextAfter: nextRetained(beforeFate, to) });
    j = to - 1;
  }
  return lastRetained;
}

/** Adds the after messages before `lastRetained` that stand for no before message (a marker of a removal excepted). */
function insertedChanges(a: RewriteAnalysis, lastRetained: number, removed: boolean, changes: PrefixChange[]): void {
  const afterOrigin = a.alignment.afterOrigin;
  for (let i = 0; i < lastRetained; i++) {
    if ((afterOrigin[i] ?? -1) >= 0 || (removed && a.rewrite.after.messages[i]?.elision)) continue;
    changes.push({ kind: 'message-inserted', after: i });
  }
}

function modified(a: RewriteAnalysis, j: number, i: number): PrefixChange {
  const cause = explainRenderDifference(a.before.messageTexts.at(j) ?? '', a.after.messageTexts.at(i) ?? '');
  return { kind: 'message-modified', before: j, after: i, ...(cause && { cause }) };
}

/** The after index of the first before message at or after `from` that was kept, or -1. */
function nextRetained(beforeFate: Int32Array, from: number): number {
  for (let k = from; k < beforeFate.length; k++) if ((beforeFate[k] ?? -1) >= 0) return beforeFate[k] ?? -1;
  return -1;
}
