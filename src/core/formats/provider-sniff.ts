/**
 * One content sniff for the three provider request-body formats, so their
 * adapters never both claim a file. Works on the first bytes only (a 64 KiB
 * head may end inside a huge first line), by scanning the keys of the first
 * JSON objects without parsing them whole.
 *
 * - Only a body whose shape is a request's counts (`hasRequestShape`):
 *   ordinary JSON with a `messages` or `input` key is never claimed.
 * - Responses: the body has `input`, `instructions`, `previous_response_id` or
 *   `conversation`, and no `messages`.
 * - Anthropic vs Chat (both have `messages`): each side scores its markers.
 *   Anthropic: a top-level `system`, `stop_sequences`, `anthropic_version`,
 *   `thinking`, `context_management`, `top_k`, blocks typed `tool_use` /
 *   `tool_result` / `thinking` / `image` / `document`, `input_schema`,
 *   `tool_use_id`, a response with `stop_reason`; weakly `max_tokens`.
 *   Chat: `tool_calls`, `tool_call_id`, roles `tool` / `system` / `developer`,
 *   `"type":"function"`, `image_url`, Chat-only parameters (`n`,
 *   `max_completion_tokens`, `response_format`, …), a response with `choices`.
 *   The higher score wins; a tie goes to Chat (a bare `model` + `messages` body is
 *   the wider OpenAI-compatible convention). So `model`+`messages`+`max_tokens`
 *   alone is Anthropic (which requires `max_tokens`), `model`+`messages` is Chat.
 * - Not ours: the native trace, Claude Code / Codex session lines, Gemini
 *   (`contents`), Bedrock Converse (`toolConfig`, `inferenceConfig`), Langfuse,
 *   Inspect: none has these keys at the top of a request.
 *
 * Request-log records (`{"request":…,"response":…}`, cassettes with
 * `interaction` / `method` / `uri`) are classified by their request; a record
 * whose request is not one of the three (a Gemini call, `{}`, a DELETE), or a
 * request the proxy refused, is passed over and the next record decides.
 */
export type ProviderFormat = 'anthropic' | 'openai-chat' | 'openai-responses';

/** How many top-level values of the head to look at before giving up. */
const MAX_RECORDS = 16;

