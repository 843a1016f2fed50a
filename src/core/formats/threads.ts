/**
 * Threading a request log into conversations. One log can interleave several
 * conversations (a sub-agent, a second session through the same proxy): each
 * request continues the thread whose last request (plus its logged response)
 * it extends the furthest, as a prompt cache matches it. The same rules as the
 * live proxy's threading (`live/threads.ts`):
 *
 * - the run counts conversation messages: leading system messages are left
 *   out, so a patched system prompt still continues its conversation (and is
 *   judged); a request sharing no conversation message with a thread's last
 *   request does not continue it;
 * - a longer run wins; at equal runs, a thread the request extends entirely,
 *   then the most recent thread;
 * - a request that repeats a thread's request without adding to it (a retry,
 *   a new session opening with the same prompt) starts a new thread;
 * - a request with none of these starts a new thread, checked on its own.
 *
 * Cheap for a file: only each thread's last request is compared; a message
 * carried over from an earlier line (same `CARRIED_FROM` root) is equal without
 * rendering, and renders are compared only up to the first difference. With
 * one thread sharing the request's first conversation message and a request
 * longer than that thread's, nothing more is compared. At most `MAX_THREADS`
 * threads are remembered (the least recently continued is forgotten), so a
 * hostile log cannot pin unbounded history.
 */
import { CARRIED_FROM, type ContextWindow, type Message } from '../model';
import { renderMessage } from '../render';
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

  /** An independent copy (a followed log's reader is forked to read its end). */
  clone(): Threads {
    const copy = new Threads();
    copy.open.push(...this.open.map((thread) => ({ ...thread })));
    copy.started = this.started;
    return copy;
  }

  /** A copy with each thread's last exchange `move`d. */
  moved(move: (exchange: LoggedExchange) => LoggedExchange): Threads {
    const copy = this.clone();
    for (const thread of copy.open) thread.last = move(thread.last);
    return copy;
  }

  /** The log's one thread, when it has had only one. */
  only(): Thread | undefined {
    return this.started === 1 && this.open.length === 1 ? this.open[0] : undefined;
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
    const request = conversation(window.messages);
    if (request.length === 0) return undefined;
    const candidates: Thread[] = [];
    for (let t = this.open.length - 1; t >= 0; t--) {
      const thread = this.open[t] as Thread;
      if (sharedRun(conversation(historyOf(thread)), request, 1) === 1) candidates.push(thread);
    }
    const only = candidates.length === 1 ? candidates[0] : undefined;
    if (only && request.length > conversation(only.last.request.window.messages).length) return only;
    let best: Thread | undefined;
    let bestScore = 0;
    for (const thread of candidates) {
      const history = conversation(historyOf(thread));
      const shared = sharedRun(history, request, Infinity);
      const ownLength = conversation(thread.last.request.window.messages).length;
      if (shared === request.length && request.length <= ownLength) continue; // a repeat: not a continuation
      // Twice the run, plus one when the request extends the thread entirely: a longer run always wins.
      const score = 2 * shared + (shared === history.length ? 1 : 0);
      if (score > bestScore) [best, bestScore] = [thread, score];
    }
    return best;
  }
}

function historyOf(thread: Thread): readonly Message[] {
  return consumedWindow(thread.last).messages;
}

/** The conversation messages of a list: those after its leading system messages (a view, not a copy). */
interface Conversation {
  readonly messages: readonly Message[];
  readonly from: number;
  readonly length: number;
}

function conversation(messages: readonly Message[]): Conversation {
  let from = 0;
  while (from < messages.length && (messages[from] as Message).role === 'system') from++;
  return { messages, from, length: messages.length - from };
}

/** How many leading messages the two conversations share, counting up to `limit`. */
function sharedRun(history: Conversation, request: Conversation, limit: number): number {
  const n = Math.min(history.length, request.length, limit);
  let i = 0;
  while (i < n && sameMessage(history.messages[history.from + i] as Message, request.messages[request.from + i] as Message)) i++;
  return i;
}

function sameMessage(a: Message, b: Message): boolean {
  if ((a[CARRIED_FROM] ?? a) === (b[CARRIED_FROM] ?? b)) return true;
  return a.role === b.role && a.blocks.length === b.blocks.length && renderMessage(a) === renderMessage(b);
}
