/**
 * The commonest step judged without walking the window: a pure extension
 * (every current message kept in place as the same object, the same tool
 * objects, the same format and kind of window), whatever the new messages hold.
 *
 * Why its verdict is the full judge's (`test/unit/create-guard.test.ts` checks
 * it against the full path on random sequences):
 * - The consumed prefix is intact: no prefix, render, elision finding; no tool
 *   leaves the registry; every pair keeps its first call and first result
 *   where they were, so nothing is straddled or dropped. A pending call read
 *   against the same registry keeps its schema verdict: only calls first made
 *   in the new messages can bring `schema-changed`.
 * - Window findings are per pair (their identity is rule + call id +
 *   occurrence): a pair the new messages do not touch has the same findings,
 *   except in a live window where a new assistant message moves the frontier
 *   its pending calls are judged against; those calls are looked at too (only
 *   the frontier is scanned). So the window checks run on the touched pairs
 *   only, before and after; the message-local parts (a call id reused, the
 *   Gemini call/response counts) see the whole window as always.
 * An empty id in the new messages (no id: each block stands alone) and the
 * Gemini format (its positional rule reads consecutive messages of one role
 * as one turn, so an appended message can change the window's last turn) are
 * left to the full judge.
 */
import { identityKeys, type Finding } from './findings';
import { extendsMessages } from './formats/native-object';
import { CARRIED_FROM, pairId, pairKey, type Block, type ContextWindow, type Message, type Rewrite, type ToolCall, type ToolPair, type ToolSchema } from './model';
import type { CallMember } from './id-index';
import { indexedPair } from './indexed-pair';
import { frontier } from './pairing';
import { sameEach, toolRendersAlike, type RenderCache } from './render';
import { newSchemaMismatch } from './rules/schema-changed';
import { selfEditFindings } from './rules/self-edit';
import { reusedIdFinding, sharedParts } from './rules/tool-call-id-reused';
import { checkToolResultDuplicated } from './rules/tool-result-duplicated';
import { checkToolResultMisplaced } from './rules/tool-result-misplaced';
import { checkToolResultOrphaned } from './rules/tool-result-orphaned';
import { checkToolUseOrphaned } from './rules/tool-use-orphaned';

type Member = ToolPair['results'][number];

/**
 * Two messages read alike: the same object, readings of the same bytes
 * (`CARRIED_FROM`), or the same render. Their roles, blocks, ids and inputs are
 * then equal; only their source ranges may differ.
 */
function sameMessage(a: Message, b: Message, render: RenderCache): boolean {
  return a === b || (a[CARRIED_FROM] ?? a) === (b[CARRIED_FROM] ?? b) || render.messageText(a) === render.messageText(b);
}

/**
 * The same tool schemas, tool by tool: the same name and version, rendering
 * alike (`toolRendersAlike`: compared without rendering them). Stricter than
 * `toolsRenderAlike`: a version label the render leaves out still counts.
 */
export function sameTools(a: readonly ToolSchema[], b: readonly ToolSchema[]): boolean {
  return sameEach(a, b, sameSchema);
}

function sameSchema(x: ToolSchema, y: ToolSchema): boolean {
  return x === y || (x.name === y.name && x.version === y.version && toolRendersAlike(x, y));
}

/**
 * True when `after` only appends messages to `before` (see the module
 * comment): every message of `before` in place, read alike, and the same
 * tools, format and kind of window.
 */
export function isExtension(before: ContextWindow, after: ContextWindow, render: RenderCache): boolean {
  // Gemini's positional rule reads merged turns: an appended message can change the last one.
  if (after.format === 'gemini') return false;
  if (after.format !== before.format || after.live !== before.live || !after.serverState !== !before.serverState) return false;
  if (after.messages.length < before.messages.length || !sameTools(before.tools, after.tools)) return false;
  if (extendsMessages(before.messages, after.messages)) return true;
  for (let i = 0; i < before.messages.length; i++) if (!sameMessage(before.messages[i] as Message, after.messages[i] as Message, render)) return false;
  return true;
}

/** The findings of an extension: window findings it introduces and step findings, in the full judge's order. */
export interface ExtensionFindings {
  readonly introduced: readonly Finding[];
  readonly step: readonly Finding[];
}

/**
 * A pair index to look pairs up in: `toolPairs` of the window before, or one
 * kept from window to window whose members are the same bytes at the same
 * places in an earlier reading (only their places and contents are read).
 */
export type PairLookup = Pick<Map<string, ToolPair>, 'get'>;

/** The window checks of the pairs an extension touches, before and after (see `extensionWindowFindings`). */
export interface TouchedFindings {
  /** The before window's findings on the touched pairs: all its findings of those pairs. */
  readonly before: readonly Finding[];
  /** The after window's findings on them, in `checkWindow`'s order; `reused` among them. */
  readonly after: readonly Finding[];
  /** `tool-call-id-reused` on the new messages: all new, after the before window's ones of the same ids. */
  readonly reused: readonly Finding[];
  readonly afterTouched: Map<string, ToolPair>;
}

