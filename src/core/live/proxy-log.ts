/**
 * The proxy's request log: one JSON line per exchange, appended and written
 * through to the file before the next one (a proxy killed mid-session leaves
 * every finished exchange on disk). A line is a record the engine's request-log
 * reader reads: `{"method","uri","status","thread","step","decision","request","response"}`,
 * the request body as sent (JSON whitespace line breaks turned to spaces, so it
 * stays one line; every other byte kept) and the response as JSON (a stream
 * rebuilt into the body it stands for). A refused request is logged as
 * `{"refused": {…, "request", "error"}}`: the reader skips it (the model never
 * read it). Headers are never written.
 */
import * as fs from 'node:fs';
import { verdictRules, type LiveVerdict, type PendingExchange } from './judge';

export class ExchangeLog {
  private constructor(private readonly fd: number) {}

  static open(file: string): ExchangeLog {
    return new ExchangeLog(fs.openSync(file, 'a'));
  }

  /** `response`: the body as JSON text (a stream already rebuilt into the body it stands for). */
  exchange(uri: string, request: string, status: number, response: string, pending: PendingExchange): void {
    const { verdict } = pending;
    const head = JSON.stringify({ method: 'POST', uri, status, thread: verdict.thread, step: verdict.step, decision: verdict.decision });
    this.write(`${head.slice(0, -1)},"request":${oneLine(request)},"response":${responseLine(response)}}`);
  }

  refusal(uri: string, request: string, verdict: LiveVerdict, error: string): void {
    const head = JSON.stringify({ method: 'POST', uri, thread: verdict.thread, step: verdict.step, decision: verdict.decision, rules: verdictRules(verdict), toolCallIds: verdict.toolCallIds });
    this.write(`{"refused":${head.slice(0, -1)},"request":${oneLine(request)},"error":${error}}}`);
  }

  close(): void {
    fs.closeSync(this.fd);
  }

  private write(line: string): void {
    fs.writeSync(this.fd, `${line}\n`);
  }
}

/**
 * A JSON text on one line: raw line breaks can only be whitespace between
 * tokens in valid JSON. For a request body: the guard has parsed it (a body
 * that does not parse is answered 400 and never logged), so it is not parsed again.
 */
function oneLine(json: string): string {
  return json.trim().replace(/[\r\n]+/g, ' ');
}

/** A response body on one line; `null` when it is empty or not JSON (an upstream's HTML error page). */
function responseLine(text: string): string {
  const json = text.trim();
  return json !== '' && isJson(json) ? oneLine(json) : 'null';
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
