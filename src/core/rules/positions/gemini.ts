/**
 * Gemini positions: the `functionCall` parts of a model turn must be answered
 * in the NEXT turn, by as many `functionResponse` parts as there were calls
 * (Gemini pairs them by position: "Please ensure that the number of function
 * response parts is equal to the number of function call parts of the function
 * call turn"). The API merges consecutive contents of one role into one turn,
 * so three user contents with one response each answer three parallel calls.
 * A response must not sit in a model turn. Messages name `contents[i]`.
 */
import type { ContextWindow, Message, ToolPair } from '../../model';
import { judgePairs, messageLabel, misplacement, placedPairs, type Misplacement } from './common';
import { idText } from '../common';

/** A run of consecutive messages of one role: one turn as Gemini reads it. */
interface Turn {
  readonly first: number;
  readonly last: number;
  readonly role: Message['role'];
}

export function geminiPositions(window: ContextWindow, pairs: Map<string, ToolPair>): Misplacement[] {
  const turns = mergedTurns(window);
  const turnOf = (message: number) => turns.findIndex((t) => t.first <= message && message <= t.last);
  const label = (turn: Turn | undefined) => (turn ? turnLabel(window, turn) : 'the end of the request');
  const notNext = judgePairs(
    window,
    pairs,
    (pair, result) => turnOf(result.message) === turnOf(pair.call.message) + 1,
    (pair, result) =>
      `functionResponse for the call ${idText(pair.id)} is in ${label(turns[turnOf(result.message)])}; Gemini requires it in the turn right after the model turn with its functionCall (${label(turns[turnOf(pair.call.message) + 1])})`,
  );
  const flagged = new Set(notNext.map((f) => f.toolCallId));
  return [...notNext, ...responsesInModelTurns(window, pairs, flagged), ...countMismatches(window, turns)];
}

/** Consecutive messages of one role, merged as the API merges consecutive contents. */
function mergedTurns(window: ContextWindow): Turn[] {
  const turns: Turn[] = [];
  window.messages.forEach((message, m) => {
    const previous = turns[turns.length - 1];
    if (previous && previous.role === message.role && previous.last === m - 1) turns[turns.length - 1] = { ...previous, last: m };
    else turns.push({ first: m, last: m, role: message.role });
  });
  return turns;
}

function turnLabel(window: ContextWindow, turn: Turn): string {
  const first = messageLabel(window, turn.first, 'contents');
  return turn.first === turn.last ? first : `${first}–${messageLabel(window, turn.last, 'contents')} (one ${turn.role} turn)`;
}

/** Responses written into a model turn (a known client bug): misplaced even when the turn follows its calls. */
function responsesInModelTurns(window: ContextWindow, pairs: Map<string, ToolPair>, flagged: Set<string | undefined>): Misplacement[] {
  const out: Misplacement[] = [];
  for (const pair of placedPairs(pairs)) {
    const result = pair.results[0];
    if (!result || flagged.has(pair.id) || window.messages[result.message]?.role !== 'assistant') continue;
    const where = messageLabel(window, result.message, 'contents');
    out.push(misplacement(window, pair, result, `functionResponse for the call ${idText(pair.id)} sits in a model turn (${where}); Gemini requires responses in the user turn after the calls`));
  }
  return out;
}

/** A model turn with N calls followed by a turn with M ≠ N responses. */
function countMismatches(window: ContextWindow, turns: readonly Turn[]): Misplacement[] {
  const out: Misplacement[] = [];
  turns.forEach((turn, t) => {
    const calls = count(window, turn, 'tool_call');
    const next = turns[t + 1];
    if (turn.role !== 'assistant' || calls === 0 || !next) return;
    const responses = count(window, next, 'tool_result');
    if (responses === 0 || responses === calls) return;
    const range = window.messages[next.first]?.source ?? window.messages[turn.first]?.source ?? window.source ?? { start: 0, end: 0 };
    // Keyed by the turn's first call, so the finding keeps its identity while later contents merge into the next turn.
    const firstCall = window.messages.slice(turn.first, turn.last + 1).flatMap((m) => m.blocks).find((b) => b.kind === 'tool_call');
    out.push({
      range,
      ...(firstCall?.kind === 'tool_call' && { toolCallId: firstCall.id }),
      message: `${turnLabel(window, turn)} makes ${calls} functionCall part(s) but ${turnLabel(window, next)} answers with ${responses} functionResponse part(s); Gemini requires equal counts in the turn right after`,
    });
  });
  return out;
}

function count(window: ContextWindow, turn: Turn, kind: 'tool_call' | 'tool_result'): number {
  let n = 0;
  for (let m = turn.first; m <= turn.last; m++) n += window.messages[m]?.blocks.filter((b) => b.kind === kind).length ?? 0;
  return n;
}
