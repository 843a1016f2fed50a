/**
 * Stateless `guardRewrite` on plain objects reads the window lazily
 * (formats/native-lazy.ts) and must give exactly `judgeFully`'s verdict on
 * the windows the JSON-node reader reads from the same objects: random plain
 * windows (every native message shape, few ids so pairs are reused, cut and
 * orphaned, equal texts so the alignment has choices, hostile parts and
 * messages) against proposals that share their message objects as a runtime's
 * do: appends, deep and boundary edits, key-order re-renders, equal objects
 * that are not the same, registry changes, compactions that cut or keep pairs.
 * Plus the plain readers the lazy window relies on, and that it is lazy.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { createEngineContext } from '../../src/core/context';
import { proposalWindow, readWindowFields } from '../../src/core/formats/native-object';
import { plainFirstText, plainRole, readPlainMessage } from '../../src/core/formats/native-plain';
import { createGuard, guardRewrite, judgeFully } from '../../src/core/guard';
import { fromValue } from '../../src/core/json/nodes';
import type { ContextWindow, RewriteSource } from '../../src/core/model';
import { RenderCache } from '../../src/core/render';

type Plain = Record<string, unknown>;
const ignore = () => undefined;

/** The full path: the JSON-node reader, a fresh engine context, the full judge. */
const nodeWindow = (value: unknown, base?: ContextWindow): ContextWindow => proposalWindow(readWindowFields(fromValue(value), ignore), base, new RenderCache());

const idArb = fc.constantFrom('c1', 'c2', 'c3', 'c4', '__proto__', 'constructor');
const nameArb = fc.constantFrom('search', 'fetch', 'query_db');
const textArb = fc.constantFrom('ok', 'Looking.', 'done', '[elided: 3 messages]', 'héllo ✓');
const inputArb = fc.constantFrom<Plain>({ q: 'a', n: 1 }, { n: 1, q: 'a' }, {});
const textPart = fc.oneof(textArb, fc.record({ type: fc.constant('text'), text: textArb }));
const callPart = fc.record({ type: fc.constant('tool_use'), id: idArb, name: nameArb, input: inputArb, schema_version: fc.constantFrom('1', '2') }, { requiredKeys: ['type', 'id', 'name', 'input'] });
const resultPart = fc.record({ type: fc.constant('tool_result'), tool_use_id: idArb, content: textArb, is_error: fc.boolean() }, { requiredKeys: ['type', 'tool_use_id', 'content'] });
/** Parts the reader keeps as opaque or skips, some mentioning ids it does not read as blocks. */
const oddPart = fc.oneof(
  fc.constant({ type: 'image', source: { data: 'x' } }),
  fc.record({ type: fc.constant('tool_use'), id: idArb }),
  fc.record({ type: fc.constant('text'), text: fc.constant(3) }),
  fc.constant(null),
  fc.constant({ text: 'no type' }),
);

const messageArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ role: fc.constantFrom('user', 'assistant', 'system'), content: textArb }) },
  { weight: 3, arbitrary: fc.record({ role: fc.constantFrom('user', 'assistant'), content: fc.array(textPart, { minLength: 1, maxLength: 2 }) }) },
  { weight: 3, arbitrary: fc.record({ role: fc.constant('assistant'), content: fc.array(fc.oneof(textPart, callPart), { minLength: 1, maxLength: 2 }) }) },
  { weight: 2, arbitrary: fc.record({ role: fc.constant('assistant'), content: textArb, tool_calls: fc.array(fc.record({ id: idArb, name: nameArb, arguments: fc.constant('{}') }), { minLength: 1, maxLength: 2 }) }) },
  { weight: 3, arbitrary: fc.record({ role: fc.constant('user'), content: fc.array(resultPart, { minLength: 1, maxLength: 2 }) }) },
  { weight: 2, arbitrary: fc.record({ role: fc.constant('tool'), tool_call_id: idArb, content: fc.oneof(textArb, fc.array(callPart, { maxLength: 1 })) }) },
  { weight: 1, arbitrary: fc.record({ role: fc.constant('user'), content: textArb, elision: fc.constant(true) }) },
  { weight: 1, arbitrary: fc.record({ role: fc.constantFrom('user', 'assistant'), content: fc.array(fc.oneof(oddPart, textPart, callPart, resultPart), { minLength: 1, maxLength: 3 }) }) },
);

