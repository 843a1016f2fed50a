/**
 * The fix planner on windows whose messages are read lazily (the stateless
 * guard's reading, formats/native-lazy.ts: a message's blocks and `elision`
 * are getters) plans what it plans on the same windows read whole.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FixPlan } from '../../src/core/results';
import { planFix } from '../../src/core/fix/plan';
import { lazyWindow } from '../../src/core/formats/native-lazy';
import { windowFromObject } from '../../src/core/formats/native-object';
import type { ContextWindow, Message, Rewrite } from '../../src/core/model';
import { RenderCache } from '../../src/core/render';

/** A message as plain data (a lazy message's fields are getters). */
const plainMessage = (m: Message) => ({ role: m.role, blocks: m.blocks, ...(m.elision && { elision: true }) });
const plainWindow = (w: ContextWindow) => ({ messages: w.messages.map(plainMessage), tools: w.tools, boundary: w.boundary });
const planData = (plan: FixPlan | undefined) => plan && { ...plan, window: plainWindow(plan.window) };

test('a fix planned on a lazily read window is the one planned on the window read whole: an elision message that loses a cut pair keeps its elision', () => {
  const summary = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'rows' }, { type: 'text', text: '[elided: 2 messages]' }], elision: true };
  const messages = [
    { role: 'user', content: 'Find the rows.' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'query_db', input: {} }] },
    summary,
    { role: 'assistant', content: 'Done.' },
  ];
  const window = { tools: [{ name: 'query_db', input_schema: { type: 'object' } }], messages, boundary: 4 };
  // The compaction drops the call and keeps its (consumed) result: it aborts.
  const proposal = { messages: [messages[0], summary, messages[3]] };

  const render = new RenderCache();
  const lazy = lazyWindow(window, render);
  assert.ok(lazy);
  const lazyRewrite: Rewrite = { source: 'compaction', before: lazy.window, after: windowFromObject(proposal, lazy.window, lazy.base, render), applied: true };
  const whole = windowFromObject(window, undefined, undefined, new RenderCache());
  const wholeRewrite: Rewrite = { source: 'compaction', before: whole, after: windowFromObject(proposal, whole, undefined, new RenderCache()), applied: true };

  const expected = planFix(wholeRewrite);
  assert.ok(expected, 'the rewrite aborts');
  assert.equal(expected.window.messages[1]?.elision, true, 'the summary, without the cut result, is still an elision message');
  assert.deepStrictEqual(planData(planFix(lazyRewrite)), planData(expected));
});
