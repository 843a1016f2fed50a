/**
 * `prefix-lens proxy`: a recording and enforcing proxy in front of the
 * Anthropic Messages, OpenAI Chat Completions and OpenAI Responses endpoints.
 *
 * Every POST to one of them is read, threaded and judged (the library's
 * LiveGuard) before it is forwarded; the response is passed through as it
 * arrives (an event stream chunk by chunk, byte for byte) and the exchange is
 * appended to the log once it ends (one `{request, response}` line, the
 * response rebuilt from the stream, written and flushed per exchange).
 * Headers are never written: API keys stay out of the log. Other paths are
 * forwarded unjudged. A refused request (`enforce`) is answered with a 400 in
 * the provider's own error shape and never reaches the upstream.
 */
import type * as Http from 'node:http';
import type * as Https from 'node:https';
import type { AddressInfo } from 'node:net';
import { providerErrorBody, providerOfPath, refusalMessage, type LiveProvider } from './endpoints';
import { LiveGuard, type LiveVerdict, type PendingExchange } from './judge';
import { ExchangeLog } from './proxy-log';
import { rebuildStreamedBody } from './sse';

export interface ProxyOptions {
  readonly port?: number;
  readonly host?: string;
  /** Where requests go; default https://api.anthropic.com for `/v1/messages`, https://api.openai.com otherwise. */
  readonly upstream?: string;
  /** Append each exchange to this file. */
  readonly log?: string;
  /** Refuse aborting requests (`abort`), or defer and abort ones (`defer`). */
  readonly enforce?: 'abort' | 'defer';
  /** Larger request bodies are answered with 413 (default 32 MiB, the Messages API's own limit). */
  readonly maxBodyBytes?: number;
  /** Told about every judged request, and whether it was refused. */
  readonly onVerdict?: (event: VerdictEvent) => void;
}

export interface VerdictEvent {
  readonly path: string;
  readonly verdict: LiveVerdict;
  readonly refused: boolean;
}

export interface RunningProxy {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  close(): Promise<void>;
}

const DEFAULT_MAX_BODY = 32 * 1024 * 1024;
/**
 * Node's http and https, loaded when a proxy starts rather than with the
 * engine: https loads tls and crypto, ~6 ms of CPU at the start of every CLI
 * check and library import that never proxies.
 */
function httpModules(): { readonly http: typeof Http; readonly https: typeof Https } {
  return { http: require('node:http') as typeof Http, https: require('node:https') as typeof Https };
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host', 'content-length', 'accept-encoding']);

export async function startProxy(options: ProxyOptions = {}): Promise<RunningProxy> {
  const guard = new LiveGuard();
  const log = options.log ? ExchangeLog.open(options.log) : undefined;
  const server = httpModules().http.createServer((req, res) => {
    handle(req, res, guard, log, options).catch((error: unknown) => {
      if (!res.headersSent) answer(res, 502, undefined, `Prefix Lens proxy: ${(error as Error).message ?? String(error)}`);
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          log?.close();
          resolve();
        });
      }),
  };
}

async function handle(req: Http.IncomingMessage, res: Http.ServerResponse, guard: LiveGuard, log: ExchangeLog | undefined, options: ProxyOptions): Promise<void> {
  const path = req.url ?? '/';
  const provider = providerOfPath(new URL(path, 'http://proxy').pathname);
  const body = await readBody(req, options.maxBodyBytes ?? DEFAULT_MAX_BODY);
  if (body === 'too-large') {
    answer(res, 413, provider, `Prefix Lens proxy: the request body is larger than ${options.maxBodyBytes ?? DEFAULT_MAX_BODY} bytes`, 'request_too_large');
    return;
  }
  if (!provider || req.method !== 'POST') return forward(req, res, body, options, undefined);
  const outcome = judged(guard, provider, body);
  if (outcome.kind === 'malformed') {
    answer(res, 400, provider, `Prefix Lens proxy: ${outcome.reason}`, 'invalid_json');
    return;
  }
  if (outcome.kind === 'not-a-request') return forward(req, res, body, options, undefined);
  const { verdict } = outcome.pending;
  const refused = isRefused(verdict, options.enforce);
  options.onVerdict?.({ path, verdict, refused });
  if (refused) {
    const message = refusalMessage(verdict.decision, verdict.findings);
    const errorBody = providerErrorBody(provider, message);
    log?.refusal(path, body.toString('utf8'), verdict, errorBody);
    guard.release(outcome.pending);
    answer(res, 400, provider, message);
    return;
  }
  return forward(req, res, body, options, { pending: outcome.pending, guard, log, path });
}

