/**
 * Generates the request-log benchmark inputs: one provider request per line,
 * logged as `{"request":…,"response":…}` the way proxies record them, in the
 * Anthropic Messages, OpenAI Chat Completions or OpenAI Responses shape. Each
 * request repeats the whole history of the previous one plus its response and
 * the next user turn (tool results), so the file grows quadratically: ~850
 * lines, ~100 MB. Every response reports its token usage, as real ones do.
 * Deterministic (seeded), so every run checks the same bytes.
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

/** The request-log formats the bench generates. */
export type LogFormat = 'anthropic' | 'openai-chat' | 'openai-responses';

export interface GenerateOptions {
  readonly format?: LogFormat;
  readonly requests: number;
  /** Rough size of the history each request adds, in bytes. */
  readonly bytesPerTurn: number;
  readonly seed: number;
  /**
   * Turns the first request already holds as history (none when unset): a log
   * of `requests` long windows without the lines that led to them (the memory
   * probe's warm-up, bench/memory-probe.ts: V8 shown the windows of the file
   * measured, in a file far smaller than it).
   */
  readonly history?: number;
}

export const DEFAULT_LOG: GenerateOptions = { requests: 850, bytesPerTurn: 40, seed: 42 };

type Json = Record<string, unknown>;

/** The tools, as each format declares them. */
const TOOL_DEFS = [
  { name: 'query_db', description: 'Runs a read-only SQL query.', parameters: { type: 'object', properties: { sql: { type: 'string' } }, required: ['sql'] } },
  { name: 'read_file', description: 'Reads a file of the workspace.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  { name: 'search', description: 'Searches the web.', parameters: { type: 'object', properties: { q: { type: 'string' }, limit: { type: 'integer' } }, required: ['q'] } },
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

/** One model turn, format-neutral: text plus one tool call, or two parallel calls one time in five; then the results. */
interface Turn {
  readonly text: string;
  readonly calls: readonly { readonly id: string; readonly name: string; readonly input: Json }[];
  readonly results: readonly string[];
}

function nextTurn(turn: number, rand: () => number, bytes: number): Turn {
  const parallel = rand() < 0.2 ? 2 : 1;
  const text = sentence(rand, bytes / 4);
  const calls = Array.from({ length: parallel }, (_, k) => {
    const tool = TOOL_DEFS[Math.floor(rand() * TOOL_DEFS.length)] ?? TOOL_DEFS[0]!;
    return { id: `toolu_${String(turn).padStart(5, '0')}_${k}`, name: tool.name, input: { sql: sentence(rand, bytes / 8), limit: 10 } };
  });
  const results = calls.map(() => sentence(rand, bytes / (2 * parallel)));
  return { text, calls, results };
}

/** How one format writes requests, responses and the history they grow. */
interface Shape {
  /** The request for `history` (the items of its messages / input array). */
  request(history: readonly Json[]): Json;
  /** The logged response to that request, for `turn`. */
  response(turn: number, t: Turn, prompt: number): Json;
  /** The items the turn adds to the history: the model's output as the client replays it, then the results. */
  added(turn: number, t: Turn): Json[];
  readonly first: Json[];
}

const FIRST_ASK = 'Audit the cache hit rate of the last week and explain it.';
const SYSTEM = 'You are a careful data analyst.';

const anthropic: Shape = {
  first: [{ role: 'user', content: FIRST_ASK }],
  request: (messages) => ({ model: 'claude-sonnet-4-5', max_tokens: 1024, system: SYSTEM, tools: TOOL_DEFS.map(({ parameters, ...t }) => ({ ...t, input_schema: parameters })), messages }),
  response: (turn, t, prompt) => ({
    id: `msg_${turn}`,
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: anthropicContent(t),
    stop_reason: 'tool_use',
    usage: { input_tokens: 12, cache_creation_input_tokens: 180, cache_read_input_tokens: prompt, output_tokens: 90 },
  }),
  added: (_, t) => [
    { role: 'assistant', content: anthropicContent(t) },
    { role: 'user', content: t.calls.map((c, k) => ({ type: 'tool_result', tool_use_id: c.id, content: t.results[k] })) },
  ],
};

function anthropicContent(t: Turn): Json[] {
  return [{ type: 'text', text: t.text }, ...t.calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.input }))];
}

