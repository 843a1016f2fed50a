/**
 * A compaction judged on what it cuts (cut-step.ts) gives exactly the full
 * judge's verdict: random windows of native messages (calls and results with
 * few ids, so pairs are cut, reused, duplicated and orphaned; empty ids;
 * elision markers) against proposals that keep one run of them (the same
 * message objects, shifted) with new messages before and after it, any
 * boundary, live or not, any source.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { createEngineContext } from '../../src/core/context';
import { judgeCut } from '../../src/core/cut-step';
import { windowFromObject } from '../../src/core/formats/native-object';
import { judgeFully, stepVerdict } from '../../src/core/guard';
import type { ContextWindow, Rewrite, RewriteSource } from '../../src/core/model';

type Plain = Record<string, unknown>;

const idArb = fc.constantFrom('c1', 'c2', 'c3', 'c4', 'c5', 'c6', '');
const nameArb = fc.constantFrom('search', 'fetch');
const textArb = fc.constantFrom('ok', 'Looking.', '[elided: 3 messages]', 'done');
const messageArb: fc.Arbitrary<Plain> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ role: fc.constantFrom('user', 'assistant'), content: textArb }) },
  { weight: 3, arbitrary: fc.record({ role: fc.constant('assistant'), content: fc.array(fc.record({ type: fc.constant('tool_use'), id: idArb, name: nameArb, input: fc.constant({ q: 'x' }), schema_version: fc.constantFrom('1', '2') }), { minLength: 1, maxLength: 2 }) }) },
  { weight: 3, arbitrary: fc.record({ role: fc.constant('user'), content: fc.array(fc.record({ type: fc.constant('tool_result'), tool_use_id: idArb, content: textArb }), { minLength: 1, maxLength: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ role: fc.constant('user'), content: textArb, elision: fc.constant(true) }) },
);
const toolsArb = fc.constantFrom<Plain[]>([], [{ name: 'search', version: '1' }], [{ name: 'search', version: '2' }, { name: 'fetch' }]);

const caseArb = fc.record({
  tools: toolsArb,
  messages: fc.array(messageArb, { minLength: 1, maxLength: 24 }),
  boundary: fc.nat(30),
  from: fc.nat(24),
  to: fc.nat(24),
  head: fc.array(messageArb, { maxLength: 2 }),
  tail: fc.array(messageArb, { maxLength: 2 }),
  afterBoundary: fc.option(fc.nat(30)),
  live: fc.boolean(),
  source: fc.constantFrom<RewriteSource>('runtime', 'compaction', 'self_edit'),
});

type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

/** The before window and the proposal: a run of its own message objects with new messages around it. */
function rewriteOf(c: Case): Rewrite {
  const read = windowFromObject({ tools: c.tools, messages: c.messages, boundary: Math.min(c.boundary, c.messages.length) });
  const before: ContextWindow = { ...read, live: c.live };
  const [from, to] = [Math.min(c.from, c.to) % before.messages.length, Math.max(c.from, c.to) + 1];
  const fresh = (list: Plain[]) => windowFromObject({ messages: list }).messages;
  const messages = [...fresh(c.head), ...before.messages.slice(from, to), ...fresh(c.tail)];
  const boundary = Math.min(c.afterBoundary ?? messages.length, messages.length);
  return { source: c.source, before, after: { ...before, messages, boundary }, applied: true };
}

test('a cut judged on what it cuts gives the full judge verdict', () => {
  let judged = 0;
  let runs = 0;
  fc.assert(
    fc.property(caseArb, (c) => {
      runs++;
      const rewrite = rewriteOf(c);
      const context = createEngineContext(false);
      const cut = judgeCut(rewrite, context);
      if (!cut) return;
      judged++;
      assert.deepStrictEqual(stepVerdict(cut.analysis, cut.introduced, context), judgeFully(rewrite, { context: createEngineContext(false) }));
    }),
    { numRuns: 4000, seed: 15 },
  );
  // Most cases are cuts the fast path takes (the rest: an empty id, a short run).
  assert.ok(judged > runs / 3, `judged ${judged} of ${runs}`);
});

test('with a window already judged (its pair index, renders and findings known), the verdict is the same', () => {
  let judged = 0;
  let runs = 0;
  fc.assert(
    fc.property(caseArb, (c) => {
      runs++;
      const rewrite = rewriteOf(c);
      const context = createEngineContext(false);
      judgeFully({ ...rewrite, after: rewrite.before }, { context });
      const cut = judgeCut(rewrite, context);
      if (!cut) return;
      judged++;
      assert.deepStrictEqual(stepVerdict(cut.analysis, cut.introduced, context), judgeFully(rewrite, { context: createEngineContext(false) }));
    }),
    { numRuns: 1000, seed: 15 },
  );
  assert.ok(judged > runs / 3, `judged ${judged} of ${runs}`);
});
