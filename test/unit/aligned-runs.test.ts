/**
 * Alignments held as runs (align.ts `RunAlignment`): the rules that walk the
 * runs (the prefix changes, `elision-unmarked`, `pair-straddled`'s
 * `sameOrigin`) give what the per-message definition gives on the alignment's
 * arrays, on random rewrites whose after window keeps the before window's
 * message objects (cut, shifted, repeated) among new ones, elision markers
 * and any boundaries.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { alignedRuns, alignFound, alignMessages, indexedFinder, MODIFIED, RunAlignment, SAME, sameOrigin, textIndex } from '../../src/core/align';
import { analyseRewrite, type RewriteAnalysis } from '../../src/core/analysis';
import { createEngineContext } from '../../src/core/context';
import { windowFromObject } from '../../src/core/formats/native-object';
import type { ContextWindow, Message } from '../../src/core/model';
import { prefixChanges } from '../../src/core/rules/prefix-changes';
import { checkElisionUnmarked } from '../../src/core/rules/elision-unmarked';

const textArb = fc.constantFrom('a', 'b', 'c', '[elided: 2 messages]');
const plainArb = fc.oneof(
  { weight: 4, arbitrary: fc.record({ role: fc.constantFrom('user', 'assistant'), content: textArb }) },
  { weight: 1, arbitrary: fc.record({ role: fc.constant('user'), content: textArb, elision: fc.constant(true) }) },
);

const caseArb = fc.record({
  before: fc.array(plainArb, { minLength: 1, maxLength: 20 }),
  // An after message: a before message (its object) by index, or a new one.
  picks: fc.array(fc.oneof(fc.nat(24), plainArb), { maxLength: 24 }),
  boundary: fc.nat(24),
  afterBoundary: fc.nat(24),
});

type Case = { before: object[]; picks: (number | object)[]; boundary: number; afterBoundary: number };

function rewriteOf({ before, picks, boundary, afterBoundary }: Case): RewriteAnalysis {
  const window: ContextWindow = { ...windowFromObject({ messages: before }), boundary: Math.min(boundary, before.length) };
  const messages = picks.map((p) => (typeof p === 'number' ? window.messages[p % window.messages.length] : windowFromObject({ messages: [p] }).messages[0]) as Message);
  const after: ContextWindow = { ...window, messages, boundary: Math.min(afterBoundary, messages.length) };
  return analyseRewrite({ source: 'runtime', before: window, after, applied: true }, createEngineContext(false));
}

/** The prefix changes from the alignment's arrays, message by message (the definition). */
function definedChanges(a: RewriteAnalysis): object[] {
  const { afterKind, beforeFate, afterOrigin } = a.alignment;
  const consumed = Math.min(a.rewrite.before.boundary, beforeFate.length);
  const changes: Record<string, unknown>[] = [];
  let lastRetained = -1;
  for (let j = 0; j < consumed; j++) {
    const i = beforeFate[j] as number;
    if (i >= 0) {
      lastRetained = Math.max(lastRetained, i);
      if (afterKind[i] === MODIFIED) changes.push({ kind: 'message-modified', before: j, after: i });
      continue;
    }
    let to = j;
    while (to < consumed && (beforeFate[to] as number) < 0) to++;
    const next = [...beforeFate.subarray(to)].find((k) => k >= 0) ?? -1;
    changes.push({ kind: 'messages-removed', from: j, to, nextAfter: next });
    j = to - 1;
  }
  const removed = changes.some((c) => c.kind === 'messages-removed');
  for (let i = 0; i < lastRetained; i++) {
    if ((afterOrigin[i] as number) >= 0 || (removed && a.rewrite.after.messages[i]?.elision)) continue;
    changes.push({ kind: 'message-inserted', after: i });
  }
  return changes;
}

