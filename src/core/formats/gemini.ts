/**
 * Gemini `generateContent` request bodies (`contents` of `{role, parts}`) and
 * logs of them (one request, or `{request, response}` record, per line; read by
 * the shared request-log reader, so each request after the first is a step).
 *
 * `systemInstruction` becomes a leading system message; `tools[].functionDeclarations`
 * the registry; each element of `contents` one message (`user` → user, `model`
 * → assistant, `function` → tool). Parts: `text` → text, `functionCall` →
 * call, `functionResponse` → result, anything else (thought signatures, inline
 * data, executable code) → opaque.
 *
 * Gemini pairs calls and responses by position, and older calls carry no `id`:
 * an id-less call gets the positional id `position:contents[T].parts[P]` (a
 * place, and messages say so), and an id-less response takes the id of the
 * first unanswered call of the same name (else the first unanswered call) in
 * the nearest preceding model turn. The positional rule itself (answered in
 * the next turn, equal part counts; consecutive contents of one role are one
 * turn, as the API merges them) is `rules/positions/gemini.ts`.
 */
import type { JsonArray, JsonNode, JsonObject } from '../json/parse';
import { POSITIONAL_ID, type Block, type ContextWindow, type Message, type ToolCall, type ToolSchema } from '../model';
import type { FormatAdapter } from '../transcript';
import { readRequestLog, requestLogLines, type ParsedRequest, type ProviderCodec } from './request-log';
import { asArray, asString, prop, rangeOf } from '../json/nodes';
import { neutralRole } from './common';

/** A fresh codec per read: it remembers the length of the last request, where the logged response's turn goes. */
export function geminiCodec(turns = 0): ProviderCodec {
  let lastTurns = turns;
  return {
    fork: () => geminiCodec(lastTurns),
    format: 'gemini',
    label: 'Gemini generateContent',
    isRequest: (body) => asArray(prop(body, 'contents')) !== undefined,
    readRequest: (body) => {
      const request = readGeminiRequest(body);
      lastTurns = asArray(prop(body, 'contents'))?.items.length ?? 0;
      return request;
    },
    readResponse: (body) => readGeminiResponse(body, lastTurns),
  };
}

