/**
 * Amazon Bedrock Converse request bodies (`POST /model/{modelId}/converse`)
 * and logs of them (read by the shared request-log reader).
 *
 * `system[]` text blocks become a leading system message;
 * `toolConfig.tools[].toolSpec` the registry; `messages[i]` one message each.
 * Content blocks are keyed, not typed: `{text}` → text, `{toolUse:{toolUseId,
 * name, input}}` → call, `{toolResult:{toolUseId, content, status}}` → result
 * (`status:"error"` marks an error), anything else (`image`, `document`,
 * `reasoningContent`, …) → opaque. A `cachePoint` block is a caching hint the
 * model never reads (as Anthropic's `cache_control`): it is left out, so a
 * cache point moved to the newest message is no change of the prefix.
 *
 * Converse rejects `toolUse` / `toolResult` blocks when the request has no
 * `toolConfig`: such a window gets a `schema-dropped` error on the first of them.
 */
import { finding, type Finding } from '../findings';
import type { JsonArray, JsonNode, JsonObject } from '../json/parse';
import { pairId, type Block, type ContextWindow, type Message, type ToolSchema } from '../model';
import type { FormatAdapter, LineReader, TranscriptEvent } from '../transcript';
import { readRequestLog, requestLogLines, type ParsedRequest, type ProviderCodec } from './request-log';
import { asArray, asString, prop, rangeOf } from '../json/nodes';
import { findingEvent, headMatches, neutralRole } from './common';

const MARKERS = /"(toolUse|toolResult|toolConfig|toolSpec|inferenceConfig|additionalModelRequestFields|reasoningContent|cachePoint)"\s*:\s*[{[]/;

export const bedrockCodec: ProviderCodec = {
  format: 'bedrock',
  label: 'Bedrock Converse',
  isRequest: (body) => asArray(prop(body, 'messages')) !== undefined && prop(body, 'contents') === undefined,
  readRequest: readBedrockRequest,
  readResponse: readBedrockResponse,
};

export const bedrockAdapter: FormatAdapter = {
  id: 'bedrock',
  label: 'Bedrock Converse request bodies',
  sniff: (head) => headMatches(head, /"messages"\s*:\s*\[/) && headMatches(head, MARKERS),
  read: (input) => withToolConfigFindings(readRequestLog(input, bedrockCodec)),
  lineReader: (file, firstLine, asked) => {
    const reader = requestLogLines(file, firstLine, () => bedrockCodec, asked);
    return reader && bedrockLines(reader);
  },
};

function bedrockLines(reader: LineReader): LineReader {
  return {
    line: (line) => withToolConfigFindings(reader.line(line)),
    end: () => withToolConfigFindings(reader.end()),
    fork: () => bedrockLines(reader.fork()),
  };
}

/** Each window followed by the findings of a missing `toolConfig`. */
function* withToolConfigFindings(events: Iterable<TranscriptEvent>): Generator<TranscriptEvent> {
  for (const event of events) {
    yield event;
    if (event.kind === 'window') for (const f of missingToolConfig(event.window)) yield findingEvent(f);
  }
}

export function readBedrockRequest(body: JsonObject): ParsedRequest {
  const messagesNode = asArray(prop(body, 'messages'));
  const system = systemMessage(asArray(prop(body, 'system')));
  const messages: Message[] = system ? [system] : [];
  for (const item of messagesNode?.items ?? []) messages.push(readMessage(item, messagesNode));
  const toolConfig = prop(body, 'toolConfig');
  const toolsNode = asArray(prop(toolConfig, 'tools'));
  const window: ContextWindow = {
    format: 'bedrock',
    tools: (toolsNode?.items ?? []).flatMap(readTool),
    messages,
    boundary: messages.length,
    live: false,
    source: rangeOf(body),
    toolsSource: rangeOf(toolConfig),
    messagesSource: rangeOf(messagesNode),
  };
  return { window, preamble: 0 };
}

/** The assistant message of a logged Converse response (`output.message`). */
export function readBedrockResponse(body: JsonNode | undefined): Message[] {
  const message = prop(prop(body, 'output'), 'message');
  return message?.type === 'object' ? [readMessage(message, undefined)] : [];
}

function readMessage(node: JsonNode, container: JsonArray | undefined): Message {
  const content = asArray(prop(node, 'content'));
  const blocks = (content?.items ?? []).filter(isRead).map((block) => readBlock(block, content));
  return { role: neutralRole(asString(prop(node, 'role'))?.value, 'user'), blocks, source: rangeOf(node), container: rangeOf(container) };
}

function readBlock(node: JsonNode, content: JsonArray | undefined): Block {
  const source = rangeOf(node);
  const text = asString(prop(node, 'text'));
  if (text && node.type === 'object' && node.properties.length === 1) return { kind: 'text', text: text.value, source };
  const use = prop(node, 'toolUse');
  if (use) {
    const id = asString(prop(use, 'toolUseId'));
    return { kind: 'tool_call', id: id?.value ?? '', name: asString(prop(use, 'name'))?.value ?? '', input: prop(use, 'input'), source, idSource: rangeOf(id), container: rangeOf(content) };
  }
  const result = prop(node, 'toolResult');
  if (result) {
    const id = asString(prop(result, 'toolUseId'));
    const isError = asString(prop(result, 'status'))?.value === 'error';
    return { kind: 'tool_result', callId: id?.value ?? '', content: prop(result, 'content'), isError, source, idSource: rangeOf(id), container: rangeOf(content) };
  }
  const type = node.type === 'object' ? (node.properties[0]?.key ?? 'block') : node.type;
  return { kind: 'opaque', type, value: node, source };
}

function systemMessage(system: JsonArray | undefined): Message | undefined {
  if (!system || system.items.length === 0) return undefined;
  return { role: 'system', blocks: system.items.filter(isRead).map((block) => readBlock(block, system)), source: rangeOf(system) };
}

/** Every content block but a `cachePoint`. */
function isRead(block: JsonNode): boolean {
  return prop(block, 'cachePoint') === undefined;
}

/** `{toolSpec:{name, description, inputSchema}}`; `cachePoint` entries are not tools. */
function readTool(node: JsonNode): ToolSchema[] {
  const spec = prop(node, 'toolSpec');
  if (!spec) return [];
  return [{ name: asString(prop(spec, 'name'))?.value ?? '', declaration: node, source: rangeOf(node) }];
}

/** Converse requires `toolConfig` whenever the messages hold `toolUse` / `toolResult` blocks. */
export function missingToolConfig(window: ContextWindow): Finding[] {
  if (window.format !== 'bedrock' || window.toolsSource) return [];
  for (const message of window.messages) {
    for (const block of message.blocks) {
      if (block.kind !== 'tool_call' && block.kind !== 'tool_result') continue;
      const id = pairId(block);
      const range = block.idSource ?? block.source ?? window.source ?? { start: 0, end: 0 };
      const what = block.kind === 'tool_call' ? 'toolUse' : 'toolResult';
      return [
        finding('schema-dropped', range, `This Converse request holds ${what} ${JSON.stringify(id)} but no toolConfig: Bedrock rejects toolUse/toolResult blocks unless toolConfig declares the tools`, {
          toolCallId: id,
        }),
      ];
    }
  }
  return [];
}
