/**
 * Shared by the live tests: the recorded provider exchanges of the corpus
 * (read in place from ../shared/corpus), and replaying them through a LiveGuard.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { providerOfPath, type LiveProvider } from '../../src/core/live/endpoints';
import type { LiveGuard, LiveVerdict } from '../../src/core/live/judge';
import { CORPUS } from '../support/corpus';

/** Event streams in the providers' documented shapes (the corpus holds no streamed recordings). */
export const sse = (name: string) => fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'live', name), 'utf8');

/** The shared corpus beside the repository (CI has it beside the clone). */

export interface RecordedExchange {
  readonly provider: LiveProvider;
  /** The request path, e.g. `/v1/messages`. */
  readonly path: string;
  readonly request: Record<string, unknown>;
  readonly status: number;
  readonly response: unknown;
}

/** The POST exchanges of a corpus request log whose endpoint the live paths judge, in order. */
export function recordedExchanges(folder: string, file: string): RecordedExchange[] {
  const text = fs.readFileSync(path.join(CORPUS, folder, file), 'utf8');
  return text.split('\n').flatMap((line) => {
    if (line.trim() === '') return [];
    const record = JSON.parse(line) as { method?: string; uri?: string; request?: Record<string, unknown>; status?: number; response?: unknown };
    const url = new URL(record.uri ?? 'http://x/');
    const provider = providerOfPath(url.pathname);
    if (!provider || record.method !== 'POST' || !record.request) return [];
    return [{ provider, path: url.pathname, request: record.request, status: record.status ?? 200, response: record.response }];
  });
}

/** Every corpus request log of the three live providers, as [folder, file]. */
export function corpusLogs(): [string, string][] {
  return ['anthropic-messages', 'openai-chat', 'openai-responses'].flatMap((folder) =>
    fs.readdirSync(path.join(CORPUS, folder)).map((file): [string, string] => [folder, file]),
  );
}

/** Judges and records each exchange in turn; the verdicts of those judged. */
export function replay(guard: LiveGuard, exchanges: readonly RecordedExchange[]): LiveVerdict[] {
  return exchanges.flatMap((exchange) => {
    const outcome = guard.judge(exchange.provider, JSON.stringify(exchange.request));
    if (outcome.kind !== 'judged') return [];
    guard.record(outcome.pending, exchange.status, JSON.stringify(exchange.response), false);
    return [outcome.pending.verdict];
  });
}
