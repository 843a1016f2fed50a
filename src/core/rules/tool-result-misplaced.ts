/**
 * tool-result-misplaced — protects (2) pairing integrity: a result the provider
 * would not pair with its call because of where it sits.
 *
 * Each provider has its own positional rules, one module per format in
 * `positions/`: Anthropic results open the next user message; OpenAI Chat tool
 * messages follow their assistant message directly; OpenAI Responses outputs
 * follow their call. Formats without positional rules (the native trace) get no
 * findings. Results without a call are `tool-result-orphaned`'s, second results
 * `tool-result-duplicated`'s.
 *
 * Adding a format: write `positions/<format>.ts` exporting a `PositionRule` and
 * add one entry to POSITION_RULES.
 */
import type { Finding } from '../findings';
import { toolPairs, type ContextWindow, type FormatId, type ToolPair } from '../model';
import { anthropicPositions } from './positions/anthropic';
import { openaiChatPositions } from './positions/openai-chat';
import { openaiResponsesPositions } from './positions/openai-responses';
import { geminiPositions } from './positions/gemini';
import { bedrockPositions } from './positions/bedrock';
import type { Misplacement } from './positions/common';
import { collected, defineRule, ruleFinding, type Emit } from './rule';

export const meta = defineRule({
  id: 'tool-result-misplaced',
  severity: 'error',
  decides: 'abort',
  title: 'A tool result is not where the provider requires it',
  protects: '(2) pairing integrity',
  fixes: ['compact'],
});

/** The positional check of one provider format: where results sit that its API would not pair. */
export type PositionRule = (window: ContextWindow, pairs: Map<string, ToolPair>) => Misplacement[];

const POSITION_RULES: Partial<Record<FormatId, PositionRule>> = {
  anthropic: anthropicPositions,
  'openai-chat': openaiChatPositions,
  'openai-responses': openaiResponsesPositions,
  gemini: geminiPositions,
  'gemini-cli': geminiPositions,
  bedrock: bedrockPositions,
  'claude-code': anthropicPositions,
};

export function checkToolResultMisplaced(window: ContextWindow, pairs: Map<string, ToolPair> = toolPairs(window)): Finding[] {
  return collected((emit) => emitToolResultMisplaced(window, pairs, emit));
}

export function emitToolResultMisplaced(window: ContextWindow, pairs: Map<string, ToolPair>, emit: Emit): void {
  for (const { range, message, ...extra } of POSITION_RULES[window.format]?.(window, pairs) ?? []) emit(ruleFinding(meta, range, message, extra));
}
