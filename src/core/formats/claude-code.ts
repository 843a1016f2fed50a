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
 * way after the main one (`claude-code/side-chains.ts`). See docs/formats.md.
 */
import type { Finding } from '../findings';
import type { ContextWindow, Message, RewriteSource } from '../model';
import { meta as branchStarted } from '../rules/branch-started';
import { ruleFinding } from '../rules/rule';
import type { SourceLine, SourceRange } from '../text';
import { readByLines, type FormatAdapter, type LineReader, type ThreadInfo, type TranscriptEvent } from '../transcript';
import { RecordReader, type CcRecord, type ReadRecords } from './claude-code/records';
import { splitSideChains } from './claude-code/side-chains';
import { walkSession, type MessageCache, type Rewind } from './claude-code/tree';
import { consumedBoundary, findingEvent, lineMatches } from './common';

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

/** A session read line by line: each line parsed once, the tree walked at the end. */
class ClaudeCodeLines implements LineReader {
  constructor(
    private readonly records = new RecordReader(),
    private readonly messages: MessageCache = new WeakMap(),
  ) {}

  line(line: SourceLine): TranscriptEvent[] {
    return this.records.line(line).map(findingEvent);
  }

  end(): Iterable<TranscriptEvent> {
    return walkEvents(this.records.end([]), this.messages);
  }

  fork(): LineReader {
    return new ClaudeCodeLines(this.records.fork(), this.messages);
  }
}

function* walkEvents({ records, findings }: ReadRecords, messages: MessageCache): Generator<TranscriptEvent> {
  for (const f of findings) yield findingEvent(f);
  const { main, sideChains } = splitSideChains(records);
  yield* conversationEvents(main, undefined, messages);
  // Each side-chain after the main conversation: its own context, steps and last window.
  for (const chain of sideChains) yield* conversationEvents(chain.records, chain.thread, messages);
}

/** The rewrites and the last window of one conversation (`thread`: a side-chain, or the main one). */
function* conversationEvents(records: readonly CcRecord[], thread: ThreadInfo | undefined, messages: MessageCache): Generator<TranscriptEvent> {
  const rewinds: Rewind[] = [];
  const final = walkSession(records, (rewind) => rewinds.push(rewind), messages);
  const tag = thread ? { thread } : {};
  for (const rewind of rewinds) {
    // The context before each rewrite is checked as a window too: pairing in history that is about to go.
    const replaced = rewind.left ?? rewind.before;
    if (replaced.length > 0) yield { kind: 'window', window: sessionWindow(replaced), ...tag };
    if (rewind.left) yield findingEvent(branchFinding(rewind, rewind.left));
    const source: RewriteSource = rewind.kind === 'compaction' ? 'compaction' : 'runtime';
    const rewrite = { source, before: sessionWindow(rewind.before), after: sessionWindow(rewind.after), applied: true, range: rewind.range, ...(thread && { thread: thread.id }) };
    yield { kind: 'step', rewrite };
  }
  yield { kind: 'window', window: sessionWindow(final), ...tag };
}

/** A rewind is a branch from an earlier message, not lost history: said once, as info. */
function branchFinding(rewind: Rewind, left: readonly Message[]): Finding {
  const shared = rewind.before.length;
  const gone = left.length - shared;
  const from = shared === 0 ? 'the start of the session' : `message ${shared} of the context (${lineOf(rewind.before[shared - 1])})`;
  return ruleFinding(
    branchStarted,
    rewind.range,
    `A rewind started a branch from ${from}: the ${gone} message${gone === 1 ? '' : 's'} after it on the previous branch left the context; the ${shared} shared message${shared === 1 ? ' is' : 's are'} intact, so the prompt cache is reused`,
  );
}

function lineOf(message: Message | undefined): string {
  return message?.place ?? 'an earlier line';
}

function sessionWindow(messages: readonly Message[]): ContextWindow {
  return {
    format: 'claude-code',
    tools: [],
    messages,
    boundary: consumedBoundary(messages),
    live: true,
    source: spanOf(messages),
  };
}

function spanOf(messages: readonly Message[]): SourceRange | undefined {
  const first = messages.find((m) => m.source)?.source;
  if (!first) return undefined;
  let end = first.end;
  for (const m of messages) if (m.source && m.source.end > end) end = m.source.end;
  return { start: first.start, end };
}
