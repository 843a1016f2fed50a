/**
 * createGuard: a sequence of checks, applies, appends and generates gives
 * exactly the verdicts (and windows) of the full path — judgeRewrite on
 * windows read from the same plain objects by the JSON-node reader — for
 * random proposals: appends, edits deep in the history and at the boundary,
 * registry changes, compactions that keep or cut pairs, re-renders with
 * another key order. Plus the plain-message reader against the node reader.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { createEngineContext } from '../../src/core/context';
import { proposalWindow, readWindowFields } from '../../src/core/formats/native-object';
import { parseMessage, parseMessages } from '../../src/core/formats/native-parse';
import { readPlainMessage } from '../../src/core/formats/native-plain';
import { createGuard, guardRewrite, judgeFully } from '../../src/core/guard';
import { fromValue } from '../../src/core/json/nodes';
import type { ContextWindow, RewriteSource } from '../../src/core/model';
import { RenderCache } from '../../src/core/render';

type Plain = Record<string, unknown>;
const ignore = () => undefined;

/** The full path: the JSON-node reader, a fresh engine context, judgeRewrite. */
const nodeWindow = (value: unknown, base?: ContextWindow): ContextWindow => proposalWindow(readWindowFields(fromValue(value), ignore), base, new RenderCache());
const nodeMessages = (messages: unknown[]) => parseMessages(fromValue(messages), ignore);

const ids = ['c1', 'c2', 'c3', 'c4', 'c5'];
const names = ['search', 'fetch', 'query_db'];
const idArb = fc.constantFrom(...ids);
const textArb = fc.constantFrom('', 'ok', 'Looking.', 'héllo ✓', '[elided: 4 messages]', 'line\nbreak');
const inputArb = fc.constantFrom<Plain>({ q: 'a', n: 1 }, { n: 1, q: 'a' }, { n: 1.0e0, q: 'a' }, { q: '{"x": 1}' }, { q: '{"x":1}' }, {});

/** A message in one of the native shapes: text, calls (tool_calls or tool_use blocks), results (tool messages or tool_result blocks). */
const messageArb: fc.Arbitrary<Plain> = fc.oneof(
  fc.record({ role: fc.constantFrom('user', 'assistant', 'system'), content: textArb }),
  fc.record({ role: fc.constant('assistant'), content: textArb, tool_calls: fc.array(fc.record({ id: idArb, name: fc.constantFrom(...names), input: inputArb }), { minLength: 1, maxLength: 2 }) }),
  fc.record({ role: fc.constant('tool'), tool_call_id: idArb, content: textArb }),
  fc.record({
    role: fc.constant('assistant'),
    content: fc.array(fc.oneof(fc.record({ type: fc.constant('text'), text: textArb }), fc.record({ type: fc.constant('tool_use'), id: idArb, name: fc.constantFrom(...names), input: inputArb, schema_version: fc.constantFrom('1', '2') })), { maxLength: 2 }),
  }),
  fc.record({ role: fc.constant('user'), content: fc.array(fc.record({ type: fc.constant('tool_result'), tool_use_id: idArb, content: textArb, is_error: fc.boolean() }), { minLength: 1, maxLength: 2 }) }),
  fc.record({ role: fc.constant('user'), content: textArb, elision: fc.constant(true) }),
);
const toolArb = fc.record({ name: fc.constantFrom(...names), version: fc.constantFrom('1', '2'), input_schema: fc.constant({ type: 'object' }) });

/** The same value with every object's keys in reverse order (same meaning, other bytes where a node keeps key order). */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reordered(v)]));
}

type Op =
  | { kind: 'append'; messages: Plain[]; withBoundary: boolean }
  | { kind: 'edit'; at: number; message: Plain; nearBoundary: boolean }
  | { kind: 'rerender'; at: number }
  | { kind: 'registry'; tools: Plain[] }
  | { kind: 'compact'; from: number; count: number; marker: boolean }
  | { kind: 'runtime-append' | 'generate'; messages: Plain[] };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('append' as const), messages: fc.array(messageArb, { minLength: 1, maxLength: 2 }), withBoundary: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('edit' as const), at: fc.nat(40), message: messageArb, nearBoundary: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rerender' as const), at: fc.nat(40) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('registry' as const), tools: fc.array(toolArb, { maxLength: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('compact' as const), from: fc.nat(40), count: fc.integer({ min: 1, max: 6 }), marker: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('runtime-append' as const, 'generate' as const), messages: fc.array(messageArb, { minLength: 1, maxLength: 2 }) }) },
);

