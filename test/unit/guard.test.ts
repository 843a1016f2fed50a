import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { createEngineContext } from '../../src/core/context';
import { guardRewrite, judgeRewrite } from '../../src/core/guard';
import { renderMessage, renderTool, renderWindow } from '../../src/core/render';
import { windowFromObject } from '../../src/core/formats/native';
import { assistant, call, result, system, tool, user, type Json } from '../support/trace';

const tools = [tool('search'), tool('fetch')];
const history: Json[] = [
  system('You answer with sources.'),
  user('What is the capital of France?'),
  assistant('Searching.', call('s1', 'search', { q: 'capital of France' })),
  result('s1', 'Paris is the capital of France.'),
  assistant('Paris.'),
];
const current = { tools, messages: history, boundary: history.length };

test('a pure append is a patch', () => {
  const verdict = guardRewrite(current, { tools, messages: [...history, user('And of Spain?')] });
  assert.equal(verdict.decision, 'patch');
  assert.deepEqual(verdict.findings, []);
  assert.equal(verdict.source, 'runtime');
});

test('dropping a consumed tool_use but keeping its result aborts, with reasons', () => {
  const proposal = { messages: history.map((m, i) => (i === 2 ? assistant('Searching.') : m)) };
  const verdict = guardRewrite(current, proposal, { source: 'compaction' });
  assert.equal(verdict.decision, 'abort');
  assert.deepEqual(verdict.findings.map((f) => f.rule).sort(), ['prefix-mutated', 'tool-result-orphaned']);
  assert.equal(verdict.findings.find((f) => f.rule === 'tool-result-orphaned')?.toolCallId, 's1');
  for (const f of verdict.findings) assert.ok(f.range.start >= 0 && f.range.end >= f.range.start);
});

test('a proposal without tools keeps the current ones; a self-edit is judged and flagged', () => {
  const verdict = guardRewrite(current, { messages: [...history, user('more')] }, { source: 'self_edit' });
  assert.equal(verdict.decision, 'patch');
  assert.deepEqual(verdict.findings.map((f) => f.rule), ['self-edit']);
});

test('an orphan that was already there is not blamed on the rewrite', () => {
  const broken = { tools, messages: [...history, result('ghost', '?')], boundary: 6 };
  const verdict = guardRewrite(broken, { messages: [...broken.messages, user('next')] });
  assert.equal(verdict.decision, 'patch');
});

test('cache impact: consumed tokens, tokens from the first changed message, and the break offset', () => {
  const context = createEngineContext('o200k_base');
  const before = windowFromObject(current);
  const after = windowFromObject({ messages: history.map((m, i) => (i === 3 ? result('s1', 'Paris.') : m)) }, before);
  const verdict = judgeRewrite({ source: 'compaction', before, after, applied: true }, { context });
  const count = (text: string) => context.tokens?.count(text) ?? 0;
  const toolTokens = before.tools.reduce((n, t) => n + count(renderTool(t)), 0);
  const messageTokens = before.messages.map((m) => count(renderMessage(m)));
  assert.equal(verdict.cacheImpact.consumedTokens, toolTokens + messageTokens.reduce((n, t) => n + t, 0));
  assert.equal(verdict.cacheImpact.invalidatedTokens, (messageTokens[3] ?? 0) + (messageTokens[4] ?? 0));
  const a = renderWindow(before).text;
  const b = renderWindow(after).text;
  let k = 0;
  while (a[k] === b[k]) k++;
  assert.equal(verdict.cacheImpact.breakOffset, k);
  assert.ok(verdict.cacheImpact.consumedTokens > verdict.cacheImpact.invalidatedTokens && verdict.cacheImpact.invalidatedTokens > 0);
});

test('a registry change invalidates the whole consumed prefix', () => {
  const verdict = guardRewrite(current, { tools: [tool('search')] }, { tokens: 'o200k_base' });
  assert.equal(verdict.decision, 'defer');
  assert.equal(verdict.cacheImpact.invalidatedTokens, verdict.cacheImpact.consumedTokens);
});

const textArb = fc.string({ maxLength: 12 });
const turnArb = fc.record({ q: textArb, a: textArb, tool: fc.boolean() });

/** A history of completed turns, each optionally with one tool pair. */
function buildHistory(turns: { q: string; a: string; tool: boolean }[], idPrefix = 'id'): Json[] {
  return turns.flatMap((t, i) =>
    t.tool ? [user(t.q), assistant('calling', call(`${idPrefix}${i}`, 'search', { q: t.q })), result(`${idPrefix}${i}`, t.a), assistant(t.a)] : [user(t.q), assistant(t.a)],
  );
}

test('property: any pure append is a patch', () => {
  fc.assert(
    fc.property(fc.array(turnArb, { maxLength: 6 }), fc.array(turnArb, { minLength: 1, maxLength: 3 }), (old, added) => {
      const messages = buildHistory(old);
      const appended = [...messages, ...buildHistory(added, 'new')];
      return guardRewrite({ tools, messages, boundary: messages.length }, { tools, messages: appended }).decision === 'patch';
    }),
  );
});

test('property: dropping exactly one member of any pair aborts', () => {
  fc.assert(
    fc.property(fc.array(turnArb, { minLength: 1, maxLength: 6 }), fc.nat(), fc.boolean(), fc.boolean(), (turns, pick, dropCall, endOnResult) => {
      const withTools = turns.map((t) => ({ ...t, tool: true }));
      const full = buildHistory(withTools);
      // Optionally end the window on the last result, so the last call sits at the frontier.
      const messages = endOnResult ? full.slice(0, -1) : full;
      const pair = pick % withTools.length;
      const dropped = messages.map((m, i) => (dropCall && i === pair * 4 + 1 ? assistant('calling') : m)).filter((_, i) => dropCall || i !== pair * 4 + 2);
      return guardRewrite({ tools, messages, boundary: messages.length }, { tools, messages: dropped }).decision === 'abort';
    }),
  );
});
