/**
 * Threading requests into conversations, the way a prompt cache matches them:
 * a request continues the earlier request (with its response) whose messages it
 * shares the longest leading run with. Concurrent sub-agents and parallel
 * sessions through one proxy so become separate threads, each judged on its own.
 *
 * - Messages are compared by their rendered bytes (hashed once per message).
 * - The run counts conversation messages: the leading system messages are left
 *   out, so a patched system prompt still continues its conversation (and is
 *   judged: prefix-mutated). A request sharing no conversation message with any
 *   earlier request starts a new thread.
 * - Ties go to a candidate the request extends entirely (so a side request that
 *   forked off a conversation does not capture it), then to the most recent
 *   (a compaction keeping only the first message is judged against the latest state).
 * - A request that repeats an earlier request without adding to it (a retry, a
 *   new session opening with the same prompt) starts a new thread: it is not a
 *   rewrite of anything.
 * - OpenAI Responses requests continuing server state (`previous_response_id`,
 *   `conversation`) continue the exchange holding that state; when none does,
 *   they start a thread checked on their own.
 *
 * Memory is bounded: the last `maxRequests` exchanges are kept as candidates.
 */
import type { EngineContext } from '../context';
import { CARRIED_FROM, type ContextWindow, type Message } from '../model';
import type { LoggedExchange, ParsedRequest, ProviderCodec } from '../formats/request-log';
import { consumedWindow } from '../formats/request-log';

/** Where a request belongs: its thread, and the exchange it is judged against. */
export interface Placement {
  /** 1-based, in order of first appearance. */
  readonly thread: number;
  /** 1-based position of the request in its thread (1: the thread's first request). */
  readonly step: number;
  /** The exchange it continues; undefined for a thread's first request. */
  readonly previous?: LoggedExchange;
  /** The window the model reads (a Responses delta resolved against the state it continues). */
  readonly window: ContextWindow;
  readonly request: ParsedRequest;
  /** Set when the request continues server state no kept exchange holds. */
  readonly unknownState?: string;
}

interface Candidate {
  readonly exchange: LoggedExchange;
  readonly thread: number;
  readonly step: number;
  /** Hashes of the conversation messages of request + response. */
  readonly hashes: readonly number[];
  /** How many of `hashes` are the request's own (the rest are the response). */
  readonly requestLength: number;
}

export class RequestThreads {
  private readonly candidates: Candidate[] = [];
  private threads = 0;
  private readonly hashes = new WeakMap<Message, number>();

  constructor(
    private readonly context: EngineContext,
    private readonly maxRequests = 64,
  ) {}

  /** Finds where a request belongs, without recording it (see `record`). */
  place(codec: ProviderCodec, request: ParsedRequest): Placement {
    if (request.window.serverState) return this.placeStateful(codec, request);
    const hashes = this.conversationHashes(request.window);
    const best = this.bestMatch(hashes);
    if (!best) return { thread: ++this.threads, step: 1, window: request.window, request };
    return { thread: best.thread, step: best.step + 1, previous: best.exchange, window: request.window, request };
  }

  /** Records a placed request with the response the model gave, as a candidate for later requests; returns the exchange kept. */
  record(placement: Placement, response: Omit<LoggedExchange, 'request'>): LoggedExchange {
    const request: ParsedRequest = { ...placement.request, window: placement.window };
    const exchange: LoggedExchange = { ...response, request };
    const requestHashes = this.conversationHashes(placement.window);
    const responseHashes = response.response.map((m) => this.hashOf(m));
    const candidate = { exchange, thread: placement.thread, step: placement.step, hashes: [...requestHashes, ...responseHashes], requestLength: requestHashes.length };
    this.candidates.push(candidate);
    if (this.candidates.length > this.maxRequests) this.candidates.shift();
    return exchange;
  }

  private placeStateful(codec: ProviderCodec, request: ParsedRequest): Placement {
    for (let i = this.candidates.length - 1; i >= 0; i--) {
      const candidate = this.candidates[i] as Candidate;
      const continuation = codec.continueFrom?.(candidate.exchange, request);
      if (continuation?.kind === 'continued') {
        return { thread: candidate.thread, step: candidate.step + 1, previous: candidate.exchange, window: continuation.window, request };
      }
    }
    const state = request.window.serverState;
    const reason = state ? `${state.kind} ${state.id} is not the state of a request seen before` : undefined;
    return { thread: ++this.threads, step: 1, window: request.window, request, ...(reason && { unknownState: reason }) };
  }

  /** The candidate sharing the longest leading run of conversation messages (see the module comment). */
  private bestMatch(hashes: readonly number[]): Candidate | undefined {
    let best: Candidate | undefined;
    let bestScore = 0;
    for (let i = this.candidates.length - 1; i >= 0; i--) {
      const candidate = this.candidates[i] as Candidate;
      const shared = sharedRun(hashes, candidate.hashes);
      if (shared === 0 || (shared === hashes.length && hashes.length <= candidate.requestLength)) continue;
      // Twice the run, plus one when the request extends the candidate entirely: a longer run always wins.
      const score = 2 * shared + (shared === candidate.hashes.length ? 1 : 0);
      if (score > bestScore) [best, bestScore] = [candidate, score];
    }
    return best;
  }

  private conversationHashes(window: ContextWindow): number[] {
    const messages = window.messages;
    const first = leadingSystem(messages);
    const hashes = new Array<number>(messages.length - first);
    for (let i = first; i < messages.length; i++) hashes[i - first] = this.hashOf(messages[i] as Message);
    return hashes;
  }

  /** The hash of a message's render, once per reading (a carried message shares its first reading's). */
  private hashOf(message: Message): number {
    const key = message[CARRIED_FROM] ?? message;
    let hash = this.hashes.get(key);
    if (hash === undefined) this.hashes.set(key, (hash = hashString(this.context.render.messageText(message))));
    return hash;
  }
}

/** The state a thread's next request is judged against: the previous request and its response, all consumed. */
export function threadState(placement: Placement): ContextWindow | undefined {
  return placement.previous && consumedWindow(placement.previous);
}

function leadingSystem(messages: readonly Message[]): number {
  let i = 0;
  while (i < messages.length && (messages[i] as Message).role === 'system') i++;
  return i;
}

function sharedRun(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let k = 0;
  while (k < n && a[k] === b[k]) k++;
  return k;
}

/** A 52-bit hash of a string (two 26-bit FNV-1a variants), for comparing renders. */
export function hashString(text: string): number {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
  }
  return ((h1 >>> 6) * 0x4000000) + (h2 >>> 6);
}