/** The runtime's side: its plain window, and the proposal an op makes of it. */
function proposalOf(op: Op, state: { tools: Plain[]; messages: Plain[]; boundary: number }): Plain {
  const { messages, boundary } = state;
  const at = (n: number) => (messages.length ? n % messages.length : 0);
  switch (op.kind) {
    case 'append':
      return { messages: [...messages, ...op.messages], ...(op.withBoundary && { boundary }) };
    case 'edit': {
      const i = op.nearBoundary ? Math.max(0, Math.min(messages.length - 1, boundary - 1 + (op.at % 2))) : at(op.at);
      return { messages: messages.map((m, k) => (k === i ? op.message : m)) };
    }
    case 'rerender':
      return { messages: messages.map((m, k) => (k === at(op.at) ? (reordered(m) as Plain) : m)) };
    case 'registry':
      return { tools: op.tools, messages };
    case 'compact': {
      const from = at(op.from);
      const kept = [...messages.slice(0, from), ...messages.slice(from + op.count)];
      return { messages: op.marker ? [...kept, { role: 'user', content: '[elided: history]', elision: true }] : kept };
    }
    default:
      return { messages };
  }
}

const sources: RewriteSource[] = ['runtime', 'compaction', 'self_edit', 'policy'];

function runSequence(initial: { tools: Plain[]; messages: Plain[] }, boundary: number, ops: { op: Op; apply: boolean; source: number }[], tokens: false | 'o200k_base'): void {
  const runtime = { tools: initial.tools, messages: initial.messages, boundary: Math.min(boundary, initial.messages.length) };
  const guard = createGuard({ ...runtime, messages: [...runtime.messages] }, { tokens });
  let reference = nodeWindow(runtime);
  for (const { op, apply, source } of ops) {
    if (op.kind === 'runtime-append' || op.kind === 'generate') {
      if (op.kind === 'generate') guard.generate(op.messages);
      else guard.append(op.messages);
      const all = [...reference.messages, ...nodeMessages(op.messages)];
      reference = { ...reference, messages: all, boundary: op.kind === 'generate' ? all.length : reference.boundary };
      runtime.messages = [...runtime.messages, ...op.messages];
      runtime.boundary = reference.boundary;
    } else {
      const proposal = proposalOf(op, runtime);
      const options = { source: sources[source % sources.length] as RewriteSource };
      const after = nodeWindow(proposal, reference);
      const expected = judgeFully({ source: options.source, before: reference, after, applied: true }, { context: createEngineContext(tokens) });
      assert.deepStrictEqual(guard.check(proposal, options), expected, `${op.kind} checked`);
      assert.deepStrictEqual(guardRewrite(reference, proposal, { ...options, tokens }), expected, `${op.kind} stateless`);
      if (apply) {
        guard.apply(proposal);
        reference = after;
        runtime.tools = (proposal.tools as Plain[] | undefined) ?? runtime.tools;
        runtime.messages = proposal.messages as Plain[];
        runtime.boundary = after.boundary;
      }
    }
    assert.deepStrictEqual(guard.window, reference, `${op.kind}: the guard's window`);
  }
}

const sequenceArb = fc.record({
  tools: fc.array(toolArb, { maxLength: 3 }),
  messages: fc.array(messageArb, { maxLength: 12 }),
  boundary: fc.nat(14),
  ops: fc.array(fc.record({ op: opArb, apply: fc.oneof(fc.constant(true), fc.constant(true), fc.constant(false)), source: fc.nat(3) }), { minLength: 1, maxLength: 12 }),
});

test('a createGuard sequence gives exactly the verdicts of the full judge on the same pairs of windows', () => {
  fc.assert(
    fc.property(sequenceArb, ({ tools, messages, boundary, ops }) => runSequence({ tools, messages }, boundary, ops, false)),
    { numRuns: 300 },
  );
});