/**
 * The window checks of an extension on the pairs its new messages touch (and,
 * in a live window whose frontier moves, the frontier's calls); undefined to
 * leave it to the full checks. Every other pair has the same findings on both sides.
 */
export function extensionWindowFindings(before: ContextWindow, after: ContextWindow, beforePairs: () => PairLookup): TouchedFindings | undefined {
  const from = before.messages.length;
  const added = new Map<string, Added>();
  if (!addMembers(after, from, after.messages.length, added)) return undefined;
  const keys = [...added.keys()];
  if (before.live && hasAssistant(after, from)) keys.push(...frontierCallKeys(before));
  if (!keys.length) return { before: [], after: [], reused: [], afterTouched: new Map() };
  const pairs = beforePairs();
  const { beforeTouched, afterTouched } = touchedPairs(after, pairs, added, keys);
  const reused = reusedIds(after, from, pairs);
  return { before: windowChecks(before, beforeTouched), after: windowChecks(after, afterTouched, reused), reused, afterTouched };
}

/** The findings of `rewrite`, an extension of `before` whose pairs are `beforePairs`; undefined to leave it to the full judge. */
export function extensionFindings(rewrite: Rewrite, beforePairs: () => PairLookup): ExtensionFindings | undefined {
  const touched = extensionWindowFindings(rewrite.before, rewrite.after, beforePairs);
  if (!touched) return undefined;
  if (!touched.afterTouched.size) return { introduced: [], step: selfEditFindings(rewrite) };
  const beforeKeys = new Set(identityKeys(touched.before));
  const afterKeys = identityKeys(touched.after);
  const introduced = touched.after.filter((_, i) => !beforeKeys.has(afterKeys[i] ?? ''));
  return { introduced, step: [...schemaChanges(rewrite, touched.afterTouched, beforePairs()), ...selfEditFindings(rewrite)] };
}

/** The window checks (`checkWindow`'s order) on some pairs; the reused-id findings given. */
export function windowChecks(window: ContextWindow, pairs: Map<string, ToolPair>, reused: Finding[] = []): Finding[] {
  return [
    ...checkToolUseOrphaned(window, pairs),
    ...checkToolResultOrphaned(window, pairs),
    ...checkToolResultDuplicated(window, pairs),
    ...reused,
    ...checkToolResultMisplaced(window, pairs),
  ];
}

/** The calls and results of one id, in order. */
export interface Added {
  readonly calls: CallMember[];
  readonly results: Member[];
}

/** Adds the calls and results of messages [from, to) by id; false when an id is empty. */
export function addMembers(window: ContextWindow, from: number, to: number, into: Map<string, Added>): boolean {
  for (let m = from; m < to; m++) {
    const blocks = (window.messages[m] as Message).blocks;
    for (let b = 0; b < blocks.length; b++) {
      const block = blocks[b] as Block;
      if (block.kind !== 'tool_call' && block.kind !== 'tool_result') continue;
      const id = pairId(block);
      if (id === '') return false;
      let entry = into.get(id);
      if (!entry) into.set(id, (entry = { calls: [], results: [] }));
      if (block.kind === 'tool_call') entry.calls.push({ message: m, block: b, value: block });
      else entry.results.push({ message: m, block: b, value: block });
    }
  }
  return true;
}

function hasAssistant(window: ContextWindow, from: number): boolean {
  for (let m = from; m < window.messages.length; m++) if (window.messages[m]?.role === 'assistant') return true;
  return false;
}

/** Keys of the calls at or after a live window's last assistant message: the calls a moved frontier may orphan. */
function frontierCallKeys(window: ContextWindow): string[] {
  const keys: string[] = [];
  for (let m = Math.max(0, frontier(window)); m < window.messages.length; m++) {
    (window.messages[m] as Message).blocks.forEach((block, b) => {
      if (block.kind === 'tool_call') keys.push(pairKey(block.id, m, b));
    });
  }
  return keys;
}

/** Where a pair first appears (its entry's place in `toolPairs`' order): its call or first result, the earlier. */
function firstAppearance(pair: ToolPair): { readonly message: number; readonly block: number } | undefined {
  const call = pair.call;
  const result = pair.results[0];
  if (!call || !result) return call ?? result;
  return call.message < result.message || (call.message === result.message && call.block < result.block) ? call : result;
}

export function byAppearance(a: ToolPair, b: ToolPair): number {
  const x = firstAppearance(a);
  const y = firstAppearance(b);
  return (x?.message ?? 0) - (y?.message ?? 0) || (x?.block ?? 0) - (y?.block ?? 0);
}

/** A member of a pair of the window before, as the block at its place in `window` (the same bytes, maybe other ranges). */
function placed<T extends { readonly message: number; readonly block: number }>(member: T, window: ContextWindow): T {
  return { ...member, value: window.messages[member.message]?.blocks[member.block] };
}

