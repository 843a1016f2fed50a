/**
 * The fix planner: given an aborting rewrite (typically a compaction), the
 * nearest acceptable window. Starting from the proposal, calls and results are
 * kept or dropped only in whole pairs and whole parallel groups:
 *
 * - a consumed group the proposal cut (one member dropped or changed) loses
 *   its remaining members too;
 * - a pending group (a result not yet consumed) is kept whole: its dropped
 *   members come back from the window before the rewrite;
 * - a schema a kept call still references comes back;
 * - a message left empty is dropped; one elision marker is appended at the
 *   frontier when history was elided.
 *
 * The result is judged again; if it would still abort, the plan falls back to
 * the window before the rewrite, unchanged.
 */
import { alignMessages, inferBoundary } from '../align';
import type { FixPlan } from '../results';
import type { StepVerdict } from '../findings';
import { judgeRewrite, type GuardOptions } from '../guard';
import type { Block, ContextWindow, Message, Rewrite, ToolCall, ToolSchema } from '../model';
import { RenderCache, renderWindow } from '../render';
import { isElisionMarker } from '../rules/elision-unmarked';
import { fixEdits, statedBoundary } from './edits';
import { blockKey, isEmptyMessage, messageKey, pairGroups, resultMessages } from './groups';
import { markerMessage, markerText, type PairNote } from './marker';
import type { FixTarget, TargetMessage, TargetTool } from './target';

export interface PlanFixOptions {
  /** The text the window before the rewrite was read from, when it is another file (compare snapshots). */
  readonly beforeText?: string;
  /** How the plan is judged (token counting for the cache impact, a shared engine context, the before file). */
  readonly guard?: GuardOptions;
}

/** What the planner did, in words. */
interface Notes {
  readonly dropped: PairNote[];
  readonly restored: PairNote[];
  readonly schemas: string[];
  marker?: string;
}

/** Greedy in-order alignment: for each proposal message, the before-window message it repeats exactly (or -1). */
function alignExact(before: readonly Message[], after: readonly Message[]): number[] {
  const queues = new Map<string, number[]>();
  before.forEach((m, i) => {
    const key = messageKey(m);
    const list = queues.get(key) ?? [];
    list.push(i);
    queues.set(key, list);
  });
  let last = -1;
  return after.map((m) => {
    const list = queues.get(messageKey(m));
    while (list?.length && (list[0] ?? -1) <= last) list.shift();
    const next = list?.shift();
    if (next === undefined) return -1;
    last = next;
    return next;
  });
}

/** The state the planner edits: target entries with the messages they stand for. */
class Draft {
  readonly entries: TargetMessage[] = [];
  constructor(
    readonly rewrite: Rewrite,
    readonly aligned: readonly number[],
  ) {}

  blocks(entry: TargetMessage): readonly Block[] {
    if (entry.kind === 'marker') return markerMessage(entry.text).blocks;
    if (entry.kind === 'before') return this.rewrite.before.messages[entry.index]?.blocks ?? [];
    const blocks = this.rewrite.after.messages[entry.index]?.blocks ?? [];
    return entry.removed.size ? blocks.filter((_, b) => !entry.removed.has(b)) : blocks;
  }

  message(entry: TargetMessage): Message {
    if (entry.kind === 'marker') return markerMessage(entry.text);
    if (entry.kind === 'before') return this.rewrite.before.messages[entry.index] as Message;
    const message = this.rewrite.after.messages[entry.index] as Message;
    return entry.removed.size ? withBlocks(message, this.blocks(entry)) : message;
  }

  /** The before-window index an entry repeats, if any. */
  rank(entry: TargetMessage): number | undefined {
    if (entry.kind === 'before') return entry.index;
    if (entry.kind === 'after') {
      const r = this.aligned[entry.index] ?? -1;
      return r >= 0 ? r : undefined;
    }
    return undefined;
  }
}

/**
 * `message` with other blocks. Its fields are named, not spread: a message
 * read lazily (formats/native-lazy.ts) has them as getters, which a spread
 * leaves out.
 */
function withBlocks(message: Message, blocks: readonly Block[]): Message {
  const { role, source, container, place, elision } = message;
  return { role, blocks, ...(source && { source }), ...(container && { container }), ...(place !== undefined && { place }), ...(elision !== undefined && { elision }) };
}