/** The guard's outcome; an internal error in the engine forwards the request unjudged (and says so). */
function judged(guard: LiveGuard, provider: LiveProvider, body: Buffer): ReturnType<LiveGuard['judge']> {
  try {
    return guard.judge(provider, body.toString('utf8'));
  } catch (error) {
    process.stderr.write(`prefix-lens proxy: a request could not be judged (${(error as Error).message}); forwarded unjudged\n`);
    return { kind: 'not-a-request' };
  }
}

function isRefused(verdict: LiveVerdict, enforce: ProxyOptions['enforce']): boolean {
  if (enforce === 'defer') return verdict.decision !== 'patch';
  return enforce === 'abort' && verdict.decision === 'abort';
}

interface Recording {
  readonly pending: PendingExchange;
  readonly guard: LiveGuard;
  readonly log: ExchangeLog | undefined;
  readonly path: string;
}

/** Sends the request upstream and streams the answer back as it arrives; records it at the end. */
function forward(req: Http.IncomingMessage, res: Http.ServerResponse, body: Buffer, options: ProxyOptions, recording: Recording | undefined): Promise<void> {
  const target = upstreamUrl(req.url ?? '/', options.upstream);
  const headers: Http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
  headers['content-length'] = body.length;
  const { http, https } = httpModules();
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const upstream = client.request(target, { method: req.method, headers }, (answerStream) => {
      res.writeHead(answerStream.statusCode ?? 502, passHeaders(answerStream.headers));
      res.flushHeaders();
      const chunks: Buffer[] = [];
      answerStream.on('data', (chunk: Buffer) => {
        res.write(chunk);
        if (recording) chunks.push(chunk);
      });
      answerStream.on('end', () => {
        // Logged before the client sees the end: an exchange the client has is on disk.
        if (recording) record(recording, answerStream, Buffer.concat(chunks).toString('utf8'), body);
        res.end();
        resolve();
      });
      answerStream.on('error', reject);
    });
    upstream.on('error', (error) => {
      recording?.guard.release(recording.pending);
      if (!res.headersSent) answer(res, 502, providerOfPath(target.pathname), `Prefix Lens proxy could not reach ${target.origin}: ${error.message}`, 'upstream_unreachable');
      else res.destroy();
      resolve();
    });
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    upstream.end(body);
  });
}

function record(recording: Recording, answer: Http.IncomingMessage, text: string, body: Buffer): void {
  const streamed = (answer.headers['content-type'] ?? '').includes('text/event-stream');
  const status = answer.statusCode ?? 0;
  try {
    // A stream is rebuilt once into the body it stands for ('' when it holds none), for the guard and the log.
    const rebuilt = streamed ? rebuildStreamedBody(recording.pending.provider, text) : undefined;
    const response = streamed ? (rebuilt ? JSON.stringify(rebuilt) : '') : text;
    recording.guard.record(recording.pending, status, response, false);
    recording.log?.exchange(recording.path, body.toString('utf8'), status, response, recording.pending);
  } catch (error) {
    process.stderr.write(`prefix-lens proxy: an exchange could not be recorded (${(error as Error).message})\n`);
  }
}

function passHeaders(headers: Http.IncomingHttpHeaders): Http.OutgoingHttpHeaders {
  const out: Http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (name !== 'connection' && name !== 'keep-alive' && value !== undefined) out[name] = value;
  return out;
}

/** The upstream URL of a request path: the upstream's own path prefix, then the request's path. */
function upstreamUrl(path: string, upstream: string | undefined): URL {
  const base = new URL(upstream ?? (providerOfPath(new URL(path, 'http://proxy').pathname) === 'anthropic' ? 'https://api.anthropic.com' : 'https://api.openai.com'));
  const prefix = base.pathname.replace(/\/+$/, '');
  return new URL(prefix + path, base.origin);
}

/** The whole request body, or `too-large` (the rest is read and dropped, so the answer reaches the client). */
function readBody(req: Http.IncomingMessage, max: number): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= max) chunks.push(chunk);
      else chunks.length = 0;
    });
    req.on('end', () => resolve(size > max ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Answers a request itself, in the provider's error shape; `x-should-retry: false` so SDKs do not retry it. */
function answer(res: Http.ServerResponse, status: number, provider: LiveProvider | undefined, message: string, code?: string): void {
  const body = providerErrorBody(provider, message, code);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-should-retry': 'false' });
  res.end(body);
}
