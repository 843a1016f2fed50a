/**
 * Inspect AI eval logs: the whole `EvalLog` as `.json`, or the zipped `.eval`
 * (`header.json`, `samples/<id>_epoch_<n>.json`, …).
 *
 * Each sample is one conversation. Each `model` event is one generation with
 * its exact input (`input`, or `input_refs` ranges into `sample.message_pool`),
 * its tools and its output: every model event after the first is a step
 * (source `request`) judged against the previous input plus its output, all
 * consumed. The sample's `messages` are its final, live window.
 *
 * Findings cannot point into the compressed bytes of a `.eval`: there every
 * range is {0,0} and messages name the zip entry.
 */
import { finding } from '../findings';
import { LimitError, resolveLimits, type Limits } from '../limits';
import { parseJson, type JsonArray, type JsonNode } from '../json/parse';
import type { Block, ContextWindow, Message, ToolSchema } from '../model';
import type { SourceRange } from '../text';
import type { FormatAdapter, ThreadInfo, TranscriptEvent, TranscriptInput } from '../transcript';
import { asArray, asCount, asString, prop } from '../json/nodes';
import { threadKey } from '../usage';
import { countedUsage } from '../usage-records';
import { consumedBoundary, findingEvent, invalidJson, lineAt, neutralRole, Unseen } from './common';
import { readZip } from './zip';

