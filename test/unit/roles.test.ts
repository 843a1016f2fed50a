/**
 * Role names read the same in every reader: the LangChain (`human`, `ai`) and
 * Llama (`ipython`) names map onto the neutral roles in a provider request log
 * exactly as they do in a Gemini log, so one role never reads two ways.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { anthropicAdapter } from '../../src/core/formats/anthropic';
import { geminiAdapter } from '../../src/core/formats/gemini';
import { openaiChatAdapter } from '../../src/core/formats/openai-chat';
import { openaiResponsesAdapter } from '../../src/core/formats/openai-responses';
import type { FormatAdapter } from '../../src/core/transcript';
import { readEvents } from './provider-helpers';

const NAMES = ['human', 'ai', 'ipython', 'developer', 'model'];
const EXPECTED = ['user', 'assistant', 'tool', 'system', 'assistant'];

function rolesRead(adapter: FormatAdapter, body: object): string[] {
  const events = readEvents(adapter, 'request.json', JSON.stringify(body));
  return events.windows[0]!.messages.map((m) => m.role);
}

describe('role names: one mapping for every reader', () => {
  const readers: Array<[string, FormatAdapter, object]> = [
    ['openai-chat', openaiChatAdapter, { model: 'm', messages: NAMES.map((role) => ({ role, content: 'x' })) }],
    ['anthropic', anthropicAdapter, { model: 'm', max_tokens: 1, messages: NAMES.map((role) => ({ role, content: 'x' })) }],
    ['openai-responses', openaiResponsesAdapter, { model: 'm', input: NAMES.map((role) => ({ type: 'message', role, content: 'x' })) }],
    ['gemini', geminiAdapter, { contents: NAMES.map((role) => ({ role, parts: [{ text: 'x' }] })) }],
  ];
  for (const [name, adapter, body] of readers) {
    it(`${name} reads human/ai/ipython/developer/model as user/assistant/tool/system/assistant`, () => {
      assert.deepEqual(rolesRead(adapter, body), EXPECTED);
    });
  }
});
