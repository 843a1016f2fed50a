/**
 * Worker-thread entry (bundled to dist/worker.js): checks one large transcript
 * (or a session's sub-agent files) off the extension host thread. Receives a
 * WorkerRequest, answers with what it gives (plain data) or the error's message.
 */
import { parentPort } from 'node:worker_threads';
import { answerRequest, type WorkerRequest } from './engine';

export type WorkerAnswer = { readonly ok: true; readonly result: ReturnType<typeof answerRequest> } | { readonly ok: false; readonly error: string };

parentPort?.on('message', (request: WorkerRequest) => {
  let answer: WorkerAnswer;
  try {
    answer = { ok: true, result: answerRequest(request) };
  } catch (error) {
    answer = { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(answer);
});
