/**
 * tool-result-misplaced: the provider positional rules, per dialect, on
 * hand-made windows and fixtures; no finding for well-placed results, for
 * orphans (another rule's) or for formats without positional rules.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { checkTranscript } from '../../src/core/check';
import { anthropicAdapter } from '../../src/core/formats/anthropic';
import { openaiChatAdapter } from '../../src/core/formats/openai-chat';
import { openaiResponsesAdapter } from '../../src/core/formats/openai-responses';
import type { ContextWindow } from '../../src/core/model';
import { checkToolResultMisplaced } from '../../src/core/rules/tool-result-misplaced';
import type { FormatAdapter } from '../../src/core/transcript';
import { PROVIDERS, corpusFiles, fileText, readEvents, slice } from './provider-helpers';

const windowOf = (adapter: FormatAdapter, body: unknown): ContextWindow => readEvents(adapter, 'w.json', JSON.stringify(body)).windows[0]!;
const misplacedIds = (window: ContextWindow) => checkToolResultMisplaced(window).map((f) => f.toolCallId);

const use = (id: string) => ({ type: 'tool_use', id, name: 'f', input: {} });
const result = (id: string) => ({ type: 'tool_result', tool_use_id: id, content: 'ok' });
const text = (t: string) => ({ type: 'text', text: t });
const anthropic = (...messages: unknown[]) => windowOf(anthropicAdapter, { max_tokens: 5, system: 'S', messages });

describe('tool-result-misplaced: Anthropic', () => {
  it('accepts results in the next user message, parallel results together, opening it', () => {
    const ok = anthropic(
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [text('calling'), use('a'), use('b')] },
      { role: 'user', content: [result('a'), result('b'), text('and then?')] },
    );
    assert.deepEqual(misplacedIds(ok), []);
  });

  it('flags a parallel result split into a second user message', () => {
    const split = anthropic(
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [use('a'), use('b')] },
      { role: 'user', content: [result('a')] },
      { role: 'user', content: [result('b')] },
    );
    assert.deepEqual(misplacedIds(split), ['b']);
  });

  it('flags a result after text in its user message', () => {
    const late = anthropic({ role: 'user', content: 'go' }, { role: 'assistant', content: [use('a')] }, { role: 'user', content: [text('here'), result('a')] });
    const [f] = checkToolResultMisplaced(late);
    assert.equal(f!.toolCallId, 'a');
    assert.match(f!.message, /open the user message/);
  });

  it('flags a result not in the message right after its call, and one in an assistant message', () => {
    const far = anthropic(
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [use('a')] },
      { role: 'assistant', content: [text('hm')] },
      { role: 'user', content: [result('a')] },
      { role: 'assistant', content: [use('b'), result('b')] },
      { role: 'user', content: 'x' },
    );
    assert.deepEqual(misplacedIds(far), ['a', 'b']);
  });

  it('leaves orphans to the orphan rules', () => {
    const orphan = anthropic({ role: 'user', content: [text('x'), result('ghost')] }, { role: 'assistant', content: [use('lost')] }, { role: 'user', content: 'y' });
    assert.deepEqual(misplacedIds(orphan), []);
  });

  it('locates each finding at the result id, with the call as related location', () => {
    const file = path.join(PROVIDERS, 'anthropic-misplaced.json');
    const source = fileText(file);
    const report = checkTranscript({ file, text: source }, { tokens: false });
    const misplaced = report.findings.filter((f) => f.rule === 'tool-result-misplaced');
    assert.deepEqual(misplaced.map((f) => f.toolCallId), ['toolu_b', 'toolu_c', 'toolu_d']);
    for (const f of misplaced) {
      assert.equal(slice(source, f.range), JSON.stringify(f.toolCallId));
      assert.match(source.slice(0, f.range.start), /"tool_use_id": $/);
      assert.match(slice(source, f.related?.[0]?.range), /"type": "tool_use"/);
    }
    assert.equal(misplaced[0]!.severity, 'error');
  });
});

describe('tool-result-misplaced: OpenAI Chat', () => {
  const call = (id: string) => ({ id, type: 'function', function: { name: 'f', arguments: '{}' } });
  const tool = (id: string) => ({ role: 'tool', tool_call_id: id, content: 'ok' });
  const chat = (...messages: unknown[]) => windowOf(openaiChatAdapter, { model: 'm', messages });

  it('accepts a contiguous run of tool messages right after the assistant message', () => {
    const ok = chat({ role: 'user', content: 'go' }, { role: 'assistant', content: null, tool_calls: [call('a'), call('b')] }, tool('b'), tool('a'), { role: 'user', content: 'thanks' });
    assert.deepEqual(misplacedIds(ok), []);
  });

  it('flags a tool message after a user message, and one before its assistant message', () => {
    const bad = chat(tool('early'), { role: 'assistant', tool_calls: [call('early'), call('a'), call('b')] }, tool('a'), { role: 'user', content: 'hurry' }, tool('b'));
    assert.deepEqual(misplacedIds(bad), ['early', 'b']);
  });

  it('flags the fixture through the engine', () => {
    const file = path.join(PROVIDERS, 'openai-chat-misplaced.json');
    const report = checkTranscript({ file, text: fileText(file) }, { tokens: false });
    assert.deepEqual(report.findings.filter((f) => f.rule === 'tool-result-misplaced').map((f) => f.toolCallId), ['call_early', 'call_b']);
  });
});

describe('tool-result-misplaced: OpenAI Responses', () => {
  const fc = (id: string) => ({ type: 'function_call', call_id: id, name: 'f', arguments: '{}' });
  const out = (id: string) => ({ type: 'function_call_output', call_id: id, output: 'ok' });

  it('accepts an output after its call, with other items between', () => {
    const ok = windowOf(openaiResponsesAdapter, { input: [fc('a'), fc('b'), { role: 'user', content: 'x' }, out('b'), out('a')] });
    assert.deepEqual(misplacedIds(ok), []);
  });

  it('flags an output before its call', () => {
    const bad = windowOf(openaiResponsesAdapter, { input: [{ role: 'user', content: 'x' }, out('a'), fc('a')] });
    assert.deepEqual(misplacedIds(bad), ['a']);
    const file = path.join(PROVIDERS, 'openai-responses-misplaced.json');
    const report = checkTranscript({ file, text: fileText(file) }, { tokens: false });
    assert.deepEqual(report.findings.filter((f) => f.rule === 'tool-result-misplaced').map((f) => f.toolCallId), ['call_x']);
  });
});

describe('tool-result-misplaced: other formats and the corpus', () => {
  it('has no positional rule for the native trace', () => {
    const window = anthropic({ role: 'user', content: [text('x'), result('a')] }, { role: 'assistant', content: [use('a')] });
    assert.deepEqual(misplacedIds(window), ['a']);
    assert.deepEqual(misplacedIds({ ...window, format: 'native' }), []);
  });

  it('finds nothing misplaced in the recorded provider corpus', () => {
    const adapters = { 'anthropic-messages': anthropicAdapter, 'openai-chat': openaiChatAdapter, 'openai-responses': openaiResponsesAdapter };
    for (const [folder, adapter] of Object.entries(adapters)) {
      for (const file of corpusFiles(folder)) {
        for (const window of readEvents(adapter, file).windows) assert.deepEqual(checkToolResultMisplaced(window), [], file);
      }
    }
  });
});