function dropBrokenConsumed(draft: Draft, dropIds: ReadonlySet<string>): void {
  const { after } = draft.rewrite;
  after.messages.forEach((message, index) => {
    const removed = new Set<number>();
    message.blocks.forEach((b, i) => {
      if ((b.kind === 'tool_call' && dropIds.has(b.id)) || (b.kind === 'tool_result' && dropIds.has(b.callId))) removed.add(i);
    });
    const entry: TargetMessage = { kind: 'after', index, removed };
    if (removed.size && isEmptyMessage(draft.blocks(entry))) return;
    draft.entries.push(entry);
  });
}

function idsOf(blocks: readonly Block[], kind: 'tool_call' | 'tool_result'): Set<string> {
  return new Set(blocks.flatMap((b) => (b.kind === 'tool_call' && kind === b.kind ? [b.id] : b.kind === 'tool_result' && kind === b.kind ? [b.callId] : [])));
}

/**
 * True when `b` is an edited copy of `a`: it holds a call or result of the
 * same id (byId), or else only blocks `a` has, one of them not blank.
 */
function shares(a: readonly Block[], b: readonly Block[], byId: boolean): boolean {
  if (!byId) {
    const keys = new Set(a.map(blockKey));
    return !isEmptyMessage(b) && b.every((x) => keys.has(blockKey(x)));
  }
  const ids = new Set([...idsOf(a, 'tool_call'), ...idsOf(a, 'tool_result')]);
  return b.some((x) => (x.kind === 'tool_call' && ids.has(x.id)) || (x.kind === 'tool_result' && ids.has(x.callId)));
}

/** Puts a before-window message back: in place of its edited counterpart, or where it belongs. */
function restoreMessage(draft: Draft, r: number): void {
  const original = draft.rewrite.before.messages[r];
  if (!original) return;
  const candidate = (e: TargetMessage, byId: boolean) =>
    e.kind === 'after' && draft.rank(e) === undefined && draft.rewrite.after.messages[e.index]?.role === original.role && shares(original.blocks, draft.blocks(e), byId);
  let counterpart = draft.entries.findIndex((e) => candidate(e, true));
  if (counterpart < 0) counterpart = draft.entries.findIndex((e) => candidate(e, false));
  if (counterpart >= 0) {
    draft.entries[counterpart] = { kind: 'before', index: r };
    return;
  }
  let pos = draft.entries.findIndex((e) => (draft.rank(e) ?? -1) > r);
  if (pos < 0) pos = draft.entries.length;
  const calls = idsOf(original.blocks, 'tool_call');
  const results = idsOf(original.blocks, 'tool_result');
  const firstResult = draft.entries.findIndex((e) => [...idsOf(draft.blocks(e), 'tool_result')].some((id) => calls.has(id)));
  if (firstResult >= 0) pos = Math.min(pos, firstResult);
  draft.entries.forEach((e, i) => {
    if ([...idsOf(draft.blocks(e), 'tool_call')].some((id) => results.has(id))) pos = Math.max(pos, i + 1);
  });
  draft.entries.splice(pos, 0, { kind: 'before', index: r });
}

/** Names the pairs by their calls in the window before the rewrite. */
function pairNotes(rewrite: Rewrite): (id: string) => PairNote {
  const names = new Map<string, string>();
  for (const m of rewrite.before.messages) for (const b of m.blocks) if (b.kind === 'tool_call' && !names.has(b.id)) names.set(b.id, b.name);
  return (id) => {
    const name = names.get(id);
    return name === undefined ? { id } : { id, name };
  };
}

/**
 * The boundary of the fixed window: all of it for a provider request; in a
 * live window the earlier of where the consumed entries end and what a reader
 * infers by aligning it with the window before (so a re-read agrees).
 */
function fixedBoundary(draft: Draft, messages: readonly Message[], stated: boolean): number {
  const { before, after } = draft.rewrite;
  if (!after.live) return messages.length;
  const i = draft.entries.findIndex(
    (e) => e.kind === 'marker' || (e.kind === 'after' && e.index >= after.boundary) || (e.kind === 'before' && e.index >= before.boundary),
  );
  if (stated) return i < 0 ? messages.length : i;
  const cache = new RenderCache();
  const texts = (list: readonly Message[]) => list.map((m) => cache.messageText(m));
  const roles = { before: before.messages.map((m) => m.role), after: messages.map((m) => m.role) };
  const inferred = inferBoundary(alignMessages(texts(before.messages), texts(messages), roles), before.boundary);
  return Math.min(i < 0 ? messages.length : i, inferred);
}

/**
 * Appends the marker when consumed history is gone from the fixed window. A
 * marker the proposal itself put at the frontier is replaced, so there is
 * exactly one, and it says what is really elided.
 */
