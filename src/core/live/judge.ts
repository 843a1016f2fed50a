/**
 * The live guard shared by the proxy and `guardedFetch`: reads each request
 * body with the engine's own provider readers, threads it as the request-log
 * reader does (threads.ts), judges
 * it against its predecessor in the thread, and records the exchange once the
 * response is known, so the next request of that thread is judged against it.
 */
import type { TokenEncoding } from '../results';
import { createEngineContext, type EngineContext } from '../context';
import { decide, type Finding, type StepVerdict } from '../findings';
import { createGuard, windowFindings, type Guard } from '../guard';
import { parseJson } from '../json/parse';
import { consumedWindow, loggedExchange, type LoggedExchange } from '../formats/request-log';
import { LIVE_CODECS, toolCallIdsOf, type LiveProvider } from './endpoints';
import { rebuildStreamedBody } from './sse';
import { RequestReader } from './read';
import { LiveThreads, type Placement } from './threads';

/** A request's verdict, with where it sits among the conversations seen so far. */
export interface LiveVerdict extends StepVerdict {
  readonly provider: LiveProvider;
  /** 1-based thread (conversation) number, in order of first appearance. */
  readonly thread: number;
  /** 1-based position in the thread; 1 = the thread's first request, checked on its own. */
  readonly step: number;
  /** Tool call ids the findings name. */
  readonly toolCallIds: readonly string[];
}

export interface LiveGuardOptions {
  /** Token counts for the cache impact; default false (fastest). */
  readonly tokens?: TokenEncoding | false;
}

/** A judged request waiting for its response. */
export interface PendingExchange {
  readonly provider: LiveProvider;
  readonly placement: Placement;
  readonly verdict: LiveVerdict;
  /** The thread's stateful guard, at the state the request was judged against. */
  readonly guard?: Guard;
}

export type JudgeOutcome =
  | { readonly kind: 'judged'; readonly pending: PendingExchange }
  /** The body is not JSON: answer it with this reason. */
  | { readonly kind: 'malformed'; readonly reason: string }
  /** JSON, but not a request body of the provider (left to the provider to answer). */
  | { readonly kind: 'not-a-request' };

export class LiveGuard {
  private readonly context: EngineContext;
  private readonly threads = new LiveThreads();
  /**
   * One stateful guard per thread tip (createGuard: a check costs what the
   * request changes), handed on to the exchange that continues it.
   */
  private readonly guards = new WeakMap<LoggedExchange, Guard>();
  private readonly reader = new RequestReader();

  constructor(options: LiveGuardOptions = {}) {
    this.context = createEngineContext(options.tokens ?? false);
  }

  /** Reads, threads and judges one request body. Never throws on bad input. */
  judge(provider: LiveProvider, body: string): JudgeOutcome {
    const codec = LIVE_CODECS[provider];
    const read = this.reader.read(codec, body);
    if (read.kind !== 'read') return read;
    const placement = this.threads.place(codec, read.request);
    const guard = placement.previous && this.guardOf(placement.previous);
    const verdict = this.verdictOf(provider, placement, guard);
    return { kind: 'judged', pending: { provider, placement, verdict, ...(guard && { guard }) } };
  }

  /**
   * Records what the model answered, so the thread's next request is judged
   * against it. `body` is the response text (JSON, or an event stream when
   * `streamed`); failed exchanges (status >= 400) are not recorded: a retry
   * continues the last exchange that succeeded.
   */
  record(pending: PendingExchange, status: number, body: string, streamed: boolean): void {
    if (status >= 400) return this.release(pending);
    const node = streamed ? streamedNode(pending.provider, body) : jsonNode(body);
    const { placement } = pending;
    const exchange = this.threads.record(placement, loggedExchange(placement.request, node, LIVE_CODECS[pending.provider]));
    const tip = placement.previous && this.guards.get(placement.previous);
    let guard: Guard;
    if (pending.guard && tip === pending.guard) {
      // Still the thread's own guard: move it forward (the request, then the answer).
      guard = pending.guard;
      guard.apply(placement.window);
      this.guards.delete(placement.previous as LoggedExchange);
    } else {
      guard = createGuard(placement.window, { context: this.context });
    }
    guard.generate(exchange.response);
    this.guards.set(exchange, guard);
  }

  /** A judged request that will not be recorded (refused, or no answer came): its thread number is not used up. */
  release(pending: PendingExchange): void {
    this.threads.release(pending.placement);
  }

  /** The guard at the state of an exchange: the thread's own, or a new one (a fork, an evicted tip). */
  private guardOf(exchange: LoggedExchange): Guard {
    return this.guards.get(exchange) ?? createGuard(consumedWindow(exchange), { context: this.context });
  }

  private verdictOf(provider: LiveProvider, placement: Placement, guard: Guard | undefined): LiveVerdict {
    const where = { provider, thread: placement.thread, step: placement.step };
    if (!placement.previous) {
      const findings = windowFindings(placement.window, this.context);
      return { ...where, decision: decide(findings), source: 'request', findings, cacheImpact: { consumedTokens: 0, invalidatedTokens: 0 }, toolCallIds: toolCallIdsOf(findings) };
    }
    const verdict = (guard ?? this.guardOf(placement.previous)).check(placement.window, { source: 'request' });
    return { ...where, ...verdict, toolCallIds: toolCallIdsOf(verdict.findings) };
  }
}

function jsonNode(body: string) {
  const parsed = parseJson(body);
  return parsed.ok ? parsed.node : undefined;
}

function streamedNode(provider: LiveProvider, body: string) {
  const rebuilt = rebuildStreamedBody(provider, body);
  return rebuilt ? jsonNode(JSON.stringify(rebuilt)) : undefined;
}

/** The error-level rule ids of a verdict, for one-line summaries. */
export function verdictRules(verdict: { readonly findings: readonly Finding[] }): string[] {
  return [...new Set(verdict.findings.map((f) => f.rule))];
}
