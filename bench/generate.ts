/**
 * Generates the request-log benchmark input: one Anthropic Messages request per
 * line, logged as `{"request":…,"response":…}` the way proxies record them. Each
 * request repeats the whole history of the previous one plus its response and
 * the next user turn (tool results), so the file grows quadratically: ~1,000
 * lines, ~100 MB. Deterministic (seeded), so every run checks the same bytes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface GeneratedLog {
  readonly file: string;
  readonly lines: number;
  readonly bytes: number;
  readonly largestLineBytes: number;
  readonly toolPairs: number;
}

export interface GenerateOptions {
  readonly requests: number;
  /** Rough size of the history each request adds, in bytes. */
  readonly bytesPerTurn: number;
  readonly seed: number;
}

export const DEFAULT_LOG: GenerateOptions = { requests: 850, bytesPerTurn: 40, seed: 42 };

type Json = Record<string, unknown>;

const TOOLS: Json[] = [
  {
    name: 'query_db',
    description: 'Runs a read-only SQL query.',
    input_schema: { type: 'object', properties: { sql: { type: 'string' } }, required: ['sql'] },
  },
  {
    name: 'read_file',
    description: 'Reads a file of the workspace.',
    input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  {
    name: 'search',
    description: 'Searches the web.',
    input_schema: { type: 'object', properties: { q: { type: 'string' }, limit: { type: 'integer' } }, required: ['q'] },
  },
];

const WORDS = 'the agent reads a file then queries the table and summarises rows of results for the user who asked about cache hits'.split(' ');

/** A small deterministic PRNG (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sentence(rand: () => number, bytes: number): string {
  const out: string[] = [];
  let size = 0;
  while (size < bytes) {
    const word = WORDS[Math.floor(rand() * WORDS.length)] ?? 'x';
    out.push(word);
    size += word.length + 1;
  }
  return out.join(' ');
}

/** One assistant response: text plus one tool call, or two parallel calls one time in five. */
function response(turn: number, rand: () => number, bytes: number): { message: Json; ids: string[] } {
  const parallel = rand() < 0.2 ? 2 : 1;
  const ids: string[] = [];
  const content: Json[] = [{ type: 'text', text: sentence(rand, bytes / 4) }];
  for (let k = 0; k < parallel; k++) {
    const tool = TOOLS[Math.floor(rand() * TOOLS.length)] ?? TOOLS[0]!;
    const id = `toolu_${String(turn).padStart(5, '0')}_${k}`;
    ids.push(id);
    content.push({ type: 'tool_use', id, name: tool.name, input: { sql: sentence(rand, bytes / 8), limit: 10 } });
  }
  return { message: { role: 'assistant', content }, ids };
}

function toolResults(ids: readonly string[], rand: () => number, bytes: number): Json {
  return {
    role: 'user',
    content: ids.map((id) => ({ type: 'tool_result', tool_use_id: id, content: sentence(rand, bytes / (2 * ids.length)) })),
  };
}

/** Writes the log to `file` and returns its size facts. */
export function generateLog(file: string, options: GenerateOptions = DEFAULT_LOG): GeneratedLog {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const rand = random(options.seed);
  const fd = fs.openSync(file, 'w');
  const messages: Json[] = [{ role: 'user', content: 'Audit the cache hit rate of the last week and explain it.' }];
  let bytes = 0;
  let largest = 0;
  let pairs = 0;
  try {
    for (let turn = 1; turn <= options.requests; turn++) {
      const request = { model: 'claude-sonnet-4-5', max_tokens: 1024, system: 'You are a careful data analyst.', tools: TOOLS, messages };
      const reply = response(turn, rand, options.bytesPerTurn);
      const logged = { id: `msg_${turn}`, type: 'message', role: 'assistant', content: reply.message.content, stop_reason: 'tool_use' };
      const line = `${JSON.stringify({ request, response: logged })}\n`;
      fs.writeSync(fd, line);
      bytes += Buffer.byteLength(line);
      largest = Math.max(largest, Buffer.byteLength(line) - 1);
      messages.push(reply.message, toolResults(reply.ids, rand, options.bytesPerTurn));
      pairs += reply.ids.length;
    }
  } finally {
    fs.closeSync(fd);
  }
  return { file, lines: options.requests, bytes, largestLineBytes: largest, toolPairs: pairs };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(__filename)) {
  const out = process.argv[2] ?? path.join('bench', 'data', 'anthropic-log.jsonl');
  const facts = generateLog(out);
  process.stdout.write(`${JSON.stringify(facts)}\n`);
}
