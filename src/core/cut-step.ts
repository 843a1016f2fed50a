/**
 * A compaction judged on what it cuts: the proposal keeps one run of the
 * current window's messages (the same objects, shifted) with other messages
 * around it (its head and tail), under the same tools, in the same format and
 * kind of window.
 *
 * Why its verdict is the full judge's (`test/unit/cut-step.test.ts` checks it
 * against `judgeFully` on random cuts and sequences):
 * - The step rules that read messages (prefix, render, elision) and the cache
 *   impact run as in the full judge, on the full alignment (matched along the
 *   run by identity) and the after window's renders (along the run, the
 *   current window's own).
 * - A pair whose blocks (each call and result with its id) all lie in the run,
 *   none at either window's frontier, is the same pair shifted: the same window
 *   findings on both sides (their identity is rule + call id + occurrence), so
 *   none is introduced; and no step finding: its members are the same blocks
 *   (nothing straddled), its call is the same under the same registry (no
 *   schema dropped or changed), its results are all kept (no consumed result
 *   dropped). So the window checks and the step rules that read pairs run on
 *   the other pairs only: those with a block in the head, the tail, the cut
 *   messages or at a frontier.
 * Other formats (their positional rules read neighbouring messages), a changed
 * registry, an empty id where pairs are touched (pairs keyed by place), and a
 * run shorter than half the proposal are left to the full judge.
 */
import { analyseViews, textsOnDemand, type RewriteAnalysis, type WindowView } from './analysis';
import type { TextFinder } from './align';
import { addMembers, byAppearance, sameTools, windowChecks, type Added } from './append-step';
import { idIndexOf, pairsOf, type EngineContext } from './context';
import { reachingBefore, reachingFrom, type CallMember } from './id-index';
import { introducedFindings, type Finding } from './findings';
import { pairId, type ContextWindow, type Message, type Rewrite, type ToolPair } from './model';
import { frontier } from './pairing';
import type { ReadRun } from './formats/native-object';
import { reusedIdFinding, sharedParts } from './rules/tool-call-id-reused';

/** The kept run: after messages [start, start + length) are before messages [from, from + length), the same objects. */
interface Run {
  readonly start: number;
  readonly from: number;
  readonly length: number;
}

/** How many leading after messages may be new before the run starts. */
const HEAD_SEARCH = 4;

/** Messages [from, to) of the window before. */
export interface Span {
  readonly from: number;
  readonly to: number;
}

/** An id's pair in the window before, and every call of it, in order. */
export interface IdMembers {
  readonly pair: ToolPair | undefined;
  readonly calls: readonly CallMember[];
}

/**
 * What a cut is judged from in the window before: by default its pair and id
 * indexes (built once per window); a window read lazily (`formats/native-lazy.ts`)
 * finds the same from its plain objects, reading only the messages asked for.
 */
export interface CutSources {
  /** `reachingFrom` of id-index.ts, or a span ending at `cut` that holds it (more pairs judged, the same verdict). */
  reachingFrom(cut: number): Span;
  /** `reachingBefore` of id-index.ts, or a span starting at `cut` that holds it. */
  reachingBefore(cut: number): Span;
  /** The members of these ids. */
  members(ids: ReadonlySet<string>): (id: string) => IdMembers;
  /** How the alignment finds after messages among the window's by text; default its text index. */
  readonly findText?: (after: readonly Message[]) => TextFinder;
}

/** The sources of a window read into the model: its indexes, built once per window. */
function indexedSources(window: ContextWindow, context: EngineContext): CutSources {
  const index = idIndexOf(window, context);
  const pairs = pairsOf(window, context);
  return {
    reachingFrom: (cut) => reachingFrom(index, cut),
    reachingBefore: (cut) => reachingBefore(index, cut),
    members: () => (id) => {
      const pair = pairs.get(id);
      return { pair, calls: index.repeatedCalls.get(id) ?? (pair?.call ? [pair.call] : []) };
    },
  };
}

