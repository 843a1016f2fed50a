/**
 * `guardedFetch(options?)`: a `fetch` for the official SDKs
 * (`new Anthropic({ fetch })`, `new OpenAI({ fetch })`) that threads and
 * judges every Anthropic Messages / OpenAI Chat Completions / OpenAI Responses
 * request body before it is sent. A refused request throws `GuardRefusedError`
 * (carrying the verdict) and is never sent; every other verdict goes to
 * `onVerdict`. The response reaches the caller unchanged; a copy of it is read
 * on the side to learn what the model answered.
 */
import { providerOfPath, refusalMessage, type LiveProvider } from './endpoints';
import { LiveGuard, type LiveGuardOptions, type LiveVerdict, type PendingExchange } from './judge';

export interface GuardedFetchOptions extends LiveGuardOptions {
  /** The fetch that sends requests; default `globalThis.fetch`. */
  readonly fetch?: typeof fetch;
  /** Called with the verdict of every request that is sent. */
  readonly onVerdict?: (verdict: LiveVerdict) => void;
  /** Which decisions are refused: `abort` (default) or `defer` (defer and abort). */
  readonly refuse?: 'abort' | 'defer';
  /** A guard to share between several fetches (their requests thread together). */
  readonly guard?: LiveGuard;
}

/** Thrown by a guarded fetch for a refused request; the request was not sent. */
export class GuardRefusedError extends Error {
  override readonly name = 'GuardRefusedError';
  constructor(readonly verdict: LiveVerdict) {
    super(refusalMessage(verdict.decision, verdict.findings));
  }
}

/**
 * The refusal behind an error, if any: the SDKs wrap what a fetch throws
 * (`APIConnectionError` with the refusal as its `cause`), so this walks the
 * `cause` chain.
 */
export function refusalOf(error: unknown): GuardRefusedError | undefined {
  for (let e = error, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof GuardRefusedError) return e;
  }
  return undefined;
}

export function guardedFetch(options: GuardedFetchOptions = {}): typeof fetch {
  const guard = options.guard ?? new LiveGuard(options);
  const send = options.fetch ?? globalThis.fetch;
  const refused = options.refuse === 'defer' ? ['defer', 'abort'] : ['abort'];
  return async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const provider = providerOfPath(new URL(urlOf(input)).pathname);
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    if (!provider || method !== 'POST') return send(input, init);
    const body = await bodyText(input, init);
    const outcome = body === undefined ? undefined : guard.judge(provider, body);
    if (outcome?.kind !== 'judged') return send(input, init);
    const { verdict } = outcome.pending;
    if (refused.includes(verdict.decision)) {
      guard.release(outcome.pending);
      throw new GuardRefusedError(verdict);
    }
    options.onVerdict?.(verdict);
    const response = await send(input, init).catch((error: unknown) => {
      guard.release(outcome.pending);
      throw error;
    });
    return observed(response, guard, outcome.pending);
  };
}

function urlOf(input: RequestInfo | URL): string {
  return typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
}

/** The request body as text; undefined for bodies that are not text (streams, forms). */
async function bodyText(input: RequestInfo | URL, init: RequestInit | undefined): Promise<string | undefined> {
  const body = init?.body;
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array || body instanceof ArrayBuffer) return new TextDecoder().decode(body);
  if (body === undefined && input instanceof Request) return input.clone().text();
  return undefined;
}

/** The same response; what it carries is recorded when the caller has read it all. */
function observed(response: Response, guard: LiveGuard, pending: PendingExchange): Response {
  const streamed = (response.headers.get('content-type') ?? '').includes('text/event-stream');
  if (!response.body) {
    guard.record(pending, response.status, '', streamed);
    return response;
  }
  const decoder = new TextDecoder();
  let text = '';
  const tap = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      text += decoder.decode(chunk, { stream: true });
      controller.enqueue(chunk);
    },
    flush() {
      guard.record(pending, response.status, text + decoder.decode(), streamed);
    },
  });
  return new Response(response.body.pipeThrough(tap), { status: response.status, statusText: response.statusText, headers: response.headers });
}

export type { LiveProvider, LiveVerdict };
