/**
 * Gemini positions: the `functionCall` parts of a model turn must be answered
 * IMMEDIATELY after, by one turn holding as many `functionResponse` parts as
 * there were calls (Gemini pairs them by position: "Please ensure that the
 * number of function response parts is equal to the number of function call
 * parts of the function call turn"). A response must not sit in a model turn.
 */
import { finding, type Finding } from '../../findings';
import type { ContextWindow, Message, ToolPair } from '../../model';
import { judgePairs, misplacedFinding, ordinal, placedPairs } from './common';
import { q } from '../common';

export function geminiPositions(window: ContextWindow, pairs: Map<string, ToolPair>): Finding[] {
  const notNext = judgePairs(
    window,
    pairs,
    (pair, result) => result.message === pair.call.message + 1,
    (pair, result) =>
      `functionResponse ${q(pair.id)} is in ${ordinal(result.message)}; Gemini requires it in the turn right after the model turn with its functionCall (${ordinal(pair.call.message + 1)})`,
  );
  const flagged = new Set(notNext.map((f) => f.toolCallId));
  return [...notNext, ...responsesInModelTurns(window, pairs, flagged), ...countMismatches(window)];
}

/** Responses written into a model turn (a known client bug): misplaced even when the turn follows its calls. */
function responsesInModelTurns(window: ContextWindow, pairs: Map<string, ToolPair>, flagged: Set<string | undefined>): Finding[] {
  const out: Finding[] = [];
  for (const pair of placedPairs(pairs)) {
    const result = pair.results[0];
    if (!result || flagged.has(pair.id) || window.messages[result.message]?.role !== 'assistant') continue;
    out.push(misplacedFinding(window, pair, result, `functionResponse ${q(pair.id)} sits in a model turn (${ordinal(result.message)}); Gemini requires responses in the user turn after the calls`));
  }
  return out;
}

/** A model turn with N calls followed by a turn with M ≠ N responses. */
function countMismatches(window: ContextWindow): Finding[] {
  const out: Finding[] = [];
  window.messages.forEach((message, m) => {
    const calls = count(message, 'tool_call');
    const next = window.messages[m + 1];
    if (message.role !== 'assistant' || calls === 0 || !next) return;
    const responses = count(next, 'tool_result');
    if (responses === 0 || responses === calls) return;
    const range = next.source ?? message.source ?? window.source ?? { start: 0, end: 0 };
    out.push(
      finding(
        'tool-result-misplaced',
        range,
        `${ordinal(m)} makes ${calls} functionCall part(s) but ${ordinal(m + 1)} answers with ${responses} functionResponse part(s); Gemini requires equal counts in the turn right after`,
      ),
    );
  });
  return out;
}

function count(message: Message, kind: 'tool_call' | 'tool_result'): number {
  return message.blocks.filter((b) => b.kind === kind).length;
}