/** The analysis of a cut, seeing only the touched pairs, and the window findings it introduces. */
export interface CutJudgement {
  readonly analysis: RewriteAnalysis;
  readonly introduced: readonly Finding[];
}

/**
 * The judgement of `rewrite` as a cut (see the module comment), or undefined to leave it to the full judge.
 * `reused`: the runs of the before window's messages the after window's reading reused (`windowFromObject`'s
 * `messageRuns`, read against the before window's own messages), when known: the kept run is the first.
 */
export function judgeCut(rewrite: Rewrite, context: EngineContext, beforeFile?: string, sources = indexedSources(rewrite.before, context), reused?: readonly ReadRun[]): CutJudgement | undefined {
  const { before, after } = rewrite;
  if (before.format !== 'native' || after.format !== 'native' || before.live !== after.live || !before.serverState !== !after.serverState) return undefined;
  if (!sameTools(before.tools, after.tools)) return undefined;
  const run = reused ? firstRun(reused, after.messages.length) : keptRun(before.messages, after.messages);
  if (!run) return undefined;
  const added = new Map<string, Added>();
  if (!addMembers(after, 0, run.start, added) || !addMembers(after, run.start + run.length, after.messages.length, added)) return undefined;
  const ids = touchedIds(rewrite, run, added, sources);
  if (!ids) return undefined;
  const touched = touchedPairs(run, ids, added, sources.members(ids));
  const introduced = introducedOn(rewrite, touched);
  const views = cutViews(rewrite, touched, context, sources);
  return { analysis: analyseViews(rewrite, views.before, views.after, context, beforeFile, run), introduced };
}

/** `keptRun` from the runs a reading reused: after messages outside them are not the before window's. */
function firstRun(reused: readonly ReadRun[], afterLength: number): Run | undefined {
  const run = reused[0];
  if (!run || run.start >= HEAD_SEARCH) return undefined;
  return 2 * run.length >= afterLength ? run : undefined;
}

function keptRun(before: readonly Message[], after: readonly Message[]): Run | undefined {
  for (let start = 0; start < Math.min(HEAD_SEARCH, after.length); start++) {
    const from = before.indexOf(after[start] as Message);
    if (from < 0) continue;
    let length = 1;
    while (start + length < after.length && from + length < before.length && after[start + length] === before[from + length]) length++;
    return 2 * length >= after.length ? { start, from, length } : undefined;
  }
  return undefined;
}

/** Adds the ids of the calls (or of calls and results) of messages [from, to); false when one is empty. */
function addIds(messages: readonly Message[], from: number, to: number, ids: Set<string>, callsOnly: boolean): boolean {
  for (let m = from; m < to; m++) {
    for (const block of (messages[m] as Message).blocks) {
      if (block.kind !== 'tool_call' && (callsOnly || block.kind !== 'tool_result')) continue;
      const id = pairId(block);
      if (id === '') return false;
      ids.add(id);
    }
  }
  return true;
}

/** The ids of the pairs a cut may change: a block in the head, the tail or the cut messages (those reaching across the cut), or a call at a frontier. */
function touchedIds(rewrite: Rewrite, run: Run, added: Map<string, Added>, sources: CutSources): Set<string> | undefined {
  const { before, after } = rewrite;
  const ids = new Set(added.keys());
  // Of the cut messages, only those whose ids reach across the cut can touch a kept pair.
  const head = sources.reachingFrom(run.from);
  const tail = sources.reachingBefore(run.from + run.length);
  if (!addIds(before.messages, head.from, head.to, ids, false) || !addIds(before.messages, tail.from, tail.to, ids, false)) return undefined;
  if (!before.live) return ids;
  const frontiers = addIds(before.messages, Math.max(0, frontier(before)), before.messages.length, ids, true);
  return frontiers && addIds(after.messages, Math.max(0, frontier(after)), after.messages.length, ids, true) ? ids : undefined;
}

