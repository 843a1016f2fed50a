/**
 * The events of a Claude Code conversation: each rewrite the walk noticed
 * (`tree.ts`) as the window it replaced, a step (and a branch's info finding),
 * and its last context as the final window. Session windows are live: a call
 * still pending at the frontier is not an orphan.
 */
import type { Finding } from '../../findings';
import type { ContextWindow, Message, RewriteSource } from '../../model';
import { meta as branchStarted } from '../../rules/branch-started';
import { ruleFinding } from '../../rules/rule';
import type { SourceRange } from '../../text';
import type { ThreadInfo, TranscriptEvent } from '../../transcript';
import { findingEvent, consumedBoundary } from '../common';
import type { CcRecord } from './records';
import { walkSession, type MessageCache, type Rewind } from './tree';

/** The rewrites and the last window of one conversation walked whole (`thread`: a side-chain, or the main one). */
export function conversationEvents(records: readonly CcRecord[], thread: ThreadInfo | undefined, messages: MessageCache): TranscriptEvent[] {
  const rewinds: Rewind[] = [];
  const final = walkSession(records, (rewind) => rewinds.push(rewind), messages);
  return [...rewinds.flatMap((rewind) => rewindEvents(rewind, thread)), finalEvent(final, thread)];
}

/** One rewrite: the context before it checked as a window too (pairing in history that is about to go), then the step. */
export function rewindEvents(rewind: Rewind, thread: ThreadInfo | undefined): TranscriptEvent[] {
  const tag = thread ? { thread } : {};
  const events: TranscriptEvent[] = [];
  const replaced = rewind.left ?? rewind.before;
  if (replaced.length > 0) events.push({ kind: 'window', window: sessionWindow(replaced), ...tag });
  if (rewind.left) events.push(findingEvent(branchFinding(rewind, rewind.left)));
  const source: RewriteSource = rewind.kind === 'compaction' ? 'compaction' : 'runtime';
  const rewrite = { source, before: sessionWindow(rewind.before), after: sessionWindow(rewind.after), applied: true, range: rewind.range, ...(thread && { thread: thread.id }) };
  events.push({ kind: 'step', rewrite });
  return events;
}

/** The conversation's last context, its final window. */
export function finalEvent(final: readonly Message[], thread: ThreadInfo | undefined): TranscriptEvent {
  return { kind: 'window', window: sessionWindow(final), ...(thread && { thread }) };
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