/** The touched pairs before and after (members as the after window's blocks), in the after window's index order. */
function touchedPairs(window: ContextWindow, pairs: PairLookup, added: Map<string, Added>, keys: readonly string[]) {
  const after = new Map<string, ToolPair>();
  for (const key of new Set(keys)) {
    const old = pairs.get(key);
    const more = added.get(key);
    const call = old?.call ? placed(old.call, window) : more?.calls[0];
    const results = [...(old?.results ?? []).map((r) => placed(r, window)), ...(more?.results ?? [])];
    after.set(key, { id: old?.id ?? key, results, ...(call && { call }) });
  }
  const ordered = [...after.entries()].sort(([, a], [, b]) => byAppearance(a, b));
  const afterTouched = new Map(ordered);
  const beforeTouched = new Map<string, ToolPair>();
  for (const key of afterTouched.keys()) {
    const old = pairs.get(key);
    if (old) beforeTouched.set(key, old);
  }
  return { beforeTouched, afterTouched };
}

/** `tool-call-id-reused` on the new messages: each call whose id an earlier call already has. */
function reusedIds(window: ContextWindow, from: number, pairs: PairLookup): Finding[] {
  const first = new Map<string, ToolCall>();
  const findings: Finding[] = [];
  const shared = sharedParts();
  for (let m = from; m < window.messages.length; m++) {
    for (const call of (window.messages[m] as Message).blocks) {
      if (call.kind !== 'tool_call') continue;
      const before = pairs.get(call.id)?.call;
      const earlier = first.get(call.id) ?? (before && placed(before, window).value);
      if (earlier) findings.push(reusedIdFinding(window, call, earlier, shared));
      else first.set(call.id, call);
    }
  }
  return findings;
}

/** `schema-changed` on the touched pairs (`unconsumedCallIds`' order): only a call first made in the new messages can bring it. */
function schemaChanges(rewrite: Rewrite, afterTouched: Map<string, ToolPair>, pairs: PairLookup): Finding[] {
  const findings: Finding[] = [];
  for (const pair of afterTouched.values()) {
    const first = pair.results[0];
    if (!pair.call || (first && first.message < rewrite.after.boundary)) continue;
    const call = afterTouched.get(pair.id)?.call?.value;
    const found = call && newSchemaMismatch(rewrite, pair.id, call, pairs.get(pair.id)?.call?.value);
    if (found) findings.push(found);
  }
  return findings;
}

type PairEntry = { id: string; call?: ToolPair['call']; results: Member[] };

/** A touched pair's entry: `old`'s (not a spread copy, which gets a hidden class of its own), or a new one. */
function pairEntry(id: string, old: ToolPair | undefined): PairEntry {
  if (!old) return { id, results: [] };
  const entry: PairEntry = { id: old.id, results: old.results as Member[] };
  if (old.call) entry.call = old.call;
  return entry;
}

/**
 * The pairs the messages of `window` from `from` on touch, each copied from
 * `pairs` (the index of the window's first `from` messages) and extended.
 */
export function touchedPairEntries(pairs: PairLookup, window: ContextWindow, from: number): Map<string, PairEntry> {
  const touched = new Map<string, PairEntry>();
  for (let m = from; m < window.messages.length; m++) {
    const blocks = (window.messages[m] as Message).blocks;
    for (let b = 0; b < blocks.length; b++) {
      const block = blocks[b] as Block;
      if (block.kind !== 'tool_call' && block.kind !== 'tool_result') continue;
      const id = pairId(block);
      const key = pairKey(id, m, b);
      let entry = touched.get(key);
      if (!entry) touched.set(key, (entry = pairEntry(id, pairs.get(key))));
      if (block.kind === 'tool_result') {
        // A new array per result (a pair has one or two): a push onto `[]` keeps room for 16, and the old entry's is not changed.
        const member = { message: m, block: b, value: block };
        entry.results = entry.results.length === 0 ? [member] : [...entry.results, member];
      } else if (!entry.call) entry.call = { message: m, block: b, value: block };
    }
  }
  return touched;
}

/**
 * A pair lookup of `window`, an extension of the window indexed by `pairs`
 * (its first `from` messages): the touched pairs over `pairs` (which is not
 * copied). What `extendPairs` gives, for lookups only.
 */
export function extendedLookup(pairs: PairLookup, window: ContextWindow, from: number): PairLookup {
  const touched = touchedPairEntries(pairs, window, from);
  if (touched.size === 0) return pairs;
  return { get: (key: string) => touched.get(key) ?? pairs.get(key) };
}

/**
 * The pair index of `window`, an extension of the window indexed by `pairs`
 * (its first `from` messages): copied (or, `inPlace`, `pairs` itself), the
 * pairs the new messages touch replaced (kept as `indexedPair`s). Reads as
 * `toolPairs(window)`.
 */
export function extendPairs(pairs: Map<string, ToolPair>, window: ContextWindow, from: number, inPlace = false): Map<string, ToolPair> {
  const out = inPlace ? pairs : new Map(pairs);
  for (const [key, entry] of touchedPairEntries(pairs, window, from)) out.set(key, indexedPair(entry, window.messages));
  return out;
}
