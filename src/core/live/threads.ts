/**
 * The live paths' threads: the request log's threading (formats/threads.ts:
 * a request continues the thread it extends the furthest, as a prompt cache
 * matches it), so the proxy's verdicts are the verdicts of checking its log
 * afterwards. Adds what a live verdict names before the response is known:
 * the thread's number (assigned when its first request is judged) and the
 * request's step in it.
 */
import type { ContextWindow } from '../model';
import type { LoggedExchange, ParsedRequest, ProviderCodec } from '../formats/request-log';
import { Threads, type Thread } from '../formats/threads';

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
  /** The log threading's thread it continues. */
  readonly continues?: Thread;
}

export class LiveThreads {
  private readonly threads = new Threads();
  private readonly numbers = new WeakMap<Thread, { readonly id: number; readonly steps: number }>();
  private started = 0;

  /** Finds where a request belongs, without recording it (see `record`). */
  place(codec: ProviderCodec, request: ParsedRequest): Placement {
    const { thread, continuation } = this.threads.place(request, codec);
    const window = continuation.kind === 'continued' ? continuation.window : request.window;
    const known = thread && this.numbers.get(thread);
    if (!thread || !known) {
      const unknownState = continuation.kind === 'unknown-state' ? continuation.reason : undefined;
      return { thread: ++this.started, step: 1, window, request, ...(unknownState && { unknownState }) };
    }
    return { thread: known.id, step: known.steps + 1, previous: thread.last, window, request, continues: thread };
  }

  /**
   * A placed request that will not be recorded (refused, failed, never
   * answered): a new thread's number is handed out again, as the log, which
   * holds no such request, numbers the next thread (unless a later new thread
   * was placed meanwhile).
   */
  release(placement: Placement): void {
    if (!placement.continues && placement.step === 1 && placement.thread === this.started) this.started--;
  }

  /** Records a placed request with the response the model gave; returns the exchange kept. */
  record(placement: Placement, response: Omit<LoggedExchange, 'request'>): LoggedExchange {
    const exchange: LoggedExchange = { ...response, request: { ...placement.request, window: placement.window } };
    const thread = this.threads.record(placement.continues, exchange);
    const known = this.numbers.get(thread);
    this.numbers.set(thread, { id: known?.id ?? placement.thread, steps: Math.max(known?.steps ?? 0, placement.step) });
    return exchange;
  }
}