export const geminiAdapter: FormatAdapter = {
  id: 'gemini',
  label: 'Gemini generateContent request bodies',
  sniff: (head) => /"contents"\s*:\s*\[\s*\{/.test(head) && /"parts"\s*:\s*\[/.test(head) && !/"messages"\s*:\s*\[/.test(head),
  read: (input) => readRequestLog(input, geminiCodec()),
  lineReader: (file, firstLine, asked) => requestLogLines(file, firstLine, geminiCodec, asked),
};

export function readGeminiRequest(body: JsonObject): ParsedRequest {
  const contents = asArray(prop(body, 'contents'));
  const system = systemMessage(prop(body, 'systemInstruction') ?? prop(body, 'system_instruction'));
  const turns = (contents?.items ?? []).map((node, turn) => readTurn(node, turn, contents));
  pairResponses(turns);
  const messages = system ? [system, ...turns] : turns;
  const toolsNode = prop(body, 'tools');
  const window: ContextWindow = {
    format: 'gemini',
    tools: readTools(toolsNode),
    messages,
    boundary: messages.length,
    live: false,
    source: rangeOf(body),
    toolsSource: rangeOf(toolsNode),
    messagesSource: rangeOf(contents),
  };
  return { window, preamble: 0 };
}

/** The model turn of a logged response (`candidates[0].content`), numbered as the next turn. */
export function readGeminiResponse(body: JsonNode | undefined, turn: number): Message[] {
  const content = prop(asArray(prop(body, 'candidates'))?.items[0], 'content');
  return content?.type === 'object' ? [readTurn(content, turn, undefined)] : [];
}

function readTurn(node: JsonNode, turn: number, container: JsonArray | undefined): Message {
  const role = neutralRole(asString(prop(node, 'role'))?.value, 'user');
  const parts = asArray(prop(node, 'parts'));
  const blocks = (parts?.items ?? []).flatMap((part, index) => withExtras(part, readPart(part, `${POSITIONAL_ID}contents[${turn}].parts[${index}]`, parts)));
  return { role, blocks, source: rangeOf(node), container: rangeOf(container) };
}

/**
 * A call or response part may carry more than the call (`thoughtSignature`,
 * which Gemini requires back unchanged): those keys stay in the rendered bytes
 * as an opaque block after it, so dropping a signature is a change.
 */
function withExtras(part: JsonNode, block: Block): Block[] {
  if (block.kind === 'opaque' || block.kind === 'text' || part.type !== 'object') return [block];
  const extras = part.properties.filter((p) => !PAIR_KEYS.includes(p.key));
  if (extras.length === 0) return [block];
  return [block, { kind: 'opaque', type: extras.map((p) => p.key).join('+'), value: { ...part, properties: extras }, source: rangeOf(part) }];
}

const PAIR_KEYS = ['functionCall', 'function_call', 'functionResponse', 'function_response'];

function readPart(part: JsonNode, position: string, parts: JsonArray | undefined): Block {
  const source = rangeOf(part);
  const text = asString(prop(part, 'text'));
  const thought = prop(part, 'thought');
  if (text && !(thought?.type === 'boolean' && thought.value) && part.type === 'object' && part.properties.length === 1) {
    return { kind: 'text', text: text.value, source };
  }
  const call = prop(part, 'functionCall') ?? prop(part, 'function_call');
  if (call) {
    const id = asString(prop(call, 'id'));
    return { kind: 'tool_call', id: id?.value ?? position, name: asString(prop(call, 'name'))?.value ?? '', input: prop(call, 'args'), source, idSource: rangeOf(id ?? call), container: rangeOf(parts) };
  }
  const response = prop(part, 'functionResponse') ?? prop(part, 'function_response');
  if (response) {
    const id = asString(prop(response, 'id'));
    return { kind: 'tool_result', callId: id?.value ?? `${POSITIONAL_ID}${position}`, name: asString(prop(response, 'name'))?.value, content: prop(response, 'response'), source, idSource: rangeOf(id ?? response), container: rangeOf(parts) };
  }
  return { kind: 'opaque', type: part.type === 'object' ? (part.properties[0]?.key ?? 'part') : part.type, value: part, source };
}

/** Gives every id-less response the id of the call it answers by position (see the module comment); one with no call keeps its own place. */
function pairResponses(turns: Message[]): void {
  const idless = (b: Block) => b.kind === 'tool_result' && b.callId.startsWith(POSITIONAL_ID);
  const answered = new Set(turns.flatMap((m) => m.blocks.flatMap((b) => (b.kind === 'tool_result' && !idless(b) ? [b.callId] : []))));
  turns.forEach((message, t) => {
    if (!message.blocks.some(idless)) return;
    const calls = nearestCalls(turns, t);
    const blocks = message.blocks.map((block): Block => {
      if (block.kind !== 'tool_result' || !idless(block)) return block;
      const open = calls.filter((c) => !answered.has(c.id));
      const call = open.find((c) => c.name === block.name) ?? open[0];
      if (call) answered.add(call.id);
      return call ? { ...block, callId: call.id } : block;
    });
    turns[t] = { ...message, blocks };
  });
}

function nearestCalls(turns: readonly Message[], before: number): ToolCall[] {
  for (let t = before - 1; t >= 0; t--) {
    const calls = turns[t]?.blocks.filter((b): b is ToolCall => b.kind === 'tool_call') ?? [];
    if (turns[t]?.role === 'assistant' && calls.length > 0) return calls;
  }
  return [];
}

function systemMessage(node: JsonNode | undefined): Message | undefined {
  const text = asString(node);
  if (text) return { role: 'system', blocks: [{ kind: 'text', text: text.value, source: rangeOf(text) }], source: rangeOf(text) };
  const parts = asArray(prop(node, 'parts'));
  if (!parts) return undefined;
  return { role: 'system', blocks: parts.items.map((part, i) => readPart(part, `${POSITIONAL_ID}systemInstruction.parts[${i}]`, parts)), source: rangeOf(node) };
}

/** `tools` is a list of tool groups (or one group): function declarations, or built-ins such as `googleSearch`. */
function readTools(node: JsonNode | undefined): ToolSchema[] {
  const groups = asArray(node)?.items ?? (node ? [node] : []);
  return groups.flatMap((group): ToolSchema[] => {
    const declarations = asArray(prop(group, 'functionDeclarations') ?? prop(group, 'function_declarations'));
    if (declarations) return declarations.items.map((d) => ({ name: asString(prop(d, 'name'))?.value ?? '', declaration: d, source: rangeOf(d) }));
    const key = group.type === 'object' ? group.properties[0]?.key : undefined;
    return key ? [{ name: key, declaration: group, source: rangeOf(group) }] : [];
  });
}
