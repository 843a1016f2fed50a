/**
 * The stateless guard takes a cut's kept run from the proposal's reading
 * (`windowFromObject`'s `messageRuns`): elements the reader skips inside the
 * kept messages (not messages) join the runs on both sides of them, as the
 * messages read are one run. Checked against the full judge on random cuts
 * with such elements inside, before and after the kept messages.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { createEngineContext } from '../../src/core/context';
import { fromValue } from '../../src/core/json/nodes';
import { plainBaseOf, proposalWindow, readWindowFields, windowFromObject, type ReadRun } from '../../src/core/formats/native-object';
import { guardRewrite, judgeFully } from '../../src/core/guard';
import type { ContextWindow } from '../../src/core/model';
import { RenderCache } from '../../src/core/render';

const nodeWindow = (value: unknown, base?: ContextWindow): ContextWindow => proposalWindow(readWindowFields(fromValue(value), () => undefined), base, new RenderCache());

const idArb = fc.constantFrom('c1', 'c2', 'c3', 'c4');
const messageArb = fc.oneof(
  fc.record({ role: fc.constantFrom('user', 'assistant'), content: fc.constantFrom('ok', 'done', 'ok') }),
  idArb.map((id) => ({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'search', input: {} }] })),
  idArb.map((id) => ({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'rows' }] })),
);
/** Elements the reader skips (not messages). */
const skippedArb = fc.constantFrom<unknown>(null, 42, 'text', { content: 'no role' }, [1]);

const caseArb = fc.record({
  messages: fc.array(messageArb, { minLength: 2, maxLength: 24 }),
  boundary: fc.nat(24),
  from: fc.nat(24),
  head: fc.array(fc.oneof(messageArb, skippedArb), { maxLength: 2 }),
  // Where skipped elements go among the kept messages (an index into them) and which.
  inside: fc.array(fc.tuple(fc.nat(24), skippedArb), { minLength: 1, maxLength: 3 }),
  marker: fc.boolean(),
});

test('a cut with skipped elements among its kept messages gets the full judge verdict', () => {
  fc.assert(
    fc.property(caseArb, ({ messages, boundary, from, head, inside, marker }) => {
      const window = { tools: [{ name: 'search' }], messages, boundary: Math.min(boundary, messages.length) };
      const kept: unknown[] = messages.slice(from % messages.length);
      for (const [at, element] of inside) kept.splice(at % (kept.length + 1), 0, element);
      const proposal = { messages: [...head, ...kept, ...(marker ? [{ role: 'user', content: '[elided: history]', elision: true }] : [])] };
      const before = nodeWindow(window);
      const expected = judgeFully({ source: 'runtime', before, after: nodeWindow(proposal, before), applied: true }, { context: createEngineContext(false) });
      assert.deepStrictEqual(guardRewrite(window, proposal), expected);
    }),
    { numRuns: 3000 },
  );
});

test('the runs a reading reuses go over skipped elements and stop where the base\'s order does', () => {
  const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((text) => ({ role: 'user', content: text }));
  const plain = { messages: [a, b, c, d] };
  const window = windowFromObject(plain);
  const reused: { runs?: ReadRun[] } = {};
  const read = windowFromObject({ messages: [{ role: 'user', content: 'new' }, b, null, c, 7, a, b] }, window, plainBaseOf(plain, window), undefined, undefined, reused);
  assert.deepStrictEqual(reused.runs, [
    { start: 1, from: 1, length: 2 },
    { start: 3, from: 0, length: 2 },
  ]);
  assert.deepStrictEqual(read.messages.slice(1), [window.messages[1], window.messages[2], window.messages[0], window.messages[1]]);
});