/** Rarely: what the reader skips or reads another way (not a message, an empty id, a role not its own enumerable property). */
const hostileArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.anything(),
  fc.record({ role: fc.constant('assistant'), content: fc.array(fc.record({ type: fc.constant('tool_use'), id: fc.constant(''), name: nameArb, input: inputArb }), { minLength: 1, maxLength: 1 }) }),
  textArb.map((text) => Object.defineProperty({ content: text }, 'role', { value: 'user', enumerable: false })),
  textArb.map((text) => Object.assign(Object.create({ role: 'user' }) as object, { content: text })),
  textArb.map((text) => Object.defineProperty(Object.assign(Object.create({ role: 'user' }) as object, { content: text }), 'role', { value: 'user', enumerable: false })),
  // Ids the reader does not read (inherited or not enumerable) but the ids pass lists: a wider superset, the same verdict.
  idArb.map((id) => Object.assign(Object.create({ tool_calls: [{ id, name: 'search', arguments: '{}' }] }) as object, { role: 'assistant', content: 'ok' })),
  idArb.map((id) => Object.defineProperty({ role: 'assistant' }, 'content', { value: [{ type: 'tool_use', id, name: 'search', input: {} }], enumerable: false })),
  idArb.map((id) => ({ role: 'user', content: [Object.assign(Object.create({ type: 'tool_result' }) as object, { tool_use_id: id, content: 'rows' })] })),
  fc.constant(Object.assign(Object.create({ tool_call_id: '' }) as object, { role: 'tool', content: 'ok' })),
);
const anyMessageArb = fc.oneof({ weight: 30, arbitrary: messageArb }, { weight: 1, arbitrary: hostileArb });
const toolArb = fc.record({ name: nameArb, version: fc.constantFrom('1', '2'), input_schema: fc.constant({ type: 'object' }) });

/** The same value with every object's keys in reverse order (same meaning, other bytes). */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reordered(v)]));
}

/** An equal plain object that is not the same object (where the value is plain data). */
function copied(value: unknown): unknown {
  try {
    return structuredClone(value);
  } catch {
    return value;
  }
}

type Op =
  | { kind: 'append'; messages: unknown[] }
  | { kind: 'edit'; at: number; message: unknown; nearBoundary: boolean }
  | { kind: 'rerender' | 'copy'; at: number }
  | { kind: 'copy-all' }
  | { kind: 'registry'; tools: Plain[] }
  | { kind: 'same-registry' }
  | { kind: 'cut'; from: number; count: number; head: unknown[]; tail: unknown[]; marker: boolean };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('append' as const), messages: fc.array(anyMessageArb, { maxLength: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('edit' as const), at: fc.nat(40), message: anyMessageArb, nearBoundary: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('rerender' as const, 'copy' as const), at: fc.nat(40) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('copy-all' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('registry' as const), tools: fc.array(toolArb, { maxLength: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('same-registry' as const) }) },
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('cut' as const), from: fc.nat(40), count: fc.integer({ min: 1, max: 12 }), head: fc.array(anyMessageArb, { maxLength: 2 }), tail: fc.array(anyMessageArb, { maxLength: 2 }), marker: fc.boolean() }),
  },
);

/** The proposal an op makes of the runtime's plain window (its message objects shared). */
function proposalOf(op: Op, window: { tools: Plain[]; messages: unknown[]; boundary: number }): Plain {
  const { messages, boundary } = window;
  const at = (n: number) => (messages.length ? n % messages.length : 0);
  const replaced = (i: number, message: unknown) => messages.map((m, k) => (k === i ? message : m));
  switch (op.kind) {
    case 'append':
      return { messages: [...messages, ...op.messages], boundary };
    case 'edit':
      return { messages: replaced(op.nearBoundary ? Math.max(0, Math.min(messages.length - 1, boundary - 1)) : at(op.at), op.message) };
    case 'rerender':
      return { messages: replaced(at(op.at), reordered(messages[at(op.at)])) };
    case 'copy':
      return { messages: replaced(at(op.at), copied(messages[at(op.at)])) };
    case 'copy-all':
      return copied(window) as Plain;
    case 'registry':
      return { tools: op.tools, messages };
    case 'same-registry':
      return { tools: copied(window.tools), messages };
    case 'cut': {
      const from = at(op.from);
      const kept = [...op.head, ...messages.slice(from, from + op.count), ...op.tail];
      const marker = { role: 'user', content: '[elided: history]', elision: true };
      return { messages: op.marker ? [...kept, marker] : kept };
    }
  }
}

const sources: RewriteSource[] = ['runtime', 'compaction', 'self_edit', 'policy'];

const caseArb = fc.record({
  tools: fc.array(toolArb, { maxLength: 3 }),
  messages: fc.array(anyMessageArb, { maxLength: 30 }),
  boundary: fc.option(fc.nat(32)),
  op: opArb,
  withBoundary: fc.option(fc.nat(34)),
  source: fc.constantFrom(...sources),
});

function check({ tools, messages, boundary, op, withBoundary, source }: typeof caseArb extends fc.Arbitrary<infer T> ? T : never, tokens: false | 'o200k_base'): void {
  const window = { tools, messages, boundary: Math.min(boundary ?? messages.length, messages.length) };
  const proposal = proposalOf(op, window);
  const given = withBoundary === null ? proposal : { ...proposal, boundary: withBoundary };
  const before = nodeWindow(window);
  const expected = judgeFully({ source, before, after: nodeWindow(given, before), applied: true }, { context: createEngineContext(tokens) });
  assert.deepStrictEqual(guardRewrite(window, given, { source, tokens }), expected, op.kind);
}

test('stateless guardRewrite on plain objects gives exactly the full judge verdict', () => {
  fc.assert(
    fc.property(caseArb, (c) => check(c, false)),
    { numRuns: 3000 },
  );
});