export function classifyProviderHead(head: string): ProviderFormat | undefined {
  if (/^\s*\{\s*"type"\s*:\s*"prefix-lens\/trace"/.test(head)) return undefined;
  let count = 0;
  for (const object of headObjects(head)) {
    const verdict = classifyObject(object);
    if (verdict !== 'next') return verdict;
    if (++count >= MAX_RECORDS) break;
  }
  return undefined;
}

/** The keys of one top-level object of the head (and of its nested objects one level down). */
interface HeadObject {
  readonly keys: Set<string>;
  /** Keys of objects directly under a top-level key, by that key. */
  readonly nested: Map<string, Set<string>>;
  /** Key paths a few levels down, arrays marked `[]`: `messages[]` (messages is an array), `messages[].role`. */
  readonly paths: Set<string>;
  readonly text: string;
}

const RECORD_KEYS = ['response', 'uri', 'url', 'method', 'interaction', 'status'];

function classifyObject(object: HeadObject): ProviderFormat | undefined | 'next' {
  // A request the proxy refused (`{"refused": {…}}`, live/proxy-log.ts): the reader skips it, the next record decides.
  if (object.keys.size === 1 && object.keys.has('refused')) return 'next';
  const isRecord = object.keys.has('request') && RECORD_KEYS.some((k) => object.keys.has(k));
  let body = isRecord ? object.nested.get('request') : object.keys;
  if (isRecord && body?.has('body')) body = new Set([...body, ...(object.nested.get('body') ?? [])]);
  const prefix = !isRecord ? '' : object.nested.get('request')?.has('body') ? 'request.body.' : 'request.';
  const verdict = body && hasRequestShape(body, object.paths, prefix) ? classifyBody(body, object) : undefined;
  return verdict === undefined && isRecord ? 'next' : verdict;
}

/**
 * Ordinary JSON is never a transcript: a body is one only when its shape is a
 * request's. `messages` must be an array whose objects carry a `role` (an
 * empty one only beside `model`); a Responses body needs `model` or server
 * state beside its `input` / `instructions`. `{"messages":{"greeting":"Hello"}}`
 * (an i18n file) is neither. (A head cut inside the first message still shows its keys.)
 */
function hasRequestShape(body: Set<string>, paths: Set<string>, prefix: string): boolean {
  if (body.has('messages')) {
    if (!paths.has(`${prefix}messages[]`)) return false;
    return paths.has(`${prefix}messages[].role`) || (body.has('model') && ![...paths].some((p) => p.startsWith(`${prefix}messages[].`)));
  }
  return body.has('model') || body.has('previous_response_id') || body.has('conversation');
}

const RESPONSES_KEYS = ['input', 'instructions', 'previous_response_id', 'conversation'];
/** Keys no request body of the three has at its top: other formats' records, responses, exports. */
const NOT_OURS_KEYS = [
  'contents',
  'toolConfig',
  'inferenceConfig',
  'modelId',
  'type',
  'output',
  'choices',
  'traceId',
  'trace',
  'observations',
  'resourceSpans',
  'parentUuid',
  'sessionId',
  'payload',
  'eval',
  'samples',
];
const ANTHROPIC_KEYS = ['system', 'stop_sequences', 'anthropic_version', 'anthropic_beta', 'thinking', 'context_management', 'top_k'];
const CHAT_KEYS = [
  'n',
  'max_completion_tokens',
  'response_format',
  'logprobs',
  'top_logprobs',
  'stream_options',
  'parallel_tool_calls',
  'frequency_penalty',
  'presence_penalty',
  'seed',
  'reasoning_effort',
  'functions',
  'function_call',
  'logit_bias',
  'modalities',
];
const ANTHROPIC_TEXT = [
  /"type"\s*:\s*"(?:tool_use|tool_result|thinking|redacted_thinking|image|document|server_tool_use)"/,
  /"input_schema"\s*:/,
  /"tool_use_id"\s*:/,
  /"stop_reason"\s*:/,
];
const CHAT_TEXT = [
  /"tool_calls"\s*:/,
  /"tool_call_id"\s*:/,
  /"role"\s*:\s*"(?:tool|system|developer)"/,
  /"type"\s*:\s*"function"/,
  /"image_url"\s*:/,
  /"choices"\s*:/,
];

function classifyBody(body: Set<string>, object: HeadObject): ProviderFormat | undefined {
  if (NOT_OURS_KEYS.some((k) => body.has(k))) return undefined;
  if (!body.has('messages')) return RESPONSES_KEYS.some((k) => body.has(k)) ? 'openai-responses' : undefined;
  const anthropic =
    2 * count(ANTHROPIC_KEYS, (k) => body.has(k)) +
    2 * count(ANTHROPIC_TEXT, (re) => re.test(object.text)) +
    (body.has('max_tokens') ? 1 : 0);
  const chat = 2 * count(CHAT_KEYS, (k) => body.has(k)) + 2 * count(CHAT_TEXT, (re) => re.test(object.text));
  return anthropic > chat ? 'anthropic' : 'openai-chat';
}

function count<T>(items: readonly T[], test: (item: T) => boolean): number {
  let n = 0;
  for (const item of items) if (test(item)) n++;
  return n;
}

/**
 * Scans the top-level values of `head` (JSONL lines, or the elements of a
 * top-level array) and yields each object's keys. Tolerates a head that ends
 * mid-value: the last object is yielded with the keys seen so far.
 */
function* headObjects(head: string): Generator<HeadObject> {
  let pos = 0;
  const n = head.length;
  while (pos < n) {
    const c = head.charCodeAt(pos);
    if (c === 123 /* { */) {
      const end = scanObject(head, pos);
      yield end.object;
      pos = end.pos;
    } else if (c === 34 /* " */) {
      pos = skipString(head, pos);
    } else {
      pos++; // whitespace, commas, a top-level `[`, stray text
    }
  }
}

function scanObject(head: string, start: number): { object: HeadObject; pos: number } {
  const keys = new Set<string>();
  const nested = new Map<string, Set<string>>();
  const paths = new Set<string>();
  /**
   * One entry per open container down to MAX_PATH_DEPTH (nothing deeper is
   * looked at): its path (`request.messages[]`), the top-level key it sits
   * under (depth 2 only), whether it is an object. `depth` counts every open
   * container, so deep nesting costs neither memory nor time.
   */
  const stack: OpenContainer[] = [];
  let depth = 0;
  let expectKey = false;
  let lastTopKey: string | undefined;
  let lastKey = '';
  let pos = start;
  while (pos < head.length) {
    const c = head.charCodeAt(pos);
    if (c === 34) {
      const end = skipString(head, pos);
      const top = stack[stack.length - 1];
      if (expectKey && depth === stack.length && top?.isObject) {
        const key = (lastKey = head.slice(pos + 1, Math.max(pos + 1, end - 1)));
        if (depth === 1) keys.add((lastTopKey = key));
        else if (depth === 2 && top.under !== undefined) nestedSet(nested, top.under).add(key);
        paths.add(childPath(top, key));
        expectKey = false;
      }
      pos = end;
      continue;
    }
    if (c === 123 || c === 91) {
      if (depth < MAX_PATH_DEPTH) {
        const path = childPath(stack[stack.length - 1], lastKey);
        stack.push({ isObject: c === 123, under: depth === 1 ? lastTopKey : undefined, path });
        if (c === 91) paths.add(`${path}[]`);
      }
      depth++;
      expectKey = c === 123;
    } else if (c === 125 || c === 93) {
      depth--;
      if (depth < stack.length) stack.pop();
      if (depth === 0) return { object: { keys, nested, paths, text: head.slice(start, pos + 1) }, pos: pos + 1 };
    } else if (c === 44) {
      expectKey = depth === stack.length && (stack[stack.length - 1]?.isObject ?? false);
    }
    pos++;
  }
  return { object: { keys, nested, paths, text: head.slice(start) }, pos };
}

/** A container open in `scanObject`: its key path, the top-level key it sits under (depth 2 only), whether it is an object. */
interface OpenContainer {
  readonly isObject: boolean;
  readonly under?: string;
  readonly path: string;
}

/** The path of what sits in `parent` (none: the top object) under `key` (its last key when an object, else an element). */
function childPath(parent: OpenContainer | undefined, key: string): string {
  if (!parent) return '';
  if (!parent.isObject) return `${parent.path}[]`;
  return parent.path ? `${parent.path}.${key}` : key;
}

/** How deep key paths are kept: a record's `request.body.messages[].role` is five containers down. */
const MAX_PATH_DEPTH = 5;

function nestedSet(nested: Map<string, Set<string>>, key: string): Set<string> {
  let set = nested.get(key);
  if (!set) nested.set(key, (set = new Set()));
  return set;
}

/** Offset just past the string starting at `pos` (or the end of the head). */
function skipString(head: string, pos: number): number {
  let i = pos + 1;
  while (i < head.length) {
    const c = head.charCodeAt(i);
    if (c === 92) i += 2;
    else if (c === 34) return i + 1;
    else i++;
  }
  return head.length;
}
