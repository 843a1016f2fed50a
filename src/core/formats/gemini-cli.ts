/**
 * Gemini CLI chat recordings (`~/.gemini/tmp/<project-hash>/chats/session-*.json`):
 * one JSON object `{sessionId, projectHash, startTime, lastUpdated, messages}`.
 *
 * The context is rebuilt the way Gemini CLI rebuilds it when a session is
 * resumed (`convertSessionToClientHistory`): a `user` message is a user turn
 * (its `content` a string or parts; a line starting with `/` or `?` is a CLI
 * command, never sent); a `gemini` message is a model turn: its `thoughts`
 * (opaque), its `content`, then one `functionCall` per entry of `toolCalls`,
 * followed by ONE user turn holding every `result` part (`functionResponse`)
 * of those calls, in order. `info` / `error` / `warning` messages are UI only.
 * Calls and results sit in the same record, so a call without `result` (a tool
 * still running, or lost) is what is unanswered; an `error` status keeps its
 * result, flagged as an error.
 *
 * Pairing is Gemini's: positional (`rules/positions/gemini.ts`: the responses
 * answer the calls in the turn right after, as many as there were calls); the
 * ids are the recording's own (`<tool>-<epoch ms>-<hex>`, repeated on
 * `functionResponse.id`). A response without an id answers the call it is
 * recorded under. The session is live: a call pending at the frontier is not
 * an orphan. No tool registry is recorded; the file is one window.
 */
import { parseJson, type JsonArray, type JsonNode, type JsonString } from '../json/parse';
import { POSITIONAL_ID, type Block, type ContextWindow, type Message, type ToolCall, type ToolResult } from '../model';
import type { SourceRange } from '../text';
import type { FormatAdapter, TranscriptEvent, TranscriptInput } from '../transcript';
import { asArray, asCount, asString, prop, rangeOf } from '../json/nodes';
import { countedUsage } from '../usage-records';
import { consumedBoundary, findingEvent, invalidJson, lineAt, textBlock, Unseen } from './common';