function appendMarker(draft: Draft, dropIds: ReadonlySet<string>, notes: Notes, noteOf: (id: string) => PairNote): void {
  const { before, after } = draft.rewrite;
  const present = new Set(draft.entries.map((e) => draft.rank(e)).filter((r): r is number => r !== undefined));
  const consumedGone = before.messages.some((_, j) => j < before.boundary && !present.has(j));
  if (!consumedGone && dropIds.size === 0) return;
  for (let last = draft.entries[draft.entries.length - 1]; last?.kind === 'after'; last = draft.entries[draft.entries.length - 1]) {
    const message = after.messages[last.index];
    if (!message || draft.rank(last) !== undefined || !isElisionMarker(message)) break;
    draft.entries.pop();
  }
  const elided = before.messages.length - present.size;
  const kept = new Set(draft.entries.flatMap((e) => [...idsOf(draft.blocks(e), 'tool_call'), ...idsOf(draft.blocks(e), 'tool_result')]));
  const gone = [...new Set(before.messages.flatMap((m) => [...idsOf(m.blocks, 'tool_call')]))].filter((id) => !kept.has(id));
  const text = markerText({ messages: Math.max(elided, 0), pairs: gone.map(noteOf) });
  draft.entries.push({ kind: 'marker', text });
  notes.marker = text;
}

/** Calls pending in a window: no result yet, or the first result at or after the boundary. */
function pendingCalls(messages: readonly Message[], boundary: number): ToolCall[] {
  const consumed = new Set<string>();
  const answered = new Set<string>();
  messages.forEach((m, i) => {
    for (const b of m.blocks) {
      if (b.kind !== 'tool_result' || answered.has(b.callId)) continue;
      answered.add(b.callId);
      if (i < boundary) consumed.add(b.callId);
    }
  });
  return messages.flatMap((m) => m.blocks.filter((b): b is ToolCall => b.kind === 'tool_call' && !consumed.has(b.id)));
}

/**
 * Calls whose schema must stay in the registry: those pending before the
 * rewrite, and those of the fixed window (only the pending ones where a
 * historical registry keeps completed pairs resolvable).
 */
function referencingCalls(rewrite: Rewrite, messages: readonly Message[], boundary: number): ToolCall[] {
  const fixed = rewrite.after.historicalTools !== undefined
    ? pendingCalls(messages, boundary)
    : messages.flatMap((m) => m.blocks.filter((b): b is ToolCall => b.kind === 'tool_call'));
  return [...pendingCalls(rewrite.before.messages, rewrite.before.boundary), ...fixed];
}

function restoreSchemas(rewrite: Rewrite, messages: readonly Message[], boundary: number, notes: Notes): TargetTool[] {
  const { before, after } = rewrite;
  const tools: TargetTool[] = after.tools.map((_, index) => ({ kind: 'after', index }));
  const toolOf = (e: TargetTool) => (e.kind === 'after' ? after.tools[e.index] : before.tools[e.index]);
  const rankOf = (e: TargetTool) => {
    const tool = toolOf(e);
    return e.kind === 'before' ? e.index : before.tools.findIndex((t) => t.name === tool?.name && t.version === tool?.version);
  };
  for (const call of referencingCalls(rewrite, messages, boundary)) {
    if (tools.some((e) => toolOf(e)?.name === call.name)) continue;
    let j = before.tools.findIndex((t) => t.name === call.name && (!call.schemaVersion || t.version === call.schemaVersion));
    if (j < 0) j = before.tools.findIndex((t) => t.name === call.name);
    if (j < 0) continue;
    let pos = tools.findIndex((e) => rankOf(e) > j);
    if (pos < 0) pos = tools.length;
    tools.splice(pos, 0, { kind: 'before', index: j });
    notes.schemas.push(call.name);
  }
  return tools;
}

/** The whole-pair fix of a proposal, before it is judged again. */
function wholePairTarget(rewrite: Rewrite, statesBoundary: boolean): { target: FixTarget; window: ContextWindow; notes: Notes } {
  const notes: Notes = { dropped: [], restored: [], schemas: [] };
  const noteOf = pairNotes(rewrite);
  const groups = pairGroups(rewrite);
  const dropIds = new Set(groups.filter((g) => g.consumed && g.broken).flatMap((g) => g.ids));
  const draft = new Draft(rewrite, alignExact(rewrite.before.messages, rewrite.after.messages));
  dropBrokenConsumed(draft, dropIds);
  notes.dropped.push(...[...dropIds].map(noteOf));
  const restore = new Set<number>();
  for (const g of groups.filter((x) => !x.consumed && x.broken)) {
    for (const r of [g.message, ...resultMessages(rewrite.before, new Set(g.ids))]) restore.add(r);
    notes.restored.push(...g.ids.map(noteOf));
  }
  const present = new Set(draft.entries.map((e) => draft.rank(e)));
  for (const r of [...restore].sort((a, b) => a - b)) if (!present.has(r)) restoreMessage(draft, r);
  appendMarker(draft, dropIds, notes, noteOf);
  const messages = draft.entries.map((e) => draft.message(e));
  const boundary = fixedBoundary(draft, messages, statesBoundary);
  const tools = restoreSchemas(rewrite, messages, boundary, notes);
  const window: ContextWindow = {
    ...rewrite.after,
    messages,
    boundary,
    tools: tools.map((e) => (e.kind === 'after' ? rewrite.after.tools[e.index] : rewrite.before.tools[e.index]) as ToolSchema),
  };
  return { target: { messages: draft.entries, tools, boundary }, window, notes };
}

