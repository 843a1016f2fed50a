/**
 * Bedrock Converse positions (the Anthropic rule, as Converse enforces it):
 * every `toolUse` in assistant message k needs its `toolResult` in user
 * message k+1, so the results of parallel calls share one user message.
 * (Converse's other requirement, `toolConfig` present whenever `toolUse` /
 * `toolResult` blocks appear, is reported by the Bedrock adapter as
 * `schema-dropped`, since it is about the registry, not positions.)
 */
import type { ContextWindow, ToolPair } from '../../model';
import { idText, messageName } from '../common';
import { judgePairs, type Misplacement } from './common';

export function bedrockPositions(window: ContextWindow, pairs: Map<string, ToolPair>): Misplacement[] {
  return judgePairs(
    window,
    pairs,
    (pair, result) => result.message === pair.call.message + 1 && window.messages[result.message]?.role === 'user',
    (pair, result) =>
      `toolResult ${idText(pair.id)} is in ${messageName(window, result.message)} (${window.messages[result.message]?.role}); ` +
      `Bedrock Converse requires it in the user message right after the assistant message with its toolUse (${nextName(window, pair.call.message)})`,
  );
}

/** The message right after `index`, or where it would be. */
function nextName(window: ContextWindow, index: number): string {
  return index + 1 < window.messages.length ? messageName(window, index + 1) : `the message after ${messageName(window, index)}`;
}