test('with token counts, the cache impact is the full judge one too', () => {
  fc.assert(
    fc.property(caseArb, (c) => check(c, 'o200k_base')),
    { numRuns: 200 },
  );
});

test('the plain readers the lazy window relies on read what readPlainMessage reads', () => {
  const valueArb = fc.oneof(anyMessageArb, fc.record({ role: fc.constantFrom('user', 'tool', 'x'), content: fc.anything(), tool_calls: fc.anything(), tool_call_id: fc.anything() }));
  fc.assert(
    fc.property(valueArb, (value) => {
      const read = readPlainMessage(value);
      assert.equal(plainRole(value), read?.role);
      if (!read) return;
      const first = read.blocks[0];
      assert.equal(plainFirstText(value, read.role), first?.kind === 'text' ? first.text : undefined);
    }),
    { numRuns: 2000 },
  );
});

test('a message whose role getter gives it once (then another value) is judged as the stateful guard judges it, not a crash', () => {
  // A fresh window each time: its getter's first read gives the role.
  const windowOf = () => {
    let reads = 0;
    const once = Object.defineProperty({ content: 'hello' }, 'role', { enumerable: true, get: () => (reads++ === 0 ? 'user' : 'robot') });
    return { messages: [once, { role: 'assistant', content: 'ok' }], boundary: 2 };
  };
  const proposal = { messages: [{ role: 'user', content: 'changed' }, { role: 'assistant', content: 'ok' }] };
  const verdict = guardRewrite(windowOf(), proposal, { tokens: false });
  assert.deepEqual(verdict, createGuard(windowOf(), { tokens: false }).check(proposal));
  assert.deepEqual(verdict.findings.map((f) => f.rule), ['prefix-mutated']);
});

/** A plain message whose `content` counts its reads (an own enumerable getter: the readers see the same value). */
function counted(message: Plain, reads: number[], m: number): Plain {
  const { content, ...rest } = message;
  return Object.defineProperty(rest, 'content', { enumerable: true, get: () => ((reads[m] = (reads[m] ?? 0) + 1), content) });
}

test('a compaction of a long window reads only the messages its verdict needs', () => {
  const size = 400;
  const reads: number[] = [];
  const history = Array.from({ length: size }, (_, i) => {
    const id = `toolu_${Math.floor(i / 4)}`;
    const message = [
      { role: 'user', content: [{ type: 'text', text: `Question ${i}` }] },
      { role: 'assistant', content: [{ type: 'tool_use', id, name: 'search', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'rows' }] },
      { role: 'assistant', content: [{ type: 'text', text: `Answer ${i}` }] },
    ][i % 4] as Plain;
    return counted(message, reads, i);
  });
  const window = { tools: [{ name: 'search' }], messages: history, boundary: size };
  // Drop the first 102 messages: turn 25's call goes, its result stays.
  const marker = { role: 'user', content: '[elided]', elision: true };
  const proposal = { tools: window.tools, messages: [...history.slice(102), marker], boundary: size - 101 };
  const verdict = guardRewrite(window, proposal);
  assert.equal(verdict.decision, 'abort');
  assert.deepStrictEqual(verdict.findings.map((f) => f.rule).sort(), ['prefix-mutated', 'tool-result-orphaned']);
  const readAgain = reads.flatMap((n, m) => (n > 1 ? [m] : []));
  // The ids pass reads each message once; only the cut pair and the frontier's are read into the model.
  assert.ok(readAgain.length <= 6, `read again: ${readAgain.join(', ')}`);
  for (let m = 0; m < size; m++) assert.ok((reads[m] ?? 0) >= 1);
});

test('ids given by getters that change from read to read (an object changed while judged: not the same reading twice) get a verdict, never a crash', () => {
  /** `value` with `key` a getter giving `values` in turn, one a read. */
  const changing = (value: Plain, key: string, values: readonly string[]) => {
    let reads = 0;
    return Object.defineProperty(value, key, { enumerable: true, get: () => values[reads++ % values.length] });
  };
  const valuesArb = fc.array(fc.constantFrom('c1', 'c2', ''), { minLength: 2, maxLength: 3 });
  const changingArb = fc.oneof(
    valuesArb.map((ids) => ({ role: 'assistant', content: [changing({ type: 'tool_use', name: 'search', input: {} }, 'id', ids)] })),
    valuesArb.map((ids) => ({ role: 'user', content: [changing({ type: 'tool_result', content: 'rows' }, 'tool_use_id', ids)] })),
    valuesArb.map((ids) => changing({ role: 'tool', content: 'rows' }, 'tool_call_id', ids)),
  );
  fc.assert(
    fc.property(fc.array(fc.oneof(messageArb, changingArb), { maxLength: 12 }), opArb, fc.constantFrom(...sources), (messages, op, source) => {
      const window = { tools: [], messages, boundary: messages.length };
      const verdict = guardRewrite(window, proposalOf(op, window), { source, tokens: false });
      assert.ok(['patch', 'defer', 'abort'].includes(verdict.decision));
    }),
    { numRuns: 1000 },
  );
});