/** The touched pairs on both sides (in each window's pair order) and every call of their ids, in message order. */
interface TouchedPairs {
  readonly before: Map<string, ToolPair>;
  readonly after: Map<string, ToolPair>;
  readonly beforeCalls: CallMember[];
  readonly afterCalls: CallMember[];
}

function touchedPairs(run: Run, ids: Set<string>, added: Map<string, Added>, members: (id: string) => IdMembers): TouchedPairs {
  const shift = run.start - run.from;
  const inRun = (x: { readonly message: number }) => x.message >= run.from && x.message < run.from + run.length;
  const kept = <T extends { readonly message: number }>(members: readonly T[]): T[] => members.filter(inRun).map((x) => ({ ...x, message: x.message + shift }));
  const head = <T extends { readonly message: number }>(members: readonly T[] = []) => members.filter((x) => x.message < run.start);
  const tail = <T extends { readonly message: number }>(members: readonly T[] = []) => members.filter((x) => x.message >= run.start);
  const before: ToolPair[] = [];
  const after: ToolPair[] = [];
  const beforeCalls: CallMember[] = [];
  const afterCalls: CallMember[] = [];
  for (const id of ids) {
    const { pair: old, calls: oldCalls } = members(id);
    const more = added.get(id);
    // Most ids of the cut messages are whole pairs cut: nothing of them is left.
    if (!more && !oldCalls.some(inRun) && !old?.results.some(inRun)) continue;
    const calls = [...head(more?.calls), ...kept(oldCalls), ...tail(more?.calls)];
    const results = [...head(more?.results), ...kept(old?.results ?? []), ...tail(more?.results)];
    if (!calls.length && !results.length) continue;
    after.push({ id, results, ...(calls[0] && { call: calls[0] }) });
    afterCalls.push(...calls);
    if (!old) continue;
    before.push(old);
    beforeCalls.push(...oldCalls);
  }
  const indexed = (list: ToolPair[]) => new Map(list.sort(byAppearance).map((pair) => [pair.id, pair] as const));
  return { before: indexed(before), after: indexed(after), beforeCalls: inOrder(beforeCalls), afterCalls: inOrder(afterCalls) };
}

function inOrder(calls: CallMember[]): CallMember[] {
  return calls.sort((x, y) => x.message - y.message || x.block - y.block);
}

/** `tool-call-id-reused` on some ids: each call (in message order) after the first of its id. */
function reusedFindings(window: ContextWindow, calls: readonly CallMember[]): Finding[] {
  const first = new Map<string, CallMember>();
  const shared = sharedParts();
  const findings: Finding[] = [];
  for (const call of calls) {
    const earlier = first.get(call.value.id);
    if (earlier) findings.push(reusedIdFinding(window, call.value, earlier.value, shared));
    else first.set(call.value.id, call);
  }
  return findings;
}

/** The window findings of the after window on the touched pairs whose identity the before window does not have. */
function introducedOn(rewrite: Rewrite, touched: TouchedPairs): Finding[] {
  const beforeFindings = windowChecks(rewrite.before, touched.before, reusedFindings(rewrite.before, touched.beforeCalls));
  const afterFindings = windowChecks(rewrite.after, touched.after, reusedFindings(rewrite.after, touched.afterCalls));
  return introducedFindings(beforeFindings, afterFindings);
}

/** Both windows as the step rules see them: their renders (a layout's where one was made, else rendered when asked for) and the touched pairs. */
function cutViews(rewrite: Rewrite, touched: TouchedPairs, context: EngineContext, sources: CutSources): { before: WindowView; after: WindowView } {
  const { before, after } = rewrite;
  const texts = (window: ContextWindow) => context.layouts.get(window)?.messageTexts ?? textsOnDemand(window, context.render);
  const toolTexts = (window: ContextWindow) => window.tools.map((t) => context.render.tool(t));
  return {
    before: { window: before, messageTexts: texts(before), toolTexts: toolTexts(before), pairs: touched.before, ...(sources.findText && { findText: sources.findText }) },
    after: { window: after, messageTexts: texts(after), toolTexts: toolTexts(after), pairs: touched.after },
  };
}