export const inspectAdapter: FormatAdapter = {
  id: 'inspect',
  label: 'Inspect AI eval log (.json / .eval)',
  sniff: (head) =>
    head.startsWith('PK\u0003\u0004') ||
    (/^\s*\{\s*"version"\s*:\s*\d+\s*,/.test(head) && /"eval"\s*:\s*\{/.test(head) && /"(task|task_id|run_id)"\s*:/.test(head)),
  read: readInspect,
};

/** Where nodes of one JSON document point: the file itself, or nowhere (inside a zip). */
interface Locator {
  range(node: JsonNode | undefined): SourceRange | undefined;
  /** Prefix for messages about this document (the zip entry name). */
  readonly where: string;
  /** Where a node is, for `Unseen.note`: its line (computed on demand), or the zip entry's name. */
  place(node: JsonNode): string | (() => number);
}

const ZERO: SourceRange = { start: 0, end: 0 };

function* readInspect(input: TranscriptInput): Generator<TranscriptEvent> {
  const bytes = input.bytes();
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) {
    yield* readEvalZip(bytes, resolveLimits(input.limits));
    return;
  }
  const text = new TextDecoder().decode(bytes);
  const parsed = parseJson(text);
  if (!parsed.ok) {
    yield findingEvent(invalidJson(parsed.error.message, parsed.error.offset, text.length, 'Inspect log is not valid JSON: '));
    yield { kind: 'window', window: emptyWindow() };
    return;
  }
  const locator: Locator = {
    range: (node) => (node && node.start >= 0 ? { start: node.start, end: node.end } : undefined),
    where: '',
    place: (node) => () => lineAt(text, node.start),
  };
  yield* readSamples(asArray(prop(parsed.node, 'samples'))?.items ?? [], locator);
}

function* readEvalZip(bytes: Uint8Array, limits: Limits): Generator<TranscriptEvent> {
  let entries: Map<string, Uint8Array>;
  try {
    entries = readZip(bytes, (name) => /^samples\/[^/]+\.json$/.test(name), limits);
  } catch (error) {
    if (error instanceof LimitError) throw error;
    yield findingEvent(finding('invalid-json', ZERO, `Inspect .eval is not a readable zip: ${(error as Error).message}`));
    yield { kind: 'window', window: emptyWindow() };
    return;
  }
  const names = [...entries.keys()].sort(naturalOrder);
  const samples: { node: JsonNode; locator: Locator }[] = [];
  for (const name of names) {
    const text = new TextDecoder().decode(entries.get(name));
    const parsed = parseJson(text);
    const locator: Locator = { range: () => ZERO, where: `${name}: `, place: () => name };
    if (parsed.ok) samples.push({ node: parsed.node, locator });
    else yield findingEvent(finding('invalid-json', ZERO, `${name}: not valid JSON at offset ${parsed.error.offset}: ${parsed.error.message}`));
  }
  if (samples.length === 0) yield { kind: 'window', window: emptyWindow() };
  const unseen = new Unseen();
  for (const [i, sample] of samples.entries()) yield* readSample(sample.node, sample.locator, i + 1, unseen);
  yield* unseen.events();
}

function* readSamples(samples: readonly JsonNode[], locator: Locator): Generator<TranscriptEvent> {
  if (samples.length === 0) yield { kind: 'window', window: emptyWindow() };
  const unseen = new Unseen();
  for (const [i, sample] of samples.entries()) yield* readSample(sample, locator, i + 1, unseen);
  yield* unseen.events();
}

interface Generation {
  readonly request: ContextWindow;
  readonly output: Message[];
  readonly range?: SourceRange;
}

/** Sample `n` (1-based) of the log: its own conversation. */
function* readSample(sample: JsonNode, locator: Locator, n: number, unseen: Unseen): Generator<TranscriptEvent> {
  const id = prop(sample, 'id');
  const name = id?.type === 'string' ? id.value.slice(0, 80) : id?.type === 'number' ? id.raw : String(n);
  const epoch = prop(sample, 'epoch');
  const thread: ThreadInfo = { id: n, kind: n === 1 ? 'main' : 'thread', label: `sample ${name}${epoch?.type === 'number' && epoch.raw !== '1' ? ` (epoch ${epoch.raw})` : ''}` };
  const pool = asArray(prop(sample, 'message_pool'));
  let previous: Generation | undefined;
  let tools: ToolSchema[] = [];
  for (const event of asArray(prop(sample, 'events'))?.items ?? []) {
    if (asString(prop(event, 'event'))?.value !== 'model') continue;
    const unknown = unknownInput(event, pool);
    if (unknown) {
      unseen.note(unknown, locator.range(event) ?? ZERO, locator.place(event), 'model event', NOT_COMPARED);
      continue;
    }
    const generation = readGeneration(event, pool, locator);
    tools = [...generation.request.tools];
    if (previous) {
      const consumed = [...previous.request.messages, ...previous.output];
      const before: ContextWindow = { ...previous.request, messages: consumed, boundary: consumed.length };
      yield { kind: 'step', rewrite: { source: 'request', before, after: generation.request, applied: true, range: generation.range, thread: n } };
    }
    yield { kind: 'window', window: generation.request, thread };
    const usage = usageOf(event, locator, n);
    if (usage) yield usage;
    previous = generation;
  }
  const messagesNode = asArray(prop(sample, 'messages'));
  const messages = readMessages(messagesNode, locator);
  yield {
    kind: 'window',
    window: { format: 'inspect', tools, messages, boundary: consumedBoundary(messages), live: true, source: locator.range(sample), messagesSource: locator.range(messagesNode) },
    thread,
  };
}

/**
 * A model event's `output.usage` (Inspect's ModelUsage): `input_tokens`,
 * `input_tokens_cache_read`, `input_tokens_cache_write`, `output_tokens`,
 * `total_tokens`. Cached tokens are counted apart from `input_tokens` when the
 * provider reports writes (Anthropic), inside it otherwise; `total_tokens` settles it.
 */
function usageOf(event: JsonNode, locator: Locator, sample: number): TranscriptEvent | undefined {
  const usage = prop(prop(event, 'output'), 'usage');
  const input = asCount(prop(usage, 'input_tokens'));
  if (input === undefined) return undefined;
  const write = asCount(prop(usage, 'input_tokens_cache_write'));
  const counts = { input, read: asCount(prop(usage, 'input_tokens_cache_read')), write, output: asCount(prop(usage, 'output_tokens')), total: asCount(prop(usage, 'total_tokens')) };
  const range = locator.range(event) ?? ZERO;
  const at = { offset: range.start, end: range.end, time: asString(prop(event, 'timestamp'))?.value, thread: threadKey(sample), model: asString(prop(event, 'model'))?.value };
  return { kind: 'usage', usage: countedUsage(counts, at, write !== undefined) };
}

function readGeneration(event: JsonNode, pool: JsonArray | undefined, locator: Locator): Generation {
  const inputNode = asArray(prop(event, 'input'));
  const messages = inputNode && inputNode.items.length > 0 ? readMessages(inputNode, locator) : pooledInput(prop(event, 'input_refs'), pool, locator);
  const toolsNode = asArray(prop(event, 'tools'));
  const tools = (toolsNode?.items ?? []).map((tool) => readTool(tool, locator));
  const choice = asArray(prop(prop(event, 'output'), 'choices'))?.items[0];
  const outputNode = prop(choice, 'message');
  const request: ContextWindow = {
    format: 'inspect',
    tools,
    messages,
    boundary: messages.length,
    live: false,
    source: locator.range(event),
    toolsSource: locator.range(toolsNode),
    messagesSource: locator.range(inputNode),
  };
  return { request, output: outputNode ? [readMessage(outputNode, undefined, locator)] : [], range: locator.range(event) };
}

const NOT_COMPARED = 'its input is unknown (not empty), so it is not compared';

/**
 * Why a model event's input is unknown, when it is: no `input` and no
 * `input_refs`, or refs that are not `[start, end)` ranges inside the
 * sample's message pool (a sample saved without its pool). Reading such an
 * input as empty would make a step that removed every consumed message.
 */
function unknownInput(event: JsonNode, pool: JsonArray | undefined): string | undefined {
  if ((asArray(prop(event, 'input'))?.items.length ?? 0) > 0) return undefined;
  const refs = asArray(prop(event, 'input_refs'))?.items ?? [];
  if (refs.length === 0) return 'with no input';
  const size = pool?.items.length ?? 0;
  const inPool = refs.every((ref) => {
    const [start, end] = (asArray(ref)?.items ?? []).map((node) => (node.type === 'number' ? Number(node.raw) : NaN));
    return start !== undefined && end !== undefined && Number.isInteger(start) && Number.isInteger(end) && start >= 0 && start <= end && end <= size;
  });
  return inPool ? undefined : 'whose input_refs fall outside the message pool';
}

/** `input_refs: [[start, end), …]` slices of the sample's message pool, in order. */
function pooledInput(refs: JsonNode | undefined, pool: JsonArray | undefined, locator: Locator): Message[] {
  const out: Message[] = [];
  for (const ref of asArray(refs)?.items ?? []) {
    const [start, end] = (asArray(ref)?.items ?? []).map((n) => (n.type === 'number' ? Number(n.raw) : NaN));
    if (start === undefined || end === undefined || !Number.isInteger(start) || !Number.isInteger(end)) continue;
    for (const node of pool?.items.slice(start, end) ?? []) out.push(readMessage(node, pool, locator));
  }
  return out;
}

function readMessages(list: JsonArray | undefined, locator: Locator): Message[] {
  return (list?.items ?? []).map((node) => readMessage(node, list, locator));
}

/** One Inspect ChatMessage: system / user / assistant (with `tool_calls`) / tool (with `tool_call_id`). */
function readMessage(node: JsonNode, container: JsonArray | undefined, locator: Locator): Message {
  const role = neutralRole(asString(prop(node, 'role'))?.value, 'user');
  const source = locator.range(node);
  if (role === 'tool') return { role, blocks: [toolResult(node, locator)], source, container: locator.range(container) };
  const blocks = contentBlocks(prop(node, 'content'), locator);
  const calls = asArray(prop(node, 'tool_calls'));
  for (const call of calls?.items ?? []) blocks.push(toolCall(call, calls, locator));
  return { role, blocks, source, container: locator.range(container) };
}

function contentBlocks(content: JsonNode | undefined, locator: Locator): Block[] {
  const text = asString(content);
  if (text) return text.value === '' ? [] : [{ kind: 'text', text: text.value, source: locator.range(text) }];
  return (asArray(content)?.items ?? []).map((part): Block => {
    const type = asString(prop(part, 'type'))?.value ?? part.type;
    const partText = asString(prop(part, 'text'));
    if (type === 'text' && partText) return { kind: 'text', text: partText.value, source: locator.range(part) };
    return { kind: 'opaque', type, value: part, source: locator.range(part) };
  });
}

function toolCall(node: JsonNode, container: JsonArray | undefined, locator: Locator): Block {
  const id = asString(prop(node, 'id'));
  return {
    kind: 'tool_call',
    id: id?.value ?? '',
    name: asString(prop(node, 'function'))?.value ?? '',
    input: prop(node, 'arguments'),
    source: locator.range(node),
    idSource: locator.range(id),
    container: locator.range(container),
  };
}

function toolResult(node: JsonNode, locator: Locator): Block {
  const id = asString(prop(node, 'tool_call_id'));
  const error = prop(node, 'error');
  return {
    kind: 'tool_result',
    callId: id?.value ?? '',
    name: asString(prop(node, 'function'))?.value,
    content: prop(node, 'content'),
    isError: error !== undefined && error.type !== 'null',
    source: locator.range(node),
    idSource: locator.range(id),
  };
}

function readTool(node: JsonNode, locator: Locator): ToolSchema {
  return { name: asString(prop(node, 'name'))?.value ?? '', declaration: node, source: locator.range(node) };
}

function emptyWindow(): ContextWindow {
  return { format: 'inspect', tools: [], messages: [], boundary: 0, live: true };
}

/** `samples/2_epoch_1.json` before `samples/10_epoch_1.json`. */
function naturalOrder(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}
