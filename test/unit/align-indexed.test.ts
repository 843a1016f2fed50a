/**
 * Aligning against an indexed before window, matching messages the after
 * window shares by object without rendering them, gives exactly the
 * alignment of the rendered texts: checked against a naive greedy matcher
 * (quadratic, written from the definition) on random windows with shared
 * messages, duplicates, cuts and insertions.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { alignIndexed, alignMessages, INSERTED, MODIFIED, SAME, textIndex, type Alignment } from '../../src/core/align';

type Msg = { readonly role: string; readonly text: string };

/** The definition: each after message takes the first before message at or after the last match with its text; gaps of equal length whose roles agree are modified. */
function naive(before: readonly Msg[], after: readonly Msg[]): Alignment {
  const afterOrigin = new Int32Array(after.length).fill(-1);
  const afterKind = new Uint8Array(after.length).fill(INSERTED);
  const beforeFate = new Int32Array(before.length).fill(-1);
  const anchors: [number, number][] = [];
  let next = 0;
  after.forEach((m, i) => {
    const j = before.findIndex((b, k) => k >= next && b.text === m.text);
    if (j < 0) return;
    anchors.push([i, j]);
    next = j + 1;
  });
  for (const [i, j] of anchors) [afterOrigin[i], afterKind[i], beforeFate[j]] = [j, SAME, i];
  let [pi, pj] = [-1, -1];
  for (const [i, j] of [...anchors, [after.length, before.length] as [number, number]]) {
    const i1 = i === after.length ? Math.min(i, pi + 1 + j - pj - 1) : i;
    const [i0, j0] = [pi + 1, pj + 1];
    const fits = i1 - i0 === j - j0 && i1 > i0 && after.slice(i0, i1).every((m, k) => m.role === before[j0 + k]?.role);
    if (fits) for (let k = 0; k < i1 - i0; k++) [afterOrigin[i0 + k], afterKind[i0 + k], beforeFate[j0 + k]] = [j0 + k, MODIFIED, i0 + k];
    [pi, pj] = [i, j];
  }
  return { afterOrigin, afterKind, beforeFate };
}

const msgArb: fc.Arbitrary<Msg> = fc.record({ role: fc.constantFrom('user', 'assistant'), text: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f') });

/** An after window made of the before window's own objects (kept, cut, shifted, repeated) and new ones. */
const casesArb = fc.array(msgArb, { maxLength: 30 }).chain((before) =>
  fc.record({
    before: fc.constant(before),
    after: fc.array(fc.oneof(fc.nat(before.length + 5).map((k) => before[k] ?? { role: 'user', text: 'a' }), msgArb), { maxLength: 30 }),
  }),
);

/** The common shapes: a run of the before window (cut at both ends) with new messages around it. */
const cutsArb = fc.array(msgArb, { maxLength: 30 }).chain((before) =>
  fc.record({
    before: fc.constant(before),
    from: fc.nat(before.length),
    to: fc.nat(before.length),
    head: fc.array(msgArb, { maxLength: 2 }),
    tail: fc.array(msgArb, { maxLength: 2 }),
  }),
);

function check(before: readonly Msg[], after: readonly Msg[]): void {
  const expected = naive(before, after);
  const roles = { before: before.map((m) => m.role), after: after.map((m) => m.role) };
  assert.deepStrictEqual(alignMessages(before.map((m) => m.text), after.map((m) => m.text), roles), expected);
  const indexed = alignIndexed(textIndex(before.map((m) => m.text)), {
    afterLength: after.length,
    afterText: (i) => (after[i] as Msg).text,
    sameMessage: (i, j) => after[i] === before[j],
    sameRole: (j, i) => before[j]?.role === after[i]?.role,
  });
  assert.deepStrictEqual(indexed, expected);
}

test('alignIndexed with shared messages gives the alignment of the texts', () => {
  fc.assert(fc.property(casesArb, ({ before, after }) => check(before, after)), { numRuns: 2000 });
});

test('cuts of the before window with new messages around them align as their texts do', () => {
  fc.assert(
    fc.property(cutsArb, ({ before, from, to, head, tail }) => check(before, [...head, ...before.slice(Math.min(from, to), Math.max(from, to)), ...tail])),
    { numRuns: 2000 },
  );
});
