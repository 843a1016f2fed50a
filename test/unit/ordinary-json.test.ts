/**
 * Ordinary JSON is never flagged: a file is a transcript only when its shape
 * really is one. `messages` that is an object (an i18n file), an array of
 * objects with no role, an `input` that is a form field: no format claims
 * them, so the editor shows no diagnostic and no inspector button, and the CLI
 * refuses them as "format not recognised" (exit 2). Real request bodies of the
 * same keys stay recognised.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkTranscript } from '../../src/core/check';
import { detectFormat } from '../../src/core/formats/registry';
import { inputFromText } from '../../src/core/io';

const ORDINARY = [
  '{"messages":{"greeting":"Hello"},"locale":"en"}',
  '{\n  "locale": "de",\n  "messages": {\n    "greeting": "Hallo",\n    "farewell": "Tschüss"\n  }\n}\n',
  '{"messages":[{"id":1,"text":"hi"},{"id":2,"text":"there"}]}',
  '{"messages":[]}',
  '{"input":{"placeholder":"Name","required":true},"instructions":"Fill in the form"}',
  '{"messages":"see messages.json"}',
];

const REQUESTS: Array<[string, string]> = [
  ['{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}', 'openai-chat'],
  ['{"messages":[{"content":"hi","role":"user"}],"max_tokens":100,"system":"terse"}', 'anthropic'],
  ['{"model":"gpt-4o","messages":[]}', 'openai-chat'],
  ['{"model":"gpt-4.1","input":"hi"}', 'openai-responses'],
  ['{"interaction":1,"method":"POST","request":{"model":"m","messages":[{"role":"user","content":"x"}]},"response":{}}', 'openai-chat'],
];

describe('ordinary JSON is never flagged', () => {
  for (const text of ORDINARY) {
    it(`not a transcript: ${JSON.stringify(text).slice(0, 70)}`, () => {
      assert.equal(detectFormat(text)?.id, undefined);
      assert.throws(() => checkTranscript(inputFromText('strings.json', text), { tokens: false }), /not recognised/);
    });
  }

  for (const [text, format] of REQUESTS) {
    it(`still a request (${format}): ${text.slice(0, 60)}`, () => {
      assert.equal(detectFormat(text)?.id, format);
    });
  }
});
