/**
 * OpenTelemetry GenAI / OpenInference traces as Langfuse exports them:
 * `{trace:{…}, observations:[{type:"GENERATION"|"SPAN"|…, startTime, input,
 * output, metadata:{attributes}}]}`.
 *
 * Every GENERATION is one model call: its input is a request window (not
 * live), its output what the model answered. Generations are taken in
 * `startTime` order (exports do not store them in order); each one after the
 * first of a conversation is a step (source `request`) judged against the
 * previous input plus its output, all consumed. A generation whose leading
 * system message differs from the previous generation's starts a new
 * conversation (another agent in the same trace), not a step.
 * `gen_ai.conversation.id` is recorded as server-side state. See
 * `otel/messages.ts` for the message shapes; an input that is a Gemini
 * request (`{model, config, contents}`, as the google-genai instrumentations
 * log it) is read with the Gemini reader, ids and positions as Gemini pairs them.
 *
 * Unknown is not empty: a generation whose input is no request (null, as
 * status events such as `chat.success` record it, or a plain string) is
 * skipped, and one that records no tool list keeps the registry of the
 * generation before it; both are said, one info finding (`record-skipped`) per
 * cause with the count and the first line (`Unseen`), as are observations of a
 * type Langfuse does not define.
 */
import { parseJson, type JsonNode, type JsonObject } from '../json/parse';
import type { ContextWindow, Message, ServerState } from '../model';
import type { SourceRange } from '../text';
import type { FormatAdapter, TranscriptEvent, TranscriptInput } from '../transcript';
import { readGeminiRequest, readGeminiResponse } from './gemini';
import { readResponsesOutput } from './openai-responses';
import { isLangChainMessage, isMessageList, readMessageList, readOpenInference, readTools } from './otel/messages';
import { asArray, asCount, asString, prop, rangeOf } from '../json/nodes';
import { threadKey } from '../usage';
import { countedUsage } from '../usage-records';
import { findingEvent, headMatches, invalidJson, lineAt, Unseen } from './common';

