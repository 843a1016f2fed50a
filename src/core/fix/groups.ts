/**
 * Tool pairs seen the way the fix planner decides on them: in parallel groups
 * (all calls of one assistant message with their results), each either
 * consumed (every result before the boundary) or pending, and either whole in
 * the proposal or broken by it (a member dropped, or one member's meaning
 * changed while its partner's did not).
 */
import type { JsonNode } from '../json/parse';
import { toValue } from '../json/nodes';
import { toolPairs, type Block, type ContextWindow, type Message, type Rewrite, type ToolPair } from '../model';

/** All calls of one assistant message of the window before the rewrite, with their results. */
export interface PairGroup {
  /** The before-window message holding the calls. */
  readonly message: number;
  readonly ids: readonly string[];
  /** Every result was consumed (lies before the boundary) before the rewrite. */
  readonly consumed: boolean;
  /** The proposal dropped or changed one member of a pair of the group. */
  readonly broken: boolean;
}

function nodeKey(node: JsonNode | undefined): string {
  return node ? JSON.stringify(toValue(node)) : 'null';
}

/** What a block means, ignoring where it was read from. */
export function blockKey(block: Block): string {
  switch (block.kind) {
    case 'text':
      return JSON.stringify(['t', block.text]);
    case 'tool_call':
      return JSON.stringify(['c', block.id, block.name, nodeKey(block.input), block.schemaVersion ?? null]);
    case 'tool_result':
      return JSON.stringify(['r', block.callId, nodeKey(block.content), block.isError === true]);
    case 'opaque':
      return JSON.stringify(['o', block.type, nodeKey(block.value)]);
  }
}

/** What a message means, ignoring where it was read from. */
export function messageKey(message: Message): string {
  return JSON.stringify([message.role, message.elision === true, message.blocks.map(blockKey)]);
}

function callKey(pair: ToolPair | undefined): string | undefined {
  return pair?.call ? blockKey(pair.call.value) : undefined;
}

function resultsKey(pair: ToolPair | undefined): string {
  return JSON.stringify(pair?.results.map((r) => blockKey(r.value)) ?? []);
}

function pairBroken(before: ToolPair, after: ToolPair | undefined): boolean {
  const callDropped = !!before.call && !after?.call;
  const resultDropped = (after?.results.length ?? 0) < before.results.length;
  if (callDropped || resultDropped) return true;
  const callChanged = callKey(before) !== callKey(after);
  const resultChanged = resultsKey(before) !== resultsKey(after);
  return callChanged !== resultChanged;
}

function pairConsumed(pair: ToolPair | undefined, window: ContextWindow): boolean {
  return !!pair && pair.results.length > 0 && pair.results.every((r) => r.message < window.boundary);
}

/** The parallel groups of the window before the rewrite, judged against the proposal. */
export function pairGroups(rewrite: Rewrite): PairGroup[] {
  const beforePairs = toolPairs(rewrite.before);
  const afterPairs = toolPairs(rewrite.after);
  const groups: PairGroup[] = [];
  rewrite.before.messages.forEach((message, index) => {
    const ids = [...new Set(message.blocks.flatMap((b) => (b.kind === 'tool_call' ? [b.id] : [])))];
    const own = ids.filter((id) => beforePairs.get(id)?.call?.message === index);
    if (!own.length) return;
    const consumed = own.every((id) => pairConsumed(beforePairs.get(id), rewrite.before));
    const survives = own.some((id) => !!afterPairs.get(id)?.call || !!afterPairs.get(id)?.results.length);
    const broken = survives && own.some((id) => {
      const pair = beforePairs.get(id);
      return !!pair && pairBroken(pair, afterPairs.get(id));
    });
    groups.push({ message: index, ids: own, consumed, broken });
  });
  return groups;
}

/** Indexes of the before-window messages holding a result for one of `ids`. */
export function resultMessages(window: ContextWindow, ids: ReadonlySet<string>): number[] {
  const out = new Set<number>();
  window.messages.forEach((m, i) => {
    if (m.blocks.some((b) => b.kind === 'tool_result' && ids.has(b.callId))) out.add(i);
  });
  return [...out];
}

/** True when a message holds nothing the model reads: no blocks, or only blank text. */
export function isEmptyMessage(blocks: readonly Block[]): boolean {
  return blocks.every((b) => b.kind === 'text' && b.text.trim() === '');
}