export const geminiCliAdapter: FormatAdapter = {
  id: 'gemini-cli',
  label: 'Gemini CLI chat session JSON',
  sniff: (head) =>
    /^\s*\{/.test(head) &&
    /"projectHash"\s*:\s*"/.test(head) &&
    /"sessionId"\s*:\s*"/.test(head) &&
    /"messages"\s*:\s*\[/.test(head) &&
    /"type"\s*:\s*"(user|gemini)"/.test(head),
  read: readGeminiCli,
};

/** Message types Gemini CLI shows but never sends to the model. */
const UI_ONLY = new Set(['info', 'error', 'warning']);

function* readGeminiCli(input: TranscriptInput): Generator<TranscriptEvent> {
  const text = input.text();
  const parsed = parseJson(text);
  if (!parsed.ok) {
    yield findingEvent(invalidJson(parsed.error.message, parsed.error.offset, text.length, 'The Gemini CLI session is not valid JSON: '));
    return;
  }
  const list = asArray(prop(parsed.node, 'messages'));
  const messages: Message[] = [];
  const unseen = new Unseen();
  for (const [index, record] of (list?.items ?? []).entries()) {
    const type = asString(prop(record, 'type'))?.value ?? '';
    if (type === 'user') messages.push(...userTurn(record, index));
    else if (type === 'gemini') {
      messages.push(...modelTurns(record, index));
      yield* usageOf(record);
    }
    else if (!UI_ONLY.has(type)) {
      const range = rangeOf(record) ?? { start: 0, end: 0 };
      unseen.note(`of Gemini CLI type "${type || '?'}"`, range, () => lineAt(text, range.start), 'message');
    }
  }
  const window: ContextWindow = {
    format: 'gemini-cli',
    tools: [],
    messages,
    boundary: consumedBoundary(messages),
    live: true,
    source: rangeOf(parsed.node),
    messagesSource: rangeOf(list),
  };
  yield* unseen.events();
  yield { kind: 'window', window };
}

/**
 * A `gemini` message's `tokens` (`input`, `cached`, `output`, `total`): the
 * request that produced it. Gemini counts cached tokens inside `input`.
 */
function* usageOf(record: JsonNode): Generator<TranscriptEvent> {
  const tokens = prop(record, 'tokens');
  const input = asCount(prop(tokens, 'input'));
  const range = rangeOf(record);
  if (input === undefined || !range) return;
  const counts = { input, read: asCount(prop(tokens, 'cached')), output: asCount(prop(tokens, 'output')), total: asCount(prop(tokens, 'total')) };
  const at = { offset: range.start, end: range.end, time: asString(prop(record, 'timestamp'))?.value, thread: 'main', model: asString(prop(record, 'model'))?.value };
  yield { kind: 'usage', usage: { ...countedUsage(counts, at, false), style: 'gemini' } };
}

function userTurn(record: JsonNode, index: number): Message[] {
  const content = prop(record, 'content');
  const blocks = contentBlocks(content);
  const said = blocks.map((b) => (b.kind === 'text' ? b.text : '')).join('').trim();
  if (blocks.length === 0 || said.startsWith('/') || said.startsWith('?')) return [];
  return [{ role: 'user', blocks, source: rangeOf(record), place: `messages[${index}]` }];
}

/** The model turn of a `gemini` message, and the user turn with its calls' results (when any has one). */
function modelTurns(record: JsonNode, index: number): Message[] {
  const thoughts = (asArray(prop(record, 'thoughts'))?.items ?? []).map((node): Block => ({ kind: 'opaque', type: 'thought', value: node, source: rangeOf(node) }));
  const calls = asArray(prop(record, 'toolCalls'));
  const blocks = [...thoughts, ...contentBlocks(prop(record, 'content')), ...(calls?.items ?? []).map((call, i) => callBlock(call, calls, position(index, i)))];
  const out: Message[] = blocks.length > 0 ? [{ role: 'assistant', blocks, source: rangeOf(record), place: `messages[${index}]` }] : [];
  const results = (calls?.items ?? []).flatMap((call, i) => resultBlocks(call, position(index, i)));
  if (results.length > 0) out.push({ role: 'user', blocks: results, source: rangeOf(calls), place: `messages[${index}].toolCalls[].result` });
  return out;
}

/** `content` as Gemini CLI stores it: a string, one part, or a list of parts (strings or `{text}` / other parts). */
function contentBlocks(content: JsonNode | undefined): Block[] {
  if (!content) return [];
  if (content.type === 'string') return content.value === '' ? [] : [textBlock(content)];
  const parts = content.type === 'array' ? content.items : [content];
  return parts.map((part): Block => {
    const text = part.type === 'string' ? part : asString(prop(part, 'text'));
    if (text && (part.type === 'string' || (part.type === 'object' && part.properties.length === 1))) return { kind: 'text', text: text.value, source: rangeOf(part) };
    return { kind: 'opaque', type: part.type === 'object' ? (part.properties[0]?.key ?? 'part') : part.type, value: part, source: rangeOf(part) };
  });
}

/** The id of a call recorded without one: its place (`messages[3].toolCalls[0]`, printed as a place), never an empty id. */
function position(message: number, call: number): string {
  return `${POSITIONAL_ID}messages[${message}].toolCalls[${call}]`;
}

function callBlock(call: JsonNode, calls: JsonArray | undefined, fallbackId: string): ToolCall {
  const id = asString(prop(call, 'id'));
  return {
    kind: 'tool_call',
    id: id?.value || fallbackId,
    name: asString(prop(call, 'name'))?.value ?? '',
    input: prop(call, 'args'),
    source: rangeOf(call),
    idSource: rangeOf(id ?? call),
    container: rangeOf(calls),
  };
}

/** The result parts of one call: `functionResponse` parts (or a bare string result), in order. */
function resultBlocks(call: JsonNode, fallbackId: string): Block[] {
  const result = prop(call, 'result');
  if (!result || result.type === 'null') return [];
  const recorded = asString(prop(call, 'id'));
  const callId = recorded?.value ? recorded : undefined;
  const isError = asString(prop(call, 'status'))?.value === 'error';
  const target = { call, isError, fallbackId };
  if (result.type === 'string') return [resultBlock(result, result, callId, target, undefined)];
  const parts = result.type === 'array' ? result : undefined;
  return (parts?.items ?? [result]).map((part): Block => {
    const response = prop(part, 'functionResponse') ?? prop(part, 'function_response');
    if (!response) return { kind: 'opaque', type: part.type === 'object' ? (part.properties[0]?.key ?? 'part') : part.type, value: part, source: rangeOf(part) };
    const own = asString(prop(response, 'id'));
    const named = asString(prop(response, 'name'))?.value;
    return resultBlock(part, prop(response, 'response'), own?.value ? own : callId, { ...target, ...(named !== undefined && { name: named }) }, parts);
  });
}

/** The call a result is recorded under: it answers that call unless it names another id. */
interface RecordedUnder {
  readonly call: JsonNode;
  readonly isError: boolean;
  readonly fallbackId: string;
  readonly name?: string;
}

function resultBlock(part: JsonNode, content: JsonNode | undefined, id: JsonString | undefined, under: RecordedUnder, container: JsonArray | undefined): ToolResult {
  const idSource: SourceRange | undefined = rangeOf(id ?? part);
  const result: ToolResult = {
    kind: 'tool_result',
    callId: id?.value ?? under.fallbackId,
    name: under.name ?? asString(prop(under.call, 'name'))?.value,
    content,
    source: rangeOf(part),
    idSource,
    container: rangeOf(container),
  };
  return under.isError ? { ...result, isError: true } : result;
}
