/**
 * Claude Code lines carry Anthropic-shaped messages (`message.content` is a
 * string or a list of `text` / `tool_use` / `tool_result` / `thinking` / …
 * blocks). This turns one line's content into neutral blocks with their
 * source ranges, so findings land on the session file's own lines.
 */
import type { Block } from '../../model';
import type { JsonNode } from '../../json/parse';
import { asArray, asString, prop, propString, rangeOf } from '../../json/nodes';
import { idRange, textBlock } from '../common';

/** The neutral blocks of one Anthropic-shaped `content` value (string or block list). */
export function anthropicBlocks(content: JsonNode | undefined): Block[] {
  const text = asString(content);
  if (text) return [textBlock(text)];
  const list = asArray(content);
  if (!list) return [];
  const container = rangeOf(list);
  return list.items.map((item) => anthropicBlock(item, container));
}

function anthropicBlock(item: JsonNode, container: ReturnType<typeof rangeOf>): Block {
  const type = propString(item, 'type') ?? '';
  const source = rangeOf(item);
  if (type === 'text') {
    const text = asString(prop(item, 'text'));
    if (text) return { kind: 'text', text: text.value, source };
  }
  if (type === 'tool_use') {
    return {
      kind: 'tool_call',
      id: propString(item, 'id') ?? '',
      name: propString(item, 'name') ?? '',
      input: prop(item, 'input'),
      source,
      idSource: idRange(item, 'id'),
      container,
    };
  }
  if (type === 'tool_result') {
    const isError = prop(item, 'is_error');
    return {
      kind: 'tool_result',
      callId: propString(item, 'tool_use_id') ?? '',
      content: prop(item, 'content'),
      isError: isError?.type === 'boolean' && isError.value,
      source,
      idSource: idRange(item, 'tool_use_id'),
      container,
    };
  }
  return { kind: 'opaque', type: type || item.type, value: item, source };
}

/** True when a content value holds at least one block and every block is a `tool_result`. */
export function onlyToolResults(content: JsonNode | undefined): boolean {
  const list = asArray(content);
  return !!list && list.items.length > 0 && list.items.every((item) => propString(item, 'type') === 'tool_result');
}
