/**
 * Boundary positions computed from the window a window extends
 * (src/core/boundary.ts) against the whole layout of each window: every
 * step's `boundary` (messages, rendered offset, consumed tokens) of the
 * corpus files and of random request logs whose requests keep, edit, drop or
 * re-render the history and change the registry.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import fc from 'fast-check';
import { checkTranscript } from '../../src/core/check';
import { createEngineContext } from '../../src/core/context';
import { inputFromText } from '../../src/core/io';
import { BoundaryPositions } from '../../src/core/boundary';
import type { ContextWindow, Message } from '../../src/core/model';
import { RenderCache, windowLayout } from '../../src/core/render';
import type { BoundaryPosition } from '../../src/core/results';
import { recognisedCorpusFiles } from './provider-helpers';

const counter = createEngineContext('o200k_base').tokens!;

/** The position from the whole layout of the window, as the engine computed it before positions were extended. */
function fullPosition(window: ContextWindow): BoundaryPosition {
  const layout = windowLayout(window);
  const consumed = Math.min(window.boundary, layout.messageTexts.length);
  const count = (texts: readonly string[]) => texts.reduce((n, t) => n + counter.count(t), 0);
  const tokens = consumed <= 0 ? 0 : count(layout.toolTexts) + count(layout.messageTexts.slice(0, consumed));
  return { messages: consumed, offset: layout.boundaryOffset, tokens };
}

function samePositions(file: string, text: string): number {
  const report = checkTranscript(inputFromText(file, text), { keepRewrites: true });
  for (const step of report.steps) assert.deepEqual(step.boundary, fullPosition(step.rewrite!.before), `${file} step ${step.index}`);
  return report.steps.length;
}

test('every step of every corpus file: the boundary of the whole layout', () => {
  let steps = 0;
  for (const { file, text } of recognisedCorpusFiles()) steps += samePositions(file, text);
  assert.ok(steps > 20, `${steps} steps`);
});

type Json = Record<string, unknown>;
type Edit = 'keep' | 'edit-deep' | 'edit-last' | 'drop-first' | 'reorder-keys' | 'tools';

/** An Anthropic request log of `edits.length` requests; `edits[i]` changes request i's history. */
function requestLog(edits: readonly Edit[]): string {
  const messages: Json[] = [{ role: 'user', content: 'Count the rows, please.' }];
  const tools: Json[] = [{ name: 'q', input_schema: { type: 'object' } }];
  return edits
    .map((edit, i) => {
      const content = [{ type: 'text', text: `turn ${i} ünïcode 数据` }, { type: 'tool_use', id: `t${i}`, name: 'q', input: { sql: `select ${i}` } }];
      let shown = messages.slice();
      if (edit === 'edit-deep' && shown.length > 2) shown[1] = { role: 'assistant', content: 'rewritten' };
      if (edit === 'edit-last' && shown.length > 1) shown[shown.length - 1] = { role: 'user', content: 'changed' };
      if (edit === 'drop-first' && shown.length > 2) shown = shown.slice(2);
      if (edit === 'reorder-keys') shown = shown.map((m) => ({ content: m.content, role: m.role }));
      const request = { model: 'claude', system: 'Be careful.', tools: edit === 'tools' ? [...tools, { name: 'r', input_schema: {} }] : tools, messages: shown };
      messages.push({ role: 'assistant', content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: `rows ${i}` }] });
      return JSON.stringify({ request, response: { type: 'message', role: 'assistant', content } });
    })
    .join('\n');
}

test('property: random request logs: every step has the boundary of the whole layout', () => {
  const edit = fc.constantFrom<Edit>('keep', 'keep', 'keep', 'edit-deep', 'edit-last', 'drop-first', 'reorder-keys', 'tools');
  fc.assert(
    fc.property(fc.array(edit, { minLength: 2, maxLength: 12 }), (edits) => {
      samePositions('log.jsonl', requestLog(edits));
    }),
    { numRuns: 100 },
  );
});

test('the positions keep the last window measured as its messages and tools, not the window (a consumed window holds its request window besides)', async () => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const positions = new BoundaryPositions(new RenderCache(), undefined);
  const messages: Message[] = [{ role: 'user', blocks: [{ kind: 'text', text: 'hi' }] }];
  let window: ContextWindow | undefined = { format: 'anthropic', messages, tools: [], boundary: 1, live: false } as unknown as ContextWindow;
  const position = positions.of(window, () => fullPosition(window!));
  const held = new WeakRef(window);
  window = undefined;
  // A WeakRef keeps its target until the job that made it ends.
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  assert.equal(held.deref(), undefined, 'the window is let go');
  // Still extended from it: a window with one more message.
  const next = { format: 'anthropic', messages: [...messages, { role: 'assistant', blocks: [{ kind: 'text', text: 'hello' }] }], tools: [], boundary: 2, live: false } as unknown as ContextWindow;
  const extended = positions.of(next, () => assert.fail('extended, not computed again'));
  const full = fullPosition(next);
  assert.deepEqual([extended.messages, extended.offset], [full.messages, full.offset]);
  assert.equal(position.messages, 1);
});
