/**
 * Threading a request log into conversations. One log can interleave several
 * conversations (a sub-agent, a second session through the same proxy): each
 * request continues the thread whose last request (plus its logged response)
 * it extends the furthest, as a prompt cache matches it: the longest run of
 * leading messages that render the same (ties: the most recent thread). A
 * request whose first message matches no thread's continues the most recent
 * thread with the same non-empty tool registry (an edited or compacted history
 * under the same tools and system prompt: the cache still matches the tools);
 * otherwise it starts a new thread. Steps are judged within a thread only.
 *
 * Cheap by design: only each thread's last request is compared, message by
 * message from the start; a message carried over from an earlier line (same
 * `CARRIED_FROM` root) is equal without rendering, and rendering stops at the
 * first difference. With one candidate thread only the first message is compared.
 * At most `MAX_THREADS` threads are remembered (the least recently continued
 * is forgotten), so a hostile log cannot pin unbounded history.
 */
import { CARRIED_FROM, type ContextWindow, type Message, type ToolSchema } from '../model';
import { renderMessage, renderTool } from '../render';
import type { Continuation, LoggedExchange, ParsedRequest, ProviderCodec } from './request-log';
import { consumedWindow } from './request-log';

/** One conversation of a log. `id` is 1-based, in order of first appearance. */
export interface Thread {
  readonly id: number;
  /** Its last request with the logged response: what its next request is judged against. */
  last: LoggedExchange;
}

/** Where a request goes: the thread it continues (undefined: a new one) and how its server state resolved. */
export interface Placement {
  readonly thread: Thread | undefined;
  readonly continuation: Continuation;
}

export const MAX_THREADS = 8;

export class Threads {
  /** Least recently continued first. */
  private readonly open: Thread[] = [];
  private started = 0;

  /** How many threads the log has had so far. */
  get count(): number {
    return this.started;
  }

  /** The thread `current` continues (server state first, then the shared prefix). */
  place(current: ParsedRequest, codec: ProviderCodec): Placement {
    if (current.window.serverState && codec.continueFrom) return this.placeByState(current, codec);
    const continuation = codec.continueFrom?.(undefined, current) ?? { kind: 'self-contained' };
    return { thread: this.byPrefix(current.window), continuation };
  }

  /** Records `exchange` as the last request of `thread`, or of a new thread; returns the thread. */
  record(thread: Thread | undefined, exchange: LoggedExchange): Thread {
    const target = thread ?? { id: ++this.started, last: exchange };
    target.last = exchange;
    const at = this.open.indexOf(target);
    if (at >= 0) this.open.splice(at, 1);
    this.open.push(target);
    if (this.open.length > MAX_THREADS) this.open.shift();
    return target;
  }

  /** A delta request continues the thread whose last response holds its state (most recent first). */
  private placeByState(current: ParsedRequest, codec: ProviderCodec): Placement {
    let first: Continuation | undefined;
    for (let t = this.open.length - 1; t >= 0; t--) {
      const thread = this.open[t] as Thread;
      const continuation = codec.continueFrom?.(thread.last, current) ?? { kind: 'self-contained' };
      if (continuation.kind === 'continued') return { thread, continuation };
      first ??= continuation;
    }
    const continuation = first ?? codec.continueFrom?.(undefined, current) ?? { kind: 'self-contained' };
    return { thread: continuation.kind === 'self-contained' ? this.byPrefix(current.window) : undefined, continuation };
  }

  private byPrefix(window: ContextWindow): Thread | undefined {
    const messages = window.messages;
    const candidates = this.open.filter((thread) => sharedPrefix(historyOf(thread), messages, 1) > 0);
    if (candidates.length === 0) return this.byTools(window);
    if (candidates.length === 1) return candidates[0];
    let best = candidates[candidates.length - 1] as Thread;
    let bestExtent = -1;
    for (let t = candidates.length - 1; t >= 0; t--) {
      const thread = candidates[t] as Thread;
      const extent = sharedPrefix(historyOf(thread), messages, Infinity);
      if (extent > bestExtent) [best, bestExtent] = [thread, extent];
    }
    return best;
  }

  /** No thread shares the first message: the most recent thread with the same (non-empty) tool registry, as a cache would match it. */
  private byTools(window: ContextWindow): Thread | undefined {
    if (window.tools.length === 0) return undefined;
    for (let t = this.open.length - 1; t >= 0; t--) {
      const thread = this.open[t] as Thread;
      if (sameTools(thread.last.request.window.tools, window.tools)) return thread;
    }
    return undefined;
  }
}

function historyOf(thread: Thread): readonly Message[] {
  return consumedWindow(thread.last).messages;
}

/** How many leading messages the two lists share, counting up to `limit`. */
function sharedPrefix(history: readonly Message[], messages: readonly Message[], limit: number): number {
  const n = Math.min(history.length, messages.length, limit);
  let i = 0;
  while (i < n && sameMessage(history[i] as Message, messages[i] as Message)) i++;
  return i;
}

function sameTools(a: readonly ToolSchema[], b: readonly ToolSchema[]): boolean {
  return a.length === b.length && a.every((tool, i) => renderTool(tool) === renderTool(b[i] as ToolSchema));
}

function sameMessage(a: Message, b: Message): boolean {
  if ((a[CARRIED_FROM] ?? a) === (b[CARRIED_FROM] ?? b)) return true;
  return a.role === b.role && a.blocks.length === b.blocks.length && renderMessage(a) === renderMessage(b);
}