function list(notes: readonly PairNote[]): string {
  return notes.map((n) => (n.name ? `${n.id} (${n.name})` : n.id)).join(', ');
}

function describe(notes: Notes): string {
  const parts: string[] = [];
  if (notes.dropped.length) parts.push(`Dropped the rest of consumed tool pairs the rewrite cut: ${list(notes.dropped)}.`);
  if (notes.restored.length) parts.push(`Kept pending tool pairs whole (their results are not consumed yet): ${list(notes.restored)}.`);
  if (notes.schemas.length) parts.push(`Restored schemas still referenced by kept calls: ${[...new Set(notes.schemas)].join(', ')}.`);
  if (notes.marker) parts.push(`Appended the elision marker: ${notes.marker}`);
  return parts.join(' ') || 'Nothing to change in whole pairs.';
}

/** A plan that gives back the window before the rewrite: the same boundary and rendered bytes. */
function revertsRewrite(window: ContextWindow, before: ContextWindow): boolean {
  return window.boundary === before.boundary && renderWindow(window).text === renderWindow(before).text;
}

/** The whole-pair fix has one name; a plan that only gives back the window before the rewrite says so, in its title and first in its description. */
function named(window: ContextWindow, before: ContextWindow, notes: Notes): Pick<FixPlan, 'title' | 'description'> {
  if (!revertsRewrite(window, before)) return { title: 'Compact in whole pairs', description: describe(notes) };
  const why = 'Keeping its tool pairs whole gives back the window before the rewrite, byte for byte.';
  return { title: 'Revert the rewrite', description: `${why} ${describe(notes)}` };
}

/** The window before the rewrite, unchanged: always acceptable. */
function fallbackPlan(rewrite: Rewrite, why: StepVerdict, sourceText: string | undefined, options: PlanFixOptions): FixPlan {
  const { before } = rewrite;
  const target: FixTarget = {
    messages: before.messages.map((_, index) => ({ kind: 'before', index })),
    tools: before.tools.map((_, index) => ({ kind: 'before', index })),
    boundary: before.boundary,
  };
  const window: ContextWindow = { ...rewrite.after, messages: before.messages, tools: before.tools, boundary: before.boundary };
  const reasons = [...new Set(why.findings.map((f) => f.rule))].join(', ');
  return {
    title: 'Revert the rewrite',
    description: `No whole-pair compaction of this rewrite is acceptable (${reasons || 'still abort'}); falling back to the window before the rewrite, unchanged.`,
    window,
    verdict: judgeRewrite({ ...rewrite, after: window }, options.guard),
    edits: sourceText === undefined ? [] : (fixEdits(rewrite, target, sourceText, options.beforeText ?? sourceText) ?? []),
  };
}

/**
 * The nearest acceptable window to an aborting rewrite, with the text edits
 * that make it in `sourceText` (the file the rewrite was read from). Undefined
 * when the rewrite does not abort. `edits` is empty when the windows carry no
 * source ranges (made in code) or no text was given.
 */
export function planFix(rewrite: Rewrite, sourceText?: string, options: PlanFixOptions = {}): FixPlan | undefined {
  if (judgeRewrite(rewrite, options.guard).decision !== 'abort') return undefined;
  const { target, window, notes } = wholePairTarget(rewrite, sourceText !== undefined && statedBoundary(rewrite, sourceText) !== undefined);
  const verdict = judgeRewrite({ ...rewrite, after: window }, options.guard);
  if (verdict.decision === 'abort') return fallbackPlan(rewrite, verdict, sourceText, options);
  const edits = sourceText === undefined ? [] : (fixEdits(rewrite, target, sourceText, options.beforeText ?? sourceText) ?? []);
  return { ...named(window, rewrite.before, notes), window, verdict, edits };
}
