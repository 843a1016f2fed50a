/**
 * The live guard shared by the proxy and `guardedFetch`: reads each request
 * body with the engine's own provider readers, threads it (threads.ts), judges
 * it against its predecessor in the thread, and records the exchange once the
 * response is known, so the next request of that thread is judged against it.
 */
import type { TokenEncoding } from '../results';
import { createEngineContext, type EngineContext } from '../context';
import { decide, type Finding, type StepVerdict } from '../findings';
import { judgeRewrite, windowFindings } from '../guard';
import { parseJson } from '../json/parse';
import { asObject } from '../json/nodes';
import type { ContextWindow } from '../model';
import { consumedWindow, loggedExchange } from '../formats/request-log';
import { LIVE_CODECS, toolCallIdsOf, type LiveProvider } from './endpoints';
import { rebuildStreamedBody } from './sse';
import { RequestThreads, type Placement } from './threads';

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
  /** Exchanges kept as thread candidates; default 64. */
  readonly maxRequests?: number;
}

/** A judged request waiting for its response. */
export interface PendingExchange {
  readonly provider: LiveProvider;
  readonly placement: Placement;
  readonly verdict: LiveVerdict;
}

export type JudgeOutcome =
  | { readonly kind: 'judged'; readonly pending: PendingExchange }
  /** The body is not JSON: answer it with this reason. */
  | { readonly kind: 'malformed'; readonly reason: string }
  /** JSON, but not a request body of the provider (left to the provider to answer). */
  | { readonly kind: 'not-a-request' };

/** How one step is judged: the seam where the stateful guard (`createGuard`) plugs in. */
interface StepJudge {
  judge(before: ContextWindow, after: ContextWindow): StepVerdict;
}

function statelessJudge(context: EngineContext): StepJudge {
  return { judge: (before, after) => judgeRewrite({ source: 'request', before, after, applied: true }, { context }) };
}

export class LiveGuard {
  private readonly context: EngineContext;
  private readonly threads: RequestThreads;
  private readonly steps: StepJudge;

  constructor(options: LiveGuardOptions = {}) {
    this.context = createEngineContext(options.tokens ?? false);
    this.threads = new RequestThreads(this.context, options.maxRequests);
    this.steps = statelessJudge(this.context);
  }

  /** Reads, threads and judges one request body. Never throws on bad input. */
  judge(provider: LiveProvider, body: string): JudgeOutcome {
    const parsed = parseJson(body);
    if (!parsed.ok) return { kind: 'malformed', reason: `the request body is not valid JSON (${parsed.error.message} at offset ${parsed.error.offset})` };
    const codec = LIVE_CODECS[provider];
    const object = asObject(parsed.node);
    if (!object || !codec.isRequest(object)) return { kind: 'not-a-request' };
    const placement = this.threads.place(codec, codec.readRequest(object));
    const verdict = this.verdictOf(provider, placement);
    return { kind: 'judged', pending: { provider, placement, verdict } };
  }

  /**
   * Records what the model answered, so the thread's next request is judged
   * against it. `body` is the response text (JSON, or an event stream when
   * `streamed`); failed exchanges (status >= 400) are not recorded: a retry
   * continues the last exchange that succeeded.
   */
  record(pending: PendingExchange, status: number, body: string, streamed: boolean): void {
    if (status >= 400) return;
    const node = streamed ? streamedNode(pending.provider, body) : jsonNode(body);
    this.threads.record(pending.placement, loggedExchange(pending.placement.request, node, LIVE_CODECS[pending.provider]));
  }

  private verdictOf(provider: LiveProvider, placement: Placement): LiveVerdict {
    const where = { provider, thread: placement.thread, step: placement.step };
    if (!placement.previous) {
      const findings = windowFindings(placement.window, this.context);
      return { ...where, decision: decide(findings), source: 'request', findings, cacheImpact: { consumedTokens: 0, invalidatedTokens: 0 }, toolCallIds: toolCallIdsOf(findings) };
    }
    const verdict = this.steps.judge(consumedWindow(placement.previous), placement.window);
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