const chat: Shape = {
  first: [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: FIRST_ASK },
  ],
  request: (messages) => ({ model: 'gpt-4.1', tools: TOOL_DEFS.map((f) => ({ type: 'function', function: f })), messages }),
  response: (turn, t, prompt) => ({
    id: `chatcmpl-${turn}`,
    object: 'chat.completion',
    model: 'gpt-4.1-2025-04-14',
    choices: [{ index: 0, message: chatMessage(t), finish_reason: 'tool_calls' }],
    usage: { prompt_tokens: prompt, completion_tokens: 90, total_tokens: prompt + 90, prompt_tokens_details: { cached_tokens: prompt - 200 } },
  }),
  added: (_, t) => [chatMessage(t), ...t.calls.map((c, k) => ({ role: 'tool', tool_call_id: c.id, content: t.results[k] }))],
};

function chatMessage(t: Turn): Json {
  return {
    role: 'assistant',
    content: t.text,
    tool_calls: t.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.input) } })),
  };
}

const responses: Shape = {
  first: [{ role: 'user', content: FIRST_ASK }],
  request: (input) => ({ model: 'gpt-4.1', instructions: SYSTEM, tools: TOOL_DEFS.map((f) => ({ type: 'function', ...f })), input }),
  response: (turn, t, prompt) => ({
    id: `resp_${turn}`,
    object: 'response',
    model: 'gpt-4.1-2025-04-14',
    status: 'completed',
    output: responsesOutput(turn, t),
    usage: { input_tokens: prompt, input_tokens_details: { cached_tokens: prompt - 200 }, output_tokens: 90, total_tokens: prompt + 90 },
  }),
  // The client replays the output items as they came (ids and status included), then the call outputs.
  added: (turn, t) => [...responsesOutput(turn, t), ...t.calls.map((c, k) => ({ type: 'function_call_output', call_id: c.id, output: t.results[k] }))],
};

function responsesOutput(turn: number, t: Turn): Json[] {
  return [
    { type: 'message', id: `msg_${turn}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: t.text, annotations: [] }] },
    ...t.calls.map((c, k) => ({ type: 'function_call', id: `fc_${turn}_${k}`, call_id: c.id, name: c.name, arguments: JSON.stringify(c.input), status: 'completed' })),
  ];
}

const SHAPES: Record<LogFormat, Shape> = { anthropic, 'openai-chat': chat, 'openai-responses': responses };

/** Writes the log to `file` and returns its size facts. */
export function generateLog(file: string, options: GenerateOptions = DEFAULT_LOG): GeneratedLog {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const shape = SHAPES[options.format ?? 'anthropic'];
  const rand = random(options.seed);
  const fd = fs.openSync(file, 'w');
  const history: Json[] = [...shape.first];
  let bytes = 0;
  let largest = 0;
  let pairs = 0;
  const skipped = options.history ?? 0;
  for (let turn = 1; turn <= skipped; turn++) history.push(...shape.added(turn, nextTurn(turn, rand, options.bytesPerTurn)));
  try {
    for (let turn = skipped + 1; turn <= skipped + options.requests; turn++) {
      const t = nextTurn(turn, rand, options.bytesPerTurn);
      const request = JSON.stringify(shape.request(history));
      // Prompt tokens grow with the history, roughly a token per 4 bytes.
      const line = `{"request":${request},"response":${JSON.stringify(shape.response(turn, t, Math.round(request.length / 4)))}}\n`;
      fs.writeSync(fd, line);
      bytes += Buffer.byteLength(line);
      largest = Math.max(largest, Buffer.byteLength(line) - 1);
      history.push(...shape.added(turn, t));
      pairs += t.calls.length;
    }
  } finally {
    fs.closeSync(fd);
  }
  return { file, lines: options.requests, bytes, largestLineBytes: largest, toolPairs: pairs };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(__filename)) {
  const format = (process.argv[3] ?? 'anthropic') as LogFormat;
  const out = process.argv[2] ?? path.join('bench', 'data', `${format}-log.jsonl`);
  const facts = generateLog(out, { ...DEFAULT_LOG, format });
  process.stdout.write(`${JSON.stringify(facts)}\n`);
}
