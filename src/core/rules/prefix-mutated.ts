/**
 * prefix-mutated — protects (1) prefix identity: the rendered bytes before the
 * boundary are unchanged.
 *
 * Flags each change to the consumed prefix whose meaning changed, at the exact
 * place in the proposal (the changed block, the removed run's position, the
 * inserted message, the tool registry), with the original as related location.
 * Tools render first, so any change to the registry of a window the model has
 * read changes the prefix. Same-meaning byte changes are `render-unstable`.
 */
import type { RewriteAnalysis } from '../analysis';
import type { Finding } from '../findings';
import type { Message, ToolSchema } from '../model';
import type { SourceRange } from '../text';
import { at, firstRange, messageName, q, related, rewriteRange } from './common';
import { prefixChanges, type PrefixChange } from './prefix-changes';
import { defineRule, ruleFinding } from './rule';

export const meta = defineRule({
  id: 'prefix-mutated',
  severity: 'warning',
  decides: 'defer',
  title: 'The consumed prefix changed',
  protects: '(1) prefix identity',
  fixes: ['compact'],
});

export function checkPrefixMutated(a: RewriteAnalysis): Finding[] {
  return prefixChanges(a).flatMap((change) => {
    if ((change.kind === 'tool-modified' || change.kind === 'message-modified') && change.cause) return [];
    return [changeFinding(a, change)];
  });
}

function changeFinding(a: RewriteAnalysis, change: PrefixChange): Finding {
  const before = a.rewrite.before;
  const after = a.rewrite.after;
  const toolsAt = firstRange(after.toolsSource, rewriteRange(a.rewrite));
  const file = a.beforeFile;
  switch (change.kind) {
    case 'tools-removed': {
      const tools = change.before.map((j) => before.tools[j]);
      return ruleFinding(meta, toolsAt, toolsMessage(tools, 'removed from'), {
        related: tools.flatMap((tool) => related(tool?.source, `the removed declaration of ${q(tool?.name ?? '')}`, file)),
      });
    }
    case 'tools-inserted': {
      const tools = change.after.map((i) => after.tools[i]);
      return ruleFinding(meta, firstRange(tools[0]?.source, toolsAt), toolsMessage(tools, 'added to'));
    }
    case 'tool-modified': {
      const tool = after.tools[change.after];
      return ruleFinding(meta, firstRange(tool?.source, toolsAt), `The declaration of tool ${q(tool?.name ?? '')} changed after the model read it`, {
        related: related(before.tools[change.before]?.source, 'the original declaration', file),
      });
    }
    case 'tools-reordered':
      return ruleFinding(meta, toolsAt, 'The tool registry was reordered after the model read it');
    case 'message-modified':
      return modifiedFinding(a, change.before, change.after);
    case 'messages-removed':
      return removedFinding(a, change.from, change.to, change.nextAfter);
    case 'message-inserted': {
      const message = after.messages[change.after];
      return ruleFinding(meta, firstRange(message?.source, rewriteRange(a.rewrite)), `${article(message?.role ?? 'unknown')} ${message?.role ?? 'unknown'} message was inserted into the consumed prefix${at(messageName(after, change.after))}`);
    }
  }
}

/** One message for every tool a rewrite removed (or added), naming them in registry order. */
function toolsMessage(tools: readonly (ToolSchema | undefined)[], change: 'removed from' | 'added to'): string {
  const names = tools.map((tool) => q(tool?.name ?? '')).join(', ');
  const where = `the registry the model has read (tools render first)`;
  return tools.length === 1 ? `Tool ${names} was ${change} ${where}` : `${tools.length} tools were ${change} ${where}: ${names}`;
}

/** The first block whose bytes differ, in both messages (or the message itself). */
export function changedBlock(a: RewriteAnalysis, j: number, i: number): { after?: SourceRange; before?: SourceRange; index: number } {
  const beforeMessage = a.rewrite.before.messages[j] as Message;
  const afterMessage = a.rewrite.after.messages[i] as Message;
  const beforeBlocks = a.render.message(beforeMessage).blocks;
  const afterBlocks = a.render.message(afterMessage).blocks;
  let k = 0;
  while (k < beforeBlocks.length && k < afterBlocks.length && beforeBlocks[k]?.text === afterBlocks[k]?.text) k++;
  const afterRange = afterMessage.blocks[k]?.source ?? afterMessage.source;
  const beforeRange = beforeMessage.blocks[k]?.source ?? beforeMessage.source;
  return { index: k, ...(afterRange && { after: afterRange }), ...(beforeRange && { before: beforeRange }) };
}

function modifiedFinding(a: RewriteAnalysis, j: number, i: number): Finding {
  const block = changedBlock(a, j, i);
  const role = a.rewrite.after.messages[i]?.role ?? '';
  return ruleFinding(meta, firstRange(block.after, rewriteRange(a.rewrite)), `The consumed ${role} message${at(messageName(a.rewrite.after, i))} was edited (block ${block.index + 1}) after the model read it`, {
    related: related(block.before, 'the bytes the model read', a.beforeFile),
  });
}

function removedFinding(a: RewriteAnalysis, from: number, to: number, nextAfter: number): Finding {
  const before = a.rewrite.before.messages;
  const span = spanOf(before, from, to);
  const at = nextAfter >= 0 ? a.rewrite.after.messages[nextAfter]?.source : undefined;
  const count = to - from;
  return ruleFinding(meta, firstRange(at, a.rewrite.after.messagesSource, rewriteRange(a.rewrite)), `${count} consumed message${count === 1 ? ' was' : 's were'} removed here (${count === 1 ? messageName(a.rewrite.before, from) : spanName(messageName(a.rewrite.before, from), messageName(a.rewrite.before, to - 1))} of the context before)`, {
    related: related(span, 'the removed messages', a.beforeFile),
  });
}

/** The smallest range covering the sources of messages [from, to) (a session's messages need not be in file order). */
function spanOf(messages: readonly Message[], from: number, to: number): SourceRange | undefined {
  let span: SourceRange | undefined;
  for (let m = from; m < to; m++) {
    const source = (messages[m] as Message).source;
    if (source) span = span ? { start: Math.min(span.start, source.start), end: Math.max(span.end, source.end) } : source;
  }
  return span;
}

/** "An" before a vowel sound: "an assistant", "an unknown", but "a user" (a "u" sounded "you"). */
function article(word: string): string {
  return /^[aeio]|^u(?![bcdfghjklmnpqrstvwxz][aeiou])/i.test(word) ? 'An' : 'A';
}

/** "lines 1–17" for two line places, else "messages[0] to messages[2]". */
function spanName(first: string, last: string): string {
  const from = /^lines? (\d+)/.exec(first)?.[1];
  const to = /(\d+)$/.exec(last)?.[1];
  return from && to && /^lines? /.test(last) ? `lines ${from}–${to}` : `${first} to ${last}`;
}
