/**
 * Bedrock Converse positions (the Anthropic rule, as Converse enforces it):
 * every `toolUse` in assistant message k needs its `toolResult` in user
 * message k+1, so the results of parallel calls share one user message.
 * (Converse's other requirement, `toolConfig` present whenever `toolUse` /
 * `toolResult` blocks appear, is reported by the Bedrock adapter as
 * `schema-dropped`, since it is about the registry, not positions.)
 */
import type { ContextWindow, ToolPair } from '../../model';
import { idText } from '../common';
import { judgePairs, ordinal, type Misplacement } from './common';

export function bedrockPositions(window: ContextWindow, pairs: Map<string, ToolPair>): Misplacement[] {
  return judgePairs(
    window,
    pairs,
    (pair, result) => result.message === pair.call.message + 1 && window.messages[result.message]?.role === 'user',
    (pair, result) =>
      `toolResult ${idText(pair.id)} is in ${ordinal(result.message)} (${window.messages[result.message]?.role}); ` +
      `Bedrock Converse requires it in the user message right after the assistant message with its toolUse (${ordinal(pair.call.message + 1)})`,
  );
}
