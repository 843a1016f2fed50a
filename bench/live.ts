/**
 * The live paths' numbers (`npm run bench` runs this in a child process and
 * merges them into bench/results.json), each against a baseline measured in
 * the same run:
 *
 * - proxy overhead per request: the same requests sent straight to a local
 *   upstream (a real HTTP server on 127.0.0.1 answering a recorded-shape JSON
 *   body) and through the proxy to it; small requests, and a 10k-message
 *   conversation growing by one exchange per request (every request judged as
 *   a step of its thread);
 * - the guard's own cost on those 10k-message requests (LiveGuard.judge +
 *   record in process, replaying the same requests in the same order), and
 *   the proxy's overhead against its target, 1 ms plus that cost: paired per
 *   request (direct and proxied sends alternate which goes first), medians of
 *   60 requests after warm-up, each request a new step of one conversation
 *   (never a repeat, which would be judged as a new thread), a full GC before
 *   each timed call; CPU time of the process (the machine is shared: wall
 *   time is reported beside it);
 * - follow latency: a line appended to a file until `check --follow` prints its
 *   step, against the same append until a plain `fs.watch` on the file fires.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { startProxy } from '../src/core/live/proxy';
import { LiveGuard } from '../src/core/live/judge';
import { result, type BenchResult } from './results';
import { historyMessage } from './windows';

const ROOT = path.resolve(__dirname, '..');
const ANSWER = JSON.stringify({ id: 'msg_bench', type: 'message', role: 'assistant', model: 'claude-bench', content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1 } });
const TOOLS = [{ name: 'query_db', description: 'The query_db tool.', input_schema: { type: 'object', properties: { q: { type: 'string' } } } }];

async function upstreamServer(): Promise<{ url: string; close: () => void }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(ANSWER));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => (server.closeAllConnections(), server.close()) };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** Wall and CPU time of one call, in ms (CPU: this process, all threads; the client, the proxy and the upstream all run here). */
interface Took {
  readonly wall: number;
  readonly cpu: number;
}

function since(start: bigint, cpu: NodeJS.CpuUsage): Took {
  const used = process.cpuUsage(cpu);
  return { wall: Number(process.hrtime.bigint() - start) / 1e6, cpu: (used.user + used.system) / 1000 };
}

/** One POST (keep-alive, as SDKs send). */
function post(url: string, body: string): Promise<Took> {
  const [start, cpu] = [process.hrtime.bigint(), process.cpuUsage()];
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/v1/messages`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(since(start, cpu)));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A full collection before each timed call (run with --expose-gc): the 1.5 MB bodies' garbage is not timed in the next call. */
const collect = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** Request bodies of one conversation: `start` history messages, each next request adds the answer and a user turn. */
function conversation(start: number, count: number): string[] {
  const messages: unknown[] = Array.from({ length: start }, (_, i) => historyMessage(i));
  const bodies: string[] = [];
  for (let i = 0; i < count; i++) {
    messages.push({ role: 'user', content: [{ type: 'text', text: `Next question ${i}` }] });
    bodies.push(JSON.stringify({ model: 'claude-bench', max_tokens: 100, tools: TOOLS, messages }));
    messages.push({ role: 'assistant', content: [{ type: 'text', text: 'ok' }] });
  }
  return bodies;
}

/** Per request: sent straight to the upstream and through the proxy (alternating which goes first), in ms. */
async function overhead(bodies: readonly string[], warmup: number): Promise<{ direct: Took[]; proxied: Took[] }> {
  const upstream = await upstreamServer();
  const proxy = await startProxy({ upstream: upstream.url });
  const direct: Took[] = [];
  const proxied: Took[] = [];
  for (const [i, body] of bodies.entries()) {
    const send = (url: string) => (collect(), post(url, body));
    if (i % 2 === 0) direct.push(await send(upstream.url));
    proxied.push(await send(proxy.url));
    if (i % 2 === 1) direct.push(await send(upstream.url));
  }
  await proxy.close();
  upstream.close();
  return { direct: direct.slice(warmup), proxied: proxied.slice(warmup) };
}

/** The guard's own cost per request: the same requests judged and recorded in process, as the proxy does. */
function guardCost(bodies: readonly string[], warmup: number): Took[] {
  const guard = new LiveGuard();
  const times: Took[] = [];
  for (const body of bodies) {
    collect();
    const [start, cpu] = [process.hrtime.bigint(), process.cpuUsage()];
    const outcome = guard.judge('anthropic', body);
    if (outcome.kind === 'judged') guard.record(outcome.pending, 200, ANSWER, false);
    times.push(since(start, cpu));
  }
  return times.slice(warmup);
}

/** Append → `check --follow` prints the step, and append → a plain fs.watch fires; medians over a few appends. */
async function followLatency(): Promise<{ follow: number; watch: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pl-bench-follow-'));
  const file = path.join(dir, 'log.jsonl');
  const bodies = conversation(200, 12);
  fs.writeFileSync(file, `${bodies[0]}\n`);
  const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'cli.js'), 'check', '--follow', '--format', 'anthropic', file], { env: { ...process.env, NO_COLOR: '1' } });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  await new Promise((r) => setTimeout(r, 1500));
  const follow: number[] = [];
  const watch: number[] = [];
  for (let i = 1; i < bodies.length; i++) {
    const seen = new Promise<number>((resolve) => {
      const start = process.hrtime.bigint();
      const watcher = fs.watch(file, () => {
        watcher.close();
        resolve(Number(process.hrtime.bigint() - start) / 1e6);
      });
      fs.appendFileSync(file, `${bodies[i]}\n`);
    });
    const start = process.hrtime.bigint();
    const marker = `step ${i} `;
    watch.push(await seen);
    while (!out.includes(marker)) await new Promise((r) => setTimeout(r, 1));
    follow.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  child.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
  return { follow: median(follow), watch: median(watch) };
}

const WARMUP = 4;

async function main(): Promise<void> {
  const small = await overhead(conversation(4, 100 + WARMUP), WARMUP);
  const big = conversation(10_000, 60 + WARMUP);
  const large = await overhead(big, WARMUP);
  const guard = guardCost(big, WARMUP);
  const follow = await followLatency();
  const wall = (xs: readonly Took[]) => xs.map((x) => x.wall);
  const cpu = (xs: readonly Took[]) => xs.map((x) => x.cpu);
  const paired = (run: { direct: Took[]; proxied: Took[] }, of: (t: Took) => number) => run.proxied.map((p, i) => of(p) - of(run.direct[i] as Took));
  const extraCpu = paired(large, (t) => t.cpu);
  const entries: BenchResult[] = [
    result('live.proxy-small.request-time', median(wall(small.proxied)), 'ms', median(wall(small.direct))),
    result('live.proxy-small.overhead-cpu', median(paired(small, (t) => t.cpu)), 'ms', 1),
    result('live.proxy-10k.request-time', median(wall(large.proxied)), 'ms', median(wall(large.direct))),
    result('live.proxy-10k.guard-cost-cpu', median(cpu(guard)), 'ms', median(cpu(large.direct))),
    result('live.proxy-10k.overhead-cpu-vs-target', median(extraCpu), 'ms', 1 + median(cpu(guard))),
    result('live.proxy-10k.overhead-wall-vs-target', median(paired(large, (t) => t.wall)), 'ms', 1 + median(wall(guard))),
    result('live.follow.append-to-output', follow.follow, 'ms', follow.watch),
  ];
  process.stdout.write(JSON.stringify(entries));
}

void main();