/** `elision-unmarked`'s decision and count from the arrays: consumed messages removed and no marker after the last retained one (or a marker standing for no message). */
function definedElision(a: RewriteAnalysis): number {
  const { beforeFate, afterOrigin } = a.alignment;
  const consumed = Math.min(a.rewrite.before.boundary, beforeFate.length);
  const removed = [...beforeFate.subarray(0, consumed)].filter((i) => i < 0).length;
  if (!removed) return 0;
  let lastRetained = afterOrigin.length - 1;
  while (lastRetained >= 0 && !((afterOrigin[lastRetained] as number) >= 0 && (afterOrigin[lastRetained] as number) < consumed)) lastRetained--;
  const after = a.rewrite.after.messages;
  const marker = (m: Message) => m.elision || (m.blocks[0]?.kind === 'text' && m.blocks[0].text.startsWith('[elided'));
  if (after.slice(lastRetained + 1).some(marker)) return 0;
  if (after.some((m, i) => (afterOrigin[i] as number) < 0 && m.elision)) return 0;
  return removed;
}

test('prefix changes walked by runs are the per-message changes', () => {
  fc.assert(
    fc.property(caseArb, (c) => {
      const a = rewriteOf(c);
      // The cause of a modified message is the render difference, the same either way.
      const shown = (change: object) => JSON.stringify({ ...change, cause: undefined });
      assert.deepStrictEqual(prefixChanges(a).map(shown), (a.prefixIntact ? [] : definedChanges(a)).map(shown));
    }),
    { numRuns: 3000 },
  );
});

test('elision-unmarked walked by runs counts and decides as the per-message definition', () => {
  fc.assert(
    fc.property(caseArb, (c) => {
      const a = rewriteOf(c);
      const removed = definedElision(a);
      const found = checkElisionUnmarked(a);
      assert.equal(found.length, removed ? 1 : 0);
      if (removed) assert.match(found[0]?.message ?? '', new RegExp(`^${removed} consumed message`));
    }),
    { numRuns: 3000 },
  );
});

test('a run alignment answers sameOrigin and its runs as its arrays do', () => {
  fc.assert(
    fc.property(caseArb, (c) => {
      const alignment = rewriteOf(c).alignment;
      assert.ok(alignment instanceof RunAlignment);
      const { afterOrigin, afterKind } = alignment.materialized();
      for (let i = 0; i < afterOrigin.length; i++) {
        for (let j = -1; j <= alignment.beforeLength; j++) assert.equal(sameOrigin(alignment, i, j), afterOrigin[i] === j && afterKind[i] === SAME);
      }
      // The runs read back from the arrays are the runs held (runs are merged when they continue each other).
      assert.deepStrictEqual(alignedRuns(alignment.materialized()), alignedRuns(alignment));
    }),
    { numRuns: 1000 },
  );
});

test('a run the caller names (sides.run) is matched in place as the texts align', () => {
  const msgArb = fc.record({ role: fc.constantFrom('user', 'assistant'), text: fc.constantFrom('a', 'b', 'c') });
  const cutArb = fc.array(msgArb, { minLength: 1, maxLength: 20 }).chain((before) =>
    fc.record({ before: fc.constant(before), from: fc.nat(before.length - 1), length: fc.nat(before.length), head: fc.array(msgArb, { maxLength: 3 }), tail: fc.array(msgArb, { maxLength: 3 }) }),
  );
  fc.assert(
    fc.property(cutArb, ({ before, from, length, head, tail }) => {
      const kept = before.slice(from, from + Math.max(1, length));
      const after = [...head, ...kept, ...tail];
      const texts = (list: readonly { text: string }[]) => list.map((m) => m.text);
      const roles = { before: before.map((m) => m.role), after: after.map((m) => m.role) };
      const sides = {
        afterLength: after.length,
        afterText: (i: number) => (after[i] as { text: string }).text,
        shared: { before, after },
        sameRole: (j: number, i: number) => before[j]?.role === after[i]?.role,
        run: { start: head.length, from, length: kept.length },
      };
      const found = alignFound(before.length, indexedFinder(textIndex(texts(before)), sides.afterText), sides);
      assert.deepStrictEqual(found.materialized(), alignMessages(texts(before), texts(after), roles));
    }),
    { numRuns: 3000 },
  );
});
