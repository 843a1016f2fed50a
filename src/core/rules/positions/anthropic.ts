/**
 * Anthropic Messages positions: every `tool_use` in assistant message k needs
 * its `tool_result` in user message k+1 (so the results of parallel calls share
 * ONE user message), and `tool_result` blocks must open that user message,
 * before any text or other block.
 */
import type { ContextWindow, ToolPair, ToolResult } from '../../model';
import { idText } from '../common';
import { judgePairs, messageLabel, misplacement, type Misplacement } from './common';

export function anthropicPositions(window: ContextWindow, pairs: Map<string, ToolPair>): Misplacement[] {
  const label = (index: number) => messageLabel(window, index, 'messages');
  const isNextUser = (message: number, callMessage: number) =>
    message === callMessage + 1 && window.messages[message]?.role === 'user';
  const wrongMessage = judgePairs(
    window,
    pairs,
    (pair, result) => isNextUser(result.message, pair.call.message),
    (pair, result) =>
      `Tool result ${idText(pair.id)} is in ${label(result.message)} (${window.messages[result.message]?.role ?? 'missing'}), but its tool_use is in ${label(pair.call.message)}: ` +
      `Anthropic requires every result in the one user message right after the assistant message with the call`,
  );
  const flagged = new Set(wrongMessage.map((f) => f.toolCallId));
  return [...wrongMessage, ...resultsAfterOtherBlocks(window, pairs, flagged)];
}

/**
 * Results that follow text (or any other block) in their message, in window
 * order: the results of the pairs given (a window's, or those an appended
 * tail touches), not a walk of every message.
 */
function resultsAfterOtherBlocks(window: ContextWindow, pairs: Map<string, ToolPair>, flagged: Set<string | undefined>): Misplacement[] {
  const found: { readonly m: number; readonly b: number; readonly pair: ToolPair & { call: object } }[] = [];
  for (const pair of pairs.values()) {
    // An orphan is tool-result-orphaned's business; a result with no id is paired with nothing.
    if (!pair.call || pair.id === '' || flagged.has(pair.id)) continue;
    for (const { message: m, block: b } of pair.results) {
      const firstOther = (window.messages[m]?.blocks ?? []).findIndex((x) => x.kind !== 'tool_result');
      if (firstOther !== -1 && firstOther < b) found.push({ m, b, pair: pair as ToolPair & { call: object } });
    }
  }
  found.sort((x, y) => x.m - y.m || x.b - y.b);
  return found.map(({ m, b, pair }) => {
    const block = window.messages[m]?.blocks[b] as ToolResult;
    const text = `Tool result ${idText(block.callId)} follows other content in ${messageLabel(window, m, 'messages')}: Anthropic requires tool_result blocks to open the user message, before any text`;
    return misplacement(window, pair, { message: m, block: b, value: block }, text);
  });
}
