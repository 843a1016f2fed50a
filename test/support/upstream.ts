/**
 * The stand-in provider of the live tests: a real HTTP server on 127.0.0.1
 * that answers each request with the next recorded response in its queue
 * (JSON, or an event stream written in several chunks with pauses between
 * them), and remembers every request it received (path, headers, body).
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Reply {
  readonly status?: number;
  readonly contentType: string;
  readonly body: string;
  /** Write the body in this many pieces, 5 ms apart (streams). */
  readonly pieces?: number;
}

export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

export interface Upstream {
  readonly url: string;
  readonly received: ReceivedRequest[];
  readonly replies: Reply[];
  close(): Promise<void>;
}

export const jsonReply = (body: unknown, status = 200): Reply => ({ status, contentType: 'application/json', body: JSON.stringify(body) });
export const sseReply = (body: string): Reply => ({ contentType: 'text/event-stream; charset=utf-8', body, pieces: 7 });

export async function startUpstream(): Promise<Upstream> {
  const received: ReceivedRequest[] = [];
  const replies: Reply[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const reply = replies.shift() ?? jsonReply({ error: { message: 'the replay queue is empty' } }, 500);
      void send(res, reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    replies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function send(res: http.ServerResponse, reply: Reply): Promise<void> {
  res.writeHead(reply.status ?? 200, { 'content-type': reply.contentType, 'request-id': 'req_replay' });
  const bytes = Buffer.from(reply.body, 'utf8');
  const pieces = reply.pieces ?? 1;
  const size = Math.ceil(bytes.length / pieces);
  for (let i = 0; i < bytes.length; i += size) {
    res.write(bytes.subarray(i, i + size));
    if (pieces > 1) await new Promise((r) => setTimeout(r, 5));
  }
  res.end();
}
