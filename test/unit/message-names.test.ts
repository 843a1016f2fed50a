/**
 * Every finding names a message where a user finds it in the file, in the
 * format's own terms: `messages[1]` of an Anthropic request (the `system`
 * field is not counted), `contents[i]` of a Gemini request, the record line of
 * a Claude Code session or a Codex rollout. And "An assistant message", not
 * "A assistant message".
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkTranscript } from '../../src/core/check';
import { inputFromFile, inputFromText } from '../../src/core/io';
import { corpus } from './wild-helpers';

const OPTIONS = { tokens: false } as const;
const messagesOf = (name: string, text: string, format?: string) =>
  checkTranscript(inputFromText(name, text), { ...OPTIONS, ...(format && { format: format as never }) }).findings.map((f) => f.message);

const SYSTEM = 'You are terse.';
const request = (messages: unknown[]) => JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 100, system: SYSTEM, messages });

describe('message names', () => {
  it('Anthropic: an edited consumed assistant message is messages[1], not "message 3"', () => {
    const log = [
      JSON.stringify({ request: JSON.parse(request([{ role: 'user', content: 'hi' }])), response: { role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] } }),
      request([{ role: 'user', content: 'hi' }, { role: 'assistant', content: [{ type: 'text', text: 'Hello!' }] }, { role: 'user', content: 'bye' }]),
    ].join('\n');
    assert.deepEqual(messagesOf('edit.jsonl', log, 'anthropic'), ['The consumed assistant message at messages[1] was edited (block 1) after the model read it']);
  });

  it('Anthropic: an inserted message is named with its article and place: "An assistant message … at messages[1]"', () => {
    const first = request([{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'Hello.' }, { role: 'user', content: 'more' }]);
    const second = request([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'Injected.' },
      { role: 'user', content: 'ok' },
      { role: 'assistant', content: 'Hello.' },
      { role: 'user', content: 'more' },
    ]);
    const found = messagesOf('insert.jsonl', `${first}\n${second}\n`, 'anthropic').filter((m) => /inserted/.test(m));
    assert.ok(found.length > 0);
    for (const m of found) assert.match(m, /^(A user|An assistant) message was inserted into the consumed prefix at messages\[\d\]$/);
    assert.ok(found.some((m) => m.startsWith('An assistant message')), found.join('\n'));
  });

  it('Codex: a compaction names the rollout lines of the removed items', () => {
    const file = corpus('codex', 'localpush_rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.excerpt-L1+L1735-L1828.jsonl');
    const found = checkTranscript(inputFromFile(file), OPTIONS).findings.map((f) => f.message);
    assert.deepEqual(found, ['26 consumed messages were removed here (lines 5–51 of the context before)']);
  });

  it('Claude Code: a compaction names the record lines of the removed messages', () => {
    const file = corpus('claude-code', 'spotter_4d5611e5-241a-462a-8d15-5122611a9569.excerpt-L742-L790.jsonl');
    const [finding] = checkTranscript(inputFromFile(file), OPTIONS).findings;
    assert.match(finding!.message, /^\d+ consumed messages? (was|were) removed here \(lines? \d+(–\d+)? of the context before\)$/);
  });
});
