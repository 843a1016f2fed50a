import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { TextEdit } from '../../src/core/results';
import { applyEdits } from '../../src/core/fix/edits';
import { addPlaceholderResult, PLACEHOLDER_TEXT, removeOrphanedResult } from '../../src/core/fix/single';
import { checkTranscript } from '../../src/core/index';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/vscode/${name}`, import.meta.url), 'utf8');
const example = (name: string) => readFileSync(new URL(`../../examples/${name}`, import.meta.url), 'utf8');

function check(file: string, text: string) {
  return checkTranscript({ file, text }, { keepRewrites: true, tokens: false });
}

/** Every byte before the first edit and after the last one is unchanged. */
function assertOnlyEditedSpan(before: string, after: string, edits: readonly TextEdit[]) {
  const start = Math.min(...edits.map((e) => e.range.start));
  const end = Math.max(...edits.map((e) => e.range.end));
  assert.equal(after.slice(0, start), before.slice(0, start));
  assert.equal(after.slice(after.length - (before.length - end)), before.slice(end));
}

function orphan(file: string, text: string, rule: 'tool-result-orphaned' | 'tool-use-orphaned') {
  const report = check(file, text);
  const found = report.findings.find((f) => f.rule === rule && f.step === undefined);
  assert.ok(found?.toolCallId, `${file}: expected a window-level ${rule}`);
  assert.ok(report.finalWindow, `${file}: expected the final window`);
  return { report, found, window: report.finalWindow };
}

test('removes a buried orphaned tool_result block, keeping the sibling text block (Anthropic)', () => {
  const text = fixture('anthropic-buried-orphan.json');
  const { found, window } = orphan('a.json', text, 'tool-result-orphaned');
  const fix = removeOrphanedResult(window, found.toolCallId!, text, found.range);
  assert.ok(fix);
  const out = applyEdits(text, fix.edits);
  assertOnlyEditedSpan(text, out, fix.edits);
  const expected = JSON.parse(text);
  expected.messages[4].content.splice(0, 1);
  assert.deepEqual(JSON.parse(out), expected);
  assert.equal(check('a.json', out).findings.filter((f) => f.severity === 'error').length, 0);
});

test('removes an orphaned function_call_output item on a single JSONL-style line (Responses)', () => {
  const text = fixture('openai-responses-orphan-output.json');
  const { found, window } = orphan('r.json', text, 'tool-result-orphaned');
  const fix = removeOrphanedResult(window, found.toolCallId!, text, found.range);
  assert.ok(fix);
  const out = applyEdits(text, fix.edits);
  assertOnlyEditedSpan(text, out, fix.edits);
  assert.equal(out.split('\n').length, text.split('\n').length, 'no line breaks added');
  const expected = JSON.parse(text);
  expected.input.splice(3, 1);
  assert.deepEqual(JSON.parse(out), expected);
  assert.equal(check('r.json', out).findings.filter((f) => f.severity === 'error').length, 0);
});

test('adds a tool message for the unanswered parallel call after the answered one (OpenAI Chat)', () => {
  const text = fixture('openai-chat-pending-call.json');
  const { found, window } = orphan('c.json', text, 'tool-use-orphaned');
  assert.equal(found.toolCallId, 'call_bergen');
  const fix = addPlaceholderResult(window, 'call_bergen', text, found.range);
  assert.ok(fix);
  const out = applyEdits(text, fix.edits);
  assertOnlyEditedSpan(text, out, fix.edits);
  const messages = JSON.parse(out).messages;
  assert.deepEqual(messages[4], { role: 'tool', tool_call_id: 'call_bergen', content: PLACEHOLDER_TEXT });
  assert.equal(messages[3].tool_call_id, 'call_oslo');
  assert.equal(messages[5].content, 'And tomorrow?');
  assert.equal(check('c.json', out).findings.filter((f) => f.severity === 'error').length, 0);
});

test('opens the next user message with a tool_result for a pending tool_use (Anthropic)', () => {
  const body = {
    model: 'claude-sonnet-4-5',
    max_tokens: 100,
    messages: [
      { role: 'user', content: 'Check it' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_X', name: 'probe', input: {} }] },
      { role: 'user', content: [{ type: 'text', text: 'Never mind.' }] },
      { role: 'assistant', content: 'OK.' },
    ],
    tools: [{ name: 'probe', input_schema: { type: 'object' } }],
  };
  const text = JSON.stringify(body, null, 2);
  const { found, window } = orphan('p.json', text, 'tool-use-orphaned');
  const fix = addPlaceholderResult(window, 'toolu_X', text, found.range);
  assert.ok(fix);
  const out = applyEdits(text, fix.edits);
  assertOnlyEditedSpan(text, out, fix.edits);
  const next = JSON.parse(out).messages[2];
  assert.equal(JSON.parse(out).messages.length, 4, 'no new message: the existing user message is opened');
  assert.deepEqual(next.content[0], { type: 'tool_result', tool_use_id: 'toolu_X', content: PLACEHOLDER_TEXT });
  assert.deepEqual(next.content[1], { type: 'text', text: 'Never mind.' });
  assert.equal(check('p.json', out).findings.filter((f) => f.severity === 'error').length, 0);
});

test('adds a placeholder tool message for the buried pending call of a native trace', () => {
  const text = example('buried-orphan.trace.jsonl');
  const { found, window } = orphan('b.trace.jsonl', text, 'tool-use-orphaned');
  const fix = addPlaceholderResult(window, found.toolCallId!, text, found.range);
  assert.ok(fix);
  const out = applyEdits(text, fix.edits);
  assertOnlyEditedSpan(text, out, fix.edits);
  assert.equal(out.split('\n').length, text.split('\n').length, 'JSONL lines stay lines');
  const after = check('b.trace.jsonl', out);
  assert.equal(after.findings.filter((f) => f.rule === 'tool-use-orphaned' && f.toolCallId === found.toolCallId).length, 0);
});

test('gives no fix for an id that is not in the window', () => {
  const text = fixture('openai-chat-pending-call.json');
  const { window } = orphan('c.json', text, 'tool-use-orphaned');
  assert.equal(addPlaceholderResult(window, 'call_missing', text), undefined);
  assert.equal(removeOrphanedResult(window, 'call_missing', text), undefined);
});
