/**
 * OpenAI Responses positions: a `function_call_output` (any `*_call_output`)
 * must come after the `function_call` item with its `call_id`.
 */
import type { ContextWindow, ToolPair } from '../../model';
import { idText } from '../common';
import { judgePairs, messageLabel, type Misplacement } from './common';

export function openaiResponsesPositions(window: ContextWindow, pairs: Map<string, ToolPair>): Misplacement[] {
  return judgePairs(
    window,
    pairs,
    (pair, result) => result.message > pair.call.message,
    (pair, result) =>
      `Output for call ${idText(pair.id)} (${messageLabel(window, result.message, 'input')}) comes before its call item (${messageLabel(window, pair.call.message, 'input')}): OpenAI Responses requires the output after the call`,
  );
}
