/**
 * OpenAI Chat Completions positions: the `role:"tool"` messages answering an
 * assistant message's `tool_calls` must follow it directly, as one contiguous
 * run of tool messages (no user, system or assistant message in between).
 */
import type { ContextWindow, ToolPair } from '../../model';
import { idText } from '../common';
import { judgePairs, messageLabel, type Misplacement } from './common';

export function openaiChatPositions(window: ContextWindow, pairs: Map<string, ToolPair>): Misplacement[] {
  const contiguous = (from: number, to: number) => {
    if (to <= from) return false;
    for (let m = from + 1; m <= to; m++) if (window.messages[m]?.role !== 'tool') return false;
    return true;
  };
  return judgePairs(
    window,
    pairs,
    (pair, result) => contiguous(pair.call.message, result.message),
    (pair, result) => {
      const where = result.message < pair.call.message ? 'comes before its assistant message' : 'is not in the run of tool messages right after its assistant message';
      const label = (index: number) => messageLabel(window, index, 'messages');
      return `Tool message for ${idText(pair.id)} (${label(result.message)}) ${where} (${label(pair.call.message)}): OpenAI requires tool messages to follow the assistant message with the tool_calls directly`;
    },
  );
}
