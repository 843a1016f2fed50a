/**
 * Worker-thread entry (bundled to dist/worker.js): checks one large transcript
 * off the extension host thread. Receives a CheckRequest, answers with the
 * report (plain data) or the error's message.
 */
import { parentPort } from 'node:worker_threads';
import { checkRequest, type CheckRequest } from './engine';

export type WorkerAnswer = { readonly ok: true; readonly report: ReturnType<typeof checkRequest> } | { readonly ok: false; readonly error: string };

parentPort?.on('message', (request: CheckRequest) => {
  let answer: WorkerAnswer;
  try {
    answer = { ok: true, report: checkRequest(request) };
  } catch (error) {
    answer = { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(answer);
});
