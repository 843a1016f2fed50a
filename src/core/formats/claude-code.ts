/**
 * Claude Code session JSONL (`~/.claude/projects/<project>/<session>.jsonl`).
 *
 * The context the model saw is rebuilt along the active branch of the
 * `uuid`/`parentUuid` tree (see `claude-code/tree.ts`). Each compaction
 * (`compact_boundary` + the `isCompactSummary` user line, the elision marker)
 * and each rewind to an earlier message is a step; the last window is the
 * session's current context. Session windows are live: a call still pending
 * at the frontier is not an orphan. Side-chain lines written into the session
 * (a sub-agent's conversation) are conversations of their own, read the same
 * way after the main one (`claude-code/side-chains.ts`). Lines are walked as
 * they come (`claude-code/lines.ts`): a followed session costs what it appends.
 * See docs/formats.md.
 */
import { readByLines, type FormatAdapter } from '../transcript';
import { ClaudeCodeLines } from './claude-code/lines';
import { lineMatches } from './common';

export const claudeCodeAdapter: FormatAdapter = {
  id: 'claude-code',
  label: 'Claude Code session JSONL',
  sniff: (head) =>
    !hasGeminiParts(head) &&
    lineMatches(
      head,
      [/"parentUuid"\s*:\s*(null|")/, /"(sessionId|isSidechain|userType)"\s*:/],
      [/"(sessionId|isSidechain|userType)"\s*:/, /"parentUuid"\s*:\s*(null|")/],
      [/^[ \t\r]*\{\s*"type"\s*:\s*"summary"\s*,\s*"summary"\s*:/, /"leafUuid"\s*:/],
      [/^[ \t\r]*\{\s*"type"\s*:\s*"(file-history-snapshot|queue-operation)"\s*,/, /"(messageId|sessionId|operation)"\s*:/],
    ),
  read: (input) => readByLines(input, new ClaudeCodeLines()),
  lineReader: () => new ClaudeCodeLines(),
};

/**
 * A message written as Gemini `{role, parts}` (role `model`, or `parts` in place
 * of `content`): the Claude-Code-like envelope of Qwen Code sessions. This
 * reader would see none of its `functionCall` / `functionResponse` parts, so
 * such a file is not sniffed as Claude Code.
 */
export const GEMINI_PARTS_MESSAGE = /"message"\s*:\s*\{\s*(?:"role"\s*:\s*"(?:user|model)"\s*,\s*)?"parts"\s*:\s*\[|"message"\s*:\s*\{\s*"role"\s*:\s*"model"/;

function hasGeminiParts(head: string): boolean {
  return GEMINI_PARTS_MESSAGE.test(head);
}