export const otelAdapter: FormatAdapter = {
  id: 'otel',
  label: 'Langfuse / OpenTelemetry GenAI trace export',
  sniff: (head) =>
    headMatches(head, /^\s*\{\s*"trace"\s*:\s*\{/, /^\s*\{\s*"observations"\s*:\s*\[/) ||
    (/"observations"\s*:\s*\[\s*\{/.test(head) && /"(traceId|parentObservationId)"\s*:/.test(head)),
  read: readOtel,
};

interface Generation {
  readonly window: ContextWindow;
  readonly output: Message[];
  readonly system?: string;
  readonly startTime: string;
  readonly order: number;
  readonly observation: JsonNode;
  /** False when the observation records no tool list: the registry is unknown, not empty. */
  readonly toolsKnown: boolean;
  /** Why the observation is not a request, when it is not one. */
  readonly notRequest?: string;
}

function* readOtel(input: TranscriptInput): Generator<TranscriptEvent> {
  const text = input.text();
  const parsed = parseJson(text);
  if (!parsed.ok) {
    yield findingEvent(invalidJson(parsed.error.message, parsed.error.offset, text.length, 'Trace export is not valid JSON: '));
    yield { kind: 'window', window: emptyWindow() };
    return;
  }
  const observations = asArray(prop(parsed.node, 'observations'))?.items ?? (parsed.node.type === 'array' ? parsed.node.items : []);
  const unseen = new Unseen();
  const lineOf = (range: SourceRange) => () => lineAt(text, range.start);
  const generations = observations
    .filter((o) => isGeneration(o, unseen, lineOf))
    .map(readGeneration)
    .sort((a, b) => (a.startTime < b.startTime ? -1 : a.startTime > b.startTime ? 1 : a.order - b.order));
  if (generations.length === 0) yield { kind: 'window', window: emptyWindow() };
  const threads = new Conversations();
  let previous: Generation | undefined;
  for (const read of generations) {
    const at = read.window.source ?? NOWHERE;
    if (read.notRequest) {
      unseen.note(`whose input is ${read.notRequest}`, at, lineOf(at), 'generation', 'not a request; nothing is known of its context, so it is not compared');
      continue;
    }
    const generation = previous && !read.toolsKnown && previous.window.tools.length > 0 ? carryTools(read, previous) : read;
    if (generation !== read) unseen.note('with no tool list', at, lineOf(at), 'generation', CARRIED, 'Kept the tool registry for');
    const continues = previous !== undefined && sameConversation(previous, generation);
    const thread = threads.of(generation, continues);
    if (previous && continues) {
      const consumed = [...previous.window.messages, ...previous.output];
      const before: ContextWindow = { ...previous.window, messages: consumed, boundary: consumed.length };
      yield { kind: 'step', rewrite: { source: 'request', before, after: generation.window, applied: true, range: generation.window.source, thread } };
    }
    yield { kind: 'window', window: generation.window, thread: { id: thread, kind: thread === 1 ? 'main' : 'thread', label: `agent ${thread}` } };
    const usage = usageOf(generation, thread);
    if (usage) yield usage;
    previous = generation;
  }
  yield* unseen.events();
}

const CARRIED = 'a missing list is unknown, not empty, so the tools of the generation before are carried forward';

/** Langfuse observation types; only generations are model calls, the others (spans, tool runs, events) are not context. */
const OBSERVATION_TYPES: ReadonlySet<string> = new Set(['GENERATION', 'SPAN', 'EVENT', 'AGENT', 'TOOL', 'CHAIN', 'RETRIEVER', 'EVALUATOR', 'EMBEDDING', 'GUARDRAIL']);

/** True for a generation; an observation of a type Langfuse does not define (or none) is noted as skipped. */
function isGeneration(observation: JsonNode, unseen: Unseen, lineOf: (range: SourceRange) => () => number): boolean {
  const type = asString(prop(observation, 'type'))?.value;
  if (type === 'GENERATION') return true;
  if (type === undefined || !OBSERVATION_TYPES.has(type)) {
    const at = rangeOf(observation) ?? NOWHERE;
    unseen.note(type === undefined ? 'without a type' : `of type ${JSON.stringify(type)}`, at, lineOf(at), 'observation');
  }
  return false;
}

const NOWHERE = { start: 0, end: 0 };

function carryTools(generation: Generation, previous: Generation): Generation {
  const { tools, toolsSource } = previous.window;
  return { ...generation, window: { ...generation.window, tools, ...(toolsSource && { toolsSource }) } };
}

function readGeneration(observation: JsonNode, order: number): Generation {
  const attributes = prop(prop(observation, 'metadata'), 'attributes');
  const rawInput = embedded(prop(observation, 'input'));
  const outputNode = embedded(prop(observation, 'output')) ?? embedded(prop(attributes, 'gen_ai.output.messages')) ?? embedded(prop(attributes, 'output.value'));
  const common = { startTime: asString(prop(observation, 'startTime'))?.value ?? '', order, observation };
  const gemini = geminiRequest(rawInput);
  if (gemini) return geminiGeneration(observation, gemini, outputNode, attributes, common);
  const inputNode = firstMessageList(rawInput, prop(attributes, 'gen_ai.input.messages'), prop(attributes, 'input.value'));
  const listed = isMessageList(inputNode) ? readMessageList(inputNode) : isMessageList(prop(inputNode, 'messages')) ? readMessageList(asArray(prop(inputNode, 'messages'))!) : undefined;
  const input = listed ?? readOpenInference(attributes, 'input');
  const instructions = asString(prop(outputNode, 'instructions'));
  const messages: Message[] =
    instructions && !input.some((m) => m.role === 'system')
      ? [{ role: 'system', blocks: [{ kind: 'text', text: instructions.value, source: rangeOf(instructions) }], source: rangeOf(instructions) }, ...input]
      : input;
  const tools = readTools(attributes, outputNode);
  const window: ContextWindow = {
    format: 'otel',
    tools,
    messages,
    boundary: messages.length,
    live: false,
    serverState: serverState(attributes),
    source: rangeOf(observation),
    messagesSource: rangeOf(asArray(inputNode)),
  };
  const notRequest = input.length === 0 ? notARequest(rawInput) : undefined;
  return { ...common, window, output: readOutput(outputNode, attributes), system: systemText(messages), toolsKnown: tools.length > 0, ...(notRequest && { notRequest }) };
}

/** What an input with no messages is, for the info finding. */
function notARequest(input: JsonNode | undefined): string {
  if (input === undefined) return 'missing';
  if (input.type === 'string') return 'a plain string';
  return input.type === 'null' ? 'null' : `a${input.type === 'object' || input.type === 'array' ? 'n' : ''} ${input.type} with no messages`;
}

/** A Gemini request as the google-genai instrumentations log it: `{model, config: {system_instruction, tools}, contents}`, config keys lifted. */
function geminiRequest(input: JsonNode | undefined): JsonObject | undefined {
  if (input?.type !== 'object' || !asArray(prop(input, 'contents'))) return undefined;
  const config = prop(input, 'config');
  return config?.type === 'object' ? { ...input, properties: [...input.properties, ...config.properties] } : input;
}

function geminiGeneration(observation: JsonNode, body: JsonObject, output: JsonNode | undefined, attributes: JsonNode | undefined, common: { startTime: string; order: number; observation: JsonNode }): Generation {
  const { window } = readGeminiRequest(body);
  const turns = asArray(prop(body, 'contents'))?.items.length ?? 0;
  const answer = asArray(prop(output, 'candidates')) ? readGeminiResponse(output, turns) : readOutput(output, attributes);
  return { ...common, window: { ...window, source: rangeOf(observation) }, output: answer, system: systemText(window.messages), toolsKnown: window.tools.length > 0 };
}

/** The first candidate that is (or holds, as a JSON string) a message list, or `{messages: […]}`. */
function firstMessageList(...candidates: (JsonNode | undefined)[]): JsonNode | undefined {
  for (const candidate of candidates) {
    const node = embedded(candidate);
    if (isMessageList(node) || isMessageList(prop(node, 'messages'))) return node;
  }
  return undefined;
}

/**
 * A value as JSON: itself, or the JSON a string holds (OTel attributes are
 * strings). Nodes parsed out of a string all point at the whole string literal,
 * since the escapes make inner offsets differ from the file's.
 */
function embedded(node: JsonNode | undefined): JsonNode | undefined {
  if (node?.type !== 'string') return node;
  const text = node.value.trimStart();
  if (!text.startsWith('[') && !text.startsWith('{')) return node;
  const parsed = parseJson(node.value);
  return parsed.ok ? relocate(parsed.node, node.start, node.end) : node;
}

function relocate(node: JsonNode, start: number, end: number): JsonNode {
  switch (node.type) {
    case 'object':
      return { ...node, start, end, properties: node.properties.map((p) => ({ ...p, keyStart: start, keyEnd: end, value: relocate(p.value, start, end) })) };
    case 'array':
      return { ...node, start, end, items: node.items.map((item) => relocate(item, start, end)) };
    default:
      return { ...node, start, end };
  }
}

function readOutput(output: JsonNode | undefined, attributes: JsonNode | undefined): Message[] {
  if (isMessageList(output)) return readMessageList(output);
  if (asArray(prop(output, 'output'))) return readResponsesOutput(output);
  const choice = asArray(prop(output, 'choices'))?.items[0];
  const message = prop(choice, 'message');
  if (message?.type === 'object') return readMessageList({ type: 'array', start: -1, end: -1, items: [message] });
  if (output?.type === 'object' && (prop(output, 'role') !== undefined || isLangChainMessage(output))) return readMessageList({ type: 'array', start: -1, end: -1, items: [output] });
  return readOpenInference(attributes, 'output');
}

function serverState(attributes: JsonNode | undefined): ServerState | undefined {
  const id = asString(prop(attributes, 'gen_ai.conversation.id'));
  return id ? { kind: 'conversation', id: id.value, source: rangeOf(id) } : undefined;
}

/** Different leading system messages mean different agents; a missing one continues (a server-side thread). */
function sameConversation(previous: Generation, next: Generation): boolean {
  return previous.system === undefined || next.system === undefined || previous.system === next.system;
}

/** The text of the leading system message, which tells one agent's conversation from another's. */
function systemText(messages: readonly Message[]): string | undefined {
  const first = messages[0];
  if (first?.role !== 'system') return undefined;
  return first.blocks.map((b) => (b.kind === 'text' ? b.text : '')).join('\n');
}

/** The conversations of a trace, 1-based in order of first appearance: one per agent (leading system message). */
class Conversations {
  private readonly bySystem = new Map<string | undefined, number>();
  private current = 0;

  of(generation: Generation, continues: boolean): number {
    if (continues && this.current > 0) return this.current;
    let id = this.bySystem.get(generation.system);
    if (id === undefined) this.bySystem.set(generation.system, (id = this.bySystem.size + 1));
    return (this.current = id);
  }
}

/**
 * A generation's usage: Langfuse `usageDetails` (`input`, `output`, `total`,
 * cache reads as `input_cached_tokens` / `cache_read_input_tokens` /
 * `prompt_details.cache_read` / `input_cache_read`, writes as
 * `cache_creation_input_tokens` / `input_cache_creation`; cached tokens counted
 * apart from `input`), else the span's `gen_ai.usage.*` attributes (the GenAI
 * convention counts them inside `input_tokens`); `total` settles it either way.
 */
function usageOf(generation: Generation, thread: number): TranscriptEvent | undefined {
  const observation = generation.observation;
  const details = prop(observation, 'usageDetails') ?? prop(observation, 'usage');
  const attributes = prop(prop(observation, 'metadata'), 'attributes');
  const fromDetails = asCount(prop(details, 'input')) !== undefined;
  const from = fromDetails ? details : attributes;
  const count = (...keys: string[]) => keys.map((k) => asCount(prop(from, k))).find((n) => n !== undefined);
  const input = fromDetails ? count('input') : count('gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens');
  const range = rangeOf(observation);
  if (input === undefined || !range) return undefined;
  const counts = fromDetails
    ? { input, read: count('input_cached_tokens', 'cache_read_input_tokens', 'prompt_details.cache_read', 'input_cache_read'), write: count('cache_creation_input_tokens', 'input_cache_creation'), output: count('output'), total: count('total') }
    : {
        input,
        read: count('gen_ai.usage.cache_read.input_tokens', 'gen_ai.usage.cache_read_input_tokens'),
        write: count('gen_ai.usage.cache_creation.input_tokens', 'gen_ai.usage.cache_creation_input_tokens'),
        output: count('gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens'),
        total: count('gen_ai.usage.total_tokens', 'llm.usage.total_tokens'),
      };
  const model = asString(prop(observation, 'model'))?.value ?? asString(prop(attributes, 'gen_ai.response.model'))?.value ?? asString(prop(attributes, 'gen_ai.request.model'))?.value;
  const at = { offset: range.start, end: range.end, time: generation.startTime || undefined, thread: threadKey(thread), model };
  return { kind: 'usage', usage: countedUsage(counts, at, fromDetails) };
}

function emptyWindow(): ContextWindow {
  return { format: 'otel', tools: [], messages: [], boundary: 0, live: false };
}
