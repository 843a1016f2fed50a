/**
 * Streamed responses (server-sent events) rebuilt into the body the same
 * request would have returned without `stream`, so a request log holds the
 * model's answer either way:
 *
 * - Anthropic Messages: `message_start` gives the message, `content_block_start`
 *   / `content_block_delta` (`text_delta`, `input_json_delta`, `thinking_delta`,
 *   `signature_delta`, `citations_delta`) build each block, `message_delta` sets
 *   the stop reason and usage;
 * - OpenAI Chat Completions: `data:` chunks whose `choices[i].delta` append to
 *   each choice's message (content, tool call names and arguments), until `[DONE]`;
 * - OpenAI Responses: the `response` of `response.completed` (or `.incomplete`,
 *   `.failed`), else the items of `response.output_item.done`.
 */
import type { LiveProvider } from './endpoints';

export interface SseEvent {
  readonly event?: string;
  readonly data: string;
}

/** Splits an event stream into events (comments and ids ignored). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const chunk of text.split(/\r?\n\r?\n|\r\r/)) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of chunk.split(/\r?\n|\r/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
    }
    if (data.length) events.push({ ...(event !== undefined && { event }), data: data.join('\n') });
  }
  return events;
}

type Json = Record<string, unknown>;

/** The JSON body a streamed response stands for; undefined when the stream holds none. */
export function rebuildStreamedBody(provider: LiveProvider, text: string): Json | undefined {
  const events = parseSse(text).flatMap((e) => {
    const value = parseObject(e.data);
    return value ? [value] : [];
  });
  switch (provider) {
    case 'anthropic':
      return rebuildAnthropic(events);
    case 'openai-chat':
      return rebuildChat(events);
    case 'openai-responses':
      return rebuildResponses(events);
  }
}

function parseObject(data: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(data);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
  } catch {
    return undefined;
  }
}

const obj = (value: unknown): Json => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});
const str = (value: unknown): string => (typeof value === 'string' ? value : '');

function rebuildAnthropic(events: readonly Json[]): Json | undefined {
  let message: Json | undefined;
  const blocks: Json[] = [];
  const partialJson = new Map<number, string>();
  for (const e of events) {
    const index = typeof e.index === 'number' ? e.index : -1;
    if (e.type === 'message_start') message = { ...obj(e.message) };
    else if (e.type === 'content_block_start') blocks[index] = { ...obj(e.content_block) };
    else if (e.type === 'content_block_delta' && blocks[index]) applyAnthropicDelta(blocks[index] as Json, obj(e.delta), index, partialJson);
    else if (e.type === 'message_delta' && message) Object.assign(message, obj(e.delta), e.usage ? { usage: { ...obj(message.usage), ...obj(e.usage) } } : {});
  }
  if (!message) return undefined;
  for (const [index, json] of partialJson) {
    const block = blocks[index];
    if (block) block.input = json.trim() === '' ? {} : (parseObject(json) ?? block.input);
  }
  return { ...message, content: blocks.filter(Boolean) };
}

function applyAnthropicDelta(block: Json, delta: Json, index: number, partialJson: Map<number, string>): void {
  switch (delta.type) {
    case 'text_delta':
      block.text = str(block.text) + str(delta.text);
      break;
    case 'thinking_delta':
      block.thinking = str(block.thinking) + str(delta.thinking);
      break;
    case 'signature_delta':
      block.signature = str(block.signature) + str(delta.signature);
      break;
    case 'input_json_delta':
      partialJson.set(index, (partialJson.get(index) ?? '') + str(delta.partial_json));
      break;
    case 'citations_delta':
      block.citations = [...(Array.isArray(block.citations) ? block.citations : []), delta.citation];
      break;
  }
}

function rebuildChat(events: readonly Json[]): Json | undefined {
  if (events.length === 0) return undefined;
  const choices: Json[] = [];
  let last: Json = {};
  for (const chunk of events) {
    last = chunk;
    for (const delta of Array.isArray(chunk.choices) ? chunk.choices : []) {
      const d = obj(delta);
      const index = typeof d.index === 'number' ? d.index : 0;
      const choice = (choices[index] ??= { index, message: { role: 'assistant', content: null }, finish_reason: null });
      appendChatDelta(obj(choice.message), obj(d.delta));
      if (d.finish_reason !== undefined && d.finish_reason !== null) choice.finish_reason = d.finish_reason;
    }
  }
  const { choices: _chunkChoices, object: _object, ...rest } = last;
  return { ...rest, object: 'chat.completion', choices: choices.filter(Boolean) };
}

function appendChatDelta(message: Json, delta: Json): void {
  if (typeof delta.role === 'string') message.role = delta.role;
  if (typeof delta.content === 'string') message.content = str(message.content) + delta.content;
  if (typeof delta.refusal === 'string') message.refusal = str(message.refusal) + delta.refusal;
  for (const part of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
    const p = obj(part);
    const calls = (message.tool_calls ??= []) as Json[];
    const index = typeof p.index === 'number' ? p.index : calls.length;
    const call = (calls[index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
    if (typeof p.id === 'string') call.id = p.id;
    if (typeof p.type === 'string') call.type = p.type;
    const fn = obj(call.function);
    const pf = obj(p.function);
    if (typeof pf.name === 'string') fn.name = str(fn.name) + pf.name;
    if (typeof pf.arguments === 'string') fn.arguments = str(fn.arguments) + pf.arguments;
    call.function = fn;
  }
}

function rebuildResponses(events: readonly Json[]): Json | undefined {
  const done = ['response.completed', 'response.incomplete', 'response.failed'];
  const final = events.find((e) => done.includes(str(e.type)));
  if (final) return obj(final.response);
  const created = events.find((e) => e.type === 'response.created');
  const items = events.filter((e) => e.type === 'response.output_item.done').map((e) => obj(e.item));
  return created || items.length ? { ...obj(created?.response), output: items } : undefined;
}