test('with token counts, the consumed and invalidated tokens are the full path\'s too', () => {
  fc.assert(
    fc.property(sequenceArb, ({ tools, messages, boundary, ops }) => runSequence({ tools, messages }, boundary, ops, 'o200k_base')),
    { numRuns: 60 },
  );
});

test('the plain-message reader reads what the JSON-node reader reads', () => {
  const anyMessage = fc.oneof(messageArb, fc.anything(), fc.record({ role: fc.constantFrom('user', 'tool', 'x'), content: fc.anything(), tool_calls: fc.anything(), tool_call_id: fc.anything(), elision: fc.anything() }));
  fc.assert(
    fc.property(anyMessage, (value) => {
      assert.deepStrictEqual(readPlainMessage(value), parseMessage(fromValue(value), undefined, ignore));
      assert.deepStrictEqual(readPlainMessage(reordered(value)), parseMessage(fromValue(reordered(value)), undefined, ignore));
    }),
    { numRuns: 1000 },
  );
});

test('a guard on a ContextWindow takes Message objects; a shared history is not walked again', () => {
  const window = nodeWindow({ tools: [{ name: 'search' }], messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }] });
  const guard = createGuard(window);
  const [next] = nodeMessages([{ role: 'user', content: 'more' }]);
  assert.ok(next);
  const proposal = { ...window, messages: [...window.messages, next] };
  const expected = judgeFully({ source: 'runtime', before: window, after: proposal, applied: true });
  assert.deepStrictEqual(guard.check(proposal), expected);
  assert.equal(guard.window, window, 'check leaves the guard unchanged');
  guard.generate([next]);
  assert.equal(guard.window.boundary, 3);
  assert.equal(guard.window.messages[2], next);
});

/**
 * Model mode, every format's positional rule: windows read as native and
 * relabelled (the rules read only the format, liveness and messages), and
 * proposals that extend the current window with the same Message objects (the
 * shortcut) or replace some of them (the full judge).
 */
test('on every format, live or not, extensions with calls and results give the full path\'s verdicts', () => {
  const formats = ['native', 'anthropic', 'openai-chat', 'openai-responses', 'gemini', 'bedrock', 'claude-code'] as const;
  const arb = fc.record({
    format: fc.constantFrom(...formats),
    live: fc.boolean(),
    start: fc.array(messageArb, { maxLength: 10 }),
    boundary: fc.nat(12),
    steps: fc.array(fc.record({ added: fc.array(messageArb, { minLength: 1, maxLength: 3 }), edit: fc.option(fc.nat(20)), apply: fc.boolean(), boundary: fc.option(fc.nat(30)) }), { minLength: 1, maxLength: 8 }),
  });
  fc.assert(
    fc.property(arb, ({ format, live, start, boundary, steps }) => {
      const read = nodeWindow({ tools: [{ name: 'search', version: '2' }], messages: start, boundary: Math.min(boundary, start.length) });
      let current: ContextWindow = { ...read, format, live };
      const guard = createGuard(current);
      for (const step of steps) {
        const added = nodeMessages(step.added);
        let messages = [...current.messages, ...added];
        if (step.edit !== null && current.messages.length) {
          const at = step.edit % current.messages.length;
          messages = messages.map((m, i) => (i === at ? { ...m, blocks: [...m.blocks] } : m));
        }
        const proposal: ContextWindow = { ...current, messages, boundary: Math.min(step.boundary ?? current.boundary, messages.length) };
        const expected = judgeFully({ source: 'runtime', before: current, after: proposal, applied: true }, { context: createEngineContext(false) });
        assert.deepStrictEqual(guard.check(proposal), expected);
        if (step.apply) {
          guard.apply(proposal);
          current = proposal;
        } else {
          guard.generate(added);
          current = { ...current, messages: [...current.messages, ...added], boundary: current.messages.length + added.length };
        }
        assert.deepStrictEqual(guard.window, current);
      }
    }),
    { numRuns: 400 },
  );
});
