/**
 * Property tests (fast-check) over random native-trace windows: pure appends
 * are patch, cutting a consumed pair aborts (also by editing one member), the fix planner never leaves an
 * abort (judged directly and after applying its edits to the JSONL text), and
 * no input crashes the parser or the checker.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkTranscript, UnknownFormatError } from '../../src/core/check';
import { applyEdits } from '../../src/core/fix/edits';
import { planFix } from '../../src/core/fix/plan';
import { anthropicAdapter } from '../../src/core/formats/anthropic';
import { nativeAdapter } from '../../src/core/formats/native';
import { openaiChatAdapter } from '../../src/core/formats/openai-chat';
import { judgeRewrite } from '../../src/core/guard';
import { inputFromText } from '../../src/core/io';
import { parseJson } from '../../src/core/json/parse';
import type { FormatId, Rewrite } from '../../src/core/model';
import type { FormatAdapter } from '../../src/core/transcript';

const RUNS = { numRuns: 100 };
const TOOL_NAMES = ['lookup', 'fetch', 'mail'] as const;

type Turn =
  | { readonly kind: 'user' | 'assistant'; readonly text: string }
  | { readonly kind: 'group'; readonly text: string; readonly tools: readonly number[] };

interface Msg {
  role: string;
  content: string;
  tool_calls?: { id: string; name: string; input: { n: number } }[];
  tool_call_id?: string;
}

const textArb = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('', 'ok', 'héllo ✓', 'line\nbreak', '"quoted"'));
const turnArb: fc.Arbitrary<Turn> = fc.oneof(
  fc.record({ kind: fc.constantFrom('user' as const, 'assistant' as const), text: textArb }),
  fc.record({ kind: fc.constant('group' as const), text: fc.constantFrom('', 'calling'), tools: fc.array(fc.nat(2), { minLength: 1, maxLength: 3 }) }),
);

/** Messages for turns; every call answered right after its assistant message, ids unique from `firstId`. */
function messagesOf(turns: readonly Turn[], firstId = 0): Msg[] {
  let id = firstId;
  const out: Msg[] = [{ role: 'system', content: 'You are helpful.' }];
  for (const turn of turns) {
    if (turn.kind !== 'group') {
      out.push({ role: turn.kind, content: turn.text });
      continue;
    }
    const calls = turn.tools.map((t) => ({ id: `call_${id++}`, name: TOOL_NAMES[t] ?? 'lookup', input: { n: id } }));
    out.push({ role: 'assistant', content: turn.text, tool_calls: calls });
    for (const c of calls) out.push({ role: 'tool', tool_call_id: c.id, content: `result of ${c.id}` });
  }
  return out;
}

const TOOLS = TOOL_NAMES.map((name) => ({ name, version: '1', input_schema: { type: 'object', properties: { n: { type: 'number' } } } }));

function traceText(window: { tools?: unknown[]; messages: Msg[]; boundary: number }, rewrite: Record<string, unknown>): string {
  return [{ type: 'prefix-lens/trace', version: 1 }, { type: 'window', tools: TOOLS, ...window }, { type: 'rewrite', ...rewrite }]
    .map((e) => JSON.stringify(e))
    .join('\n') + '\n';
}

/** The rewrite read back from line 3 of a trace. */
function rewriteOf(text: string): Rewrite {
  for (const event of nativeAdapter.read(inputFromText('t.jsonl', text))) if (event.kind === 'step') return event.rewrite;
  throw new Error('no rewrite in the trace');
}

const windowArb = fc
  .record({ turns: fc.array(turnArb, { minLength: 1, maxLength: 7 }), boundary: fc.nat() })
  .map(({ turns, boundary }) => {
    const messages = messagesOf(turns);
    return { messages, boundary: boundary % (messages.length + 1) };
  });

test('(a) any pure append after the end is patch', () => {
  fc.assert(
    fc.property(windowArb, fc.array(turnArb, { minLength: 1, maxLength: 4 }), (window, more) => {
      const appended = messagesOf(more, 1000).slice(1);
      const text = traceText(window, { source: 'runtime', messages: [...window.messages, ...appended] });
      const verdict = judgeRewrite(rewriteOf(text));
      assert.equal(verdict.decision, 'patch', JSON.stringify(verdict.findings.map((f) => f.message)));
    }),
    RUNS,
  );
});

/** Consumed pairs of a window: [call message, call index, result message], result before the boundary. */
function consumedPairs(messages: readonly Msg[], boundary: number): [number, number, number][] {
  const out: [number, number, number][] = [];
  messages.forEach((m, i) =>
    m.tool_calls?.forEach((c, k) => {
      const r = messages.findIndex((x) => x.tool_call_id === c.id);
      if (r >= 0 && r < boundary) out.push([i, k, r]);
    }),
  );
  return out;
}

test('(b) dropping exactly one member of any consumed pair is abort', () => {
  const arb = fc.record({
    turns: fc.array(turnArb, { minLength: 1, maxLength: 6 }),
    group: fc.array(fc.nat(2), { minLength: 1, maxLength: 3 }),
    pick: fc.nat(),
    boundary: fc.nat(),
    dropCall: fc.boolean(),
  });
  fc.assert(
    fc.property(arb, ({ turns, group, pick, boundary, dropCall }) => {
      const messages = messagesOf([...turns, { kind: 'group', text: '', tools: group }]);
      const last = Math.max(...consumedPairs(messages, messages.length).map(([, , r]) => r));
      const b = last + 1 + (boundary % (messages.length - last));
      const pairs = consumedPairs(messages, b);
      const [m, k, r] = pairs[pick % pairs.length] as [number, number, number];
      const proposal = structuredClone(messages);
      if (dropCall) proposal[m]?.tool_calls?.splice(k, 1);
      else proposal.splice(r, 1);
      const text = traceText({ messages, boundary: b }, { source: 'compaction', messages: proposal });
      const verdict = judgeRewrite(rewriteOf(text));
      assert.equal(verdict.decision, 'abort', `${dropCall ? 'call' : 'result'} of ${messages[m]?.tool_calls?.[k]?.id} dropped`);
    }),
    RUNS,
  );
});

test('(c) the fix planner never leaves an abort, judged directly and after applying its edits', () => {
  let aborted = 0;
  const arb = fc.record({
    window: windowArb,
    unanswered: fc.boolean(),
    keep: fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
    keepCall: fc.array(fc.oneof(fc.constant(true), fc.constant(true), fc.constant(false)), { minLength: 40, maxLength: 40 }),
    keepTool: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
    dropTools: fc.boolean(),
    edit: fc.option(fc.nat(), { nil: undefined }),
    stated: fc.option(fc.nat(), { nil: undefined }),
  });
  fc.assert(
    fc.property(arb, ({ window, unanswered, keep, keepCall, keepTool, dropTools, edit, stated }) => {
      let messages = window.messages;
      if (unanswered && messages[messages.length - 1]?.role === 'tool') {
        while (messages[messages.length - 1]?.role === 'tool') messages = messages.slice(0, -1);
      }
      const boundary = Math.min(window.boundary, messages.length);
      let call = 0;
      const proposal = messages
        .filter((_, i) => i === 0 || keep[i % keep.length])
        .map((m) => (m.tool_calls ? { ...m, tool_calls: m.tool_calls.filter(() => keepCall[call++ % keepCall.length]) } : m));
      const editable = proposal.flatMap((m, i) => (m.role === 'tool' || m.tool_calls?.length ? [i] : []));
      const at = edit === undefined || !editable.length ? undefined : editable[edit % editable.length];
      const target = at === undefined ? undefined : proposal[at];
      if (at !== undefined && target?.role === 'tool') proposal[at] = { ...target, content: `${target.content} (edited)` };
      else if (at !== undefined && target?.tool_calls?.[0]) proposal[at] = { ...target, tool_calls: [{ ...target.tool_calls[0], input: { n: -1 } }, ...target.tool_calls.slice(1)] };
      const rewrite: Record<string, unknown> = { source: 'compaction', messages: proposal };
      if (dropTools) rewrite['tools'] = TOOLS.filter((_, i) => keepTool[i]);
      if (stated !== undefined) rewrite['boundary'] = stated % (proposal.length + 1);
      const text = traceText({ messages, boundary }, rewrite);
      const step = rewriteOf(text);
      if (judgeRewrite(step).decision !== 'abort') return;
      aborted++;
      const plan = planFix(step, text);
      assert.ok(plan, 'an aborting rewrite gets a plan');
      assert.notEqual(plan.verdict.decision, 'abort');
      assert.notEqual(judgeRewrite({ ...step, after: plan.window }).decision, 'abort');
      assert.ok(plan.edits.length > 0, 'a plan for a file has edits');
      const line = { start: text.indexOf('\n', text.indexOf('\n') + 1) + 1, end: text.length - 1 };
      plan.edits.forEach((e, i) => {
        assert.ok(e.range.start >= line.start && e.range.end <= line.end, 'edits stay inside the rewrite event');
        assert.ok(i === 0 || (plan.edits[i - 1]?.range.end ?? 0) < e.range.start, 'edits are sorted and apart');
      });
      const edited = applyEdits(text, plan.edits);
      const lines = text.split('\n');
      const editedLines = edited.split('\n');
      assert.deepEqual(editedLines.slice(0, 2), lines.slice(0, 2), 'lines before the rewrite are unchanged');
      const recheck = judgeRewrite(rewriteOf(edited));
      assert.notEqual(recheck.decision, 'abort', JSON.stringify({ plan: plan.description, rules: recheck.findings.map((f) => f.message) }));
    }),
    { numRuns: 200 },
  );
  assert.ok(aborted > 20, `only ${aborted} of the random compactions aborted`);
});

/** Messages with ids from a small pool: duplicates, orphans and results before their calls all happen. */
const messyArb = fc.array(
  fc.oneof(
    fc.record({ role: fc.constantFrom('user', 'assistant'), content: textArb }),
    fc.record({
      role: fc.constant('assistant'),
      content: fc.constant(''),
      tool_calls: fc.array(fc.record({ id: fc.constantFrom('k0', 'k1', 'k2'), name: fc.constantFrom(...TOOL_NAMES), input: fc.record({ n: fc.nat(3) }) }), { minLength: 1, maxLength: 3 }),
    }),
    fc.record({ role: fc.constant('tool'), tool_call_id: fc.constantFrom('k0', 'k1', 'k2', 'k3'), content: textArb }),
  ),
  { minLength: 1, maxLength: 10 },
) as fc.Arbitrary<Msg[]>;

test('(c) on windows already broken before the rewrite: planFix never throws and never plans an abort', () => {
  const arb = fc.record({ messages: messyArb, boundary: fc.nat(), keep: fc.array(fc.boolean(), { minLength: 10, maxLength: 10 }), dropTools: fc.boolean() });
  fc.assert(
    fc.property(arb, ({ messages, boundary, keep, dropTools }) => {
      const proposal = messages.filter((_, i) => keep[i % keep.length]);
      const rewrite: Record<string, unknown> = { source: 'compaction', messages: proposal };
      if (dropTools) rewrite['tools'] = TOOLS.slice(1);
      const text = traceText({ messages, boundary: boundary % (messages.length + 1) }, rewrite);
      const step = rewriteOf(text);
      const plan = planFix(step, text);
      if (!plan) return;
      assert.notEqual(plan.verdict.decision, 'abort');
      if (!plan.edits.length) return;
      const recheck = judgeRewrite(rewriteOf(applyEdits(text, plan.edits)));
      assert.notEqual(recheck.decision, 'abort', JSON.stringify({ plan: plan.description, rules: recheck.findings.map((f) => f.message) }));
    }),
    { numRuns: 200 },
  );
});

/** An Anthropic request log of two lines: a request with its response, then a random compaction of both. */
const anthropicLogArb = fc
  .record({
    turns: fc.array(turnArb, { minLength: 1, maxLength: 6 }),
    respondWithCall: fc.boolean(),
    keep: fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }),
    keepBlock: fc.array(fc.oneof(fc.constant(true), fc.constant(true), fc.constant(false)), { minLength: 30, maxLength: 30 }),
    spaced: fc.boolean(),
  })
  .map(({ turns, respondWithCall, keep, keepBlock, spaced }) => {
    type Block = Record<string, unknown>;
    // The opening user message stays: a request that drops it starts another thread (formats/threads.ts), not a step.
    const messages: { role: string; content: string | Block[] }[] = [{ role: 'user', content: 'Task.' }];
    let id = 0;
    for (const turn of turns) {
      if (turn.kind !== 'group') messages.push({ role: turn.kind, content: turn.text || '.' });
      else {
        const ids = turn.tools.map(() => `toolu_${id++}`);
        const text: Block[] = turn.text ? [{ type: 'text', text: turn.text }] : [];
        messages.push({ role: 'assistant', content: [...text, ...ids.map((i) => ({ type: 'tool_use', id: i, name: 'lookup', input: { i } }))] });
        messages.push({ role: 'user', content: ids.map((i) => ({ type: 'tool_result', tool_use_id: i, content: `r${i}` })) });
      }
    }
    const answer: Block[] = respondWithCall ? [{ type: 'tool_use', id: 'toolu_next', name: 'lookup', input: {} }] : [{ type: 'text', text: 'ok' }];
    const next = respondWithCall ? { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_next', content: 'fine' }] } : { role: 'user', content: 'more' };
    const history = [...messages, { role: 'assistant', content: answer }, next];
    let b = 0;
    const compacted = history
      .filter((_, i) => i === 0 || i === history.length - 1 || keep[i % keep.length])
      .map((m) => (typeof m.content === 'string' ? m : { ...m, content: m.content.filter(() => keepBlock[b++ % keepBlock.length]) }))
      .filter((m) => m.content.length > 0);
    const tools = [{ name: 'lookup', input_schema: { type: 'object' } }];
    const line = (v: unknown) => (spaced ? JSON.stringify(v).replace(/":/g, '": ').replace(/,"/g, ', "') : JSON.stringify(v));
    const response = { id: 'msg_1', type: 'message', role: 'assistant', content: answer, usage: { input_tokens: 1 } };
    return line({ request: { model: 'm', tools, messages }, response }) + '\n' + line({ request: { model: 'm', tools, messages: compacted } }) + '\n';
  });

/**
 * Property (c) on a request log of two lines: whenever the second request's
 * rewrite aborts, the planned fix does not, and neither does the log after its
 * edits are applied (which stay on the second line).
 */
function assertPlannedFixesNeverAbort(adapter: FormatAdapter, logs: fc.Arbitrary<string>, numRuns: number): void {
  let aborted = 0;
  // No step when the second request only repeats a prefix of the first: it starts a thread of its own (formats/threads.ts).
  const stepOf = (text: string) => {
    for (const event of adapter.read(inputFromText('log.jsonl', text))) if (event.kind === 'step') return event.rewrite;
    return undefined;
  };
  fc.assert(
    fc.property(logs, (text) => {
      const step = stepOf(text);
      if (!step || judgeRewrite(step).decision !== 'abort') return;
      aborted++;
      const plan = planFix(step, text);
      assert.ok(plan);
      assert.notEqual(plan.verdict.decision, 'abort');
      assert.ok(plan.edits.length > 0);
      const edited = applyEdits(text, plan.edits);
      assert.equal(edited.split('\n')[0], text.split('\n')[0]);
      const fixed = stepOf(edited);
      assert.ok(fixed, 'the fixed request still continues the first');
      const recheck = judgeRewrite(fixed);
      assert.notEqual(recheck.decision, 'abort', JSON.stringify({ plan: plan.description, rules: recheck.findings.map((f) => f.message) }));
    }),
    { numRuns },
  );
  assert.ok(aborted > 20, `only ${aborted} of the random compactions aborted`);
}

test('(c) on Anthropic request logs too: the planned fix never aborts, before or after its edits', () => {
  assertPlannedFixesNeverAbort(anthropicAdapter, anthropicLogArb, 200);
});

/** An OpenAI Chat request log of two lines: a request with its response, then a random compaction of both. */
const chatLogArb = fc
  .record({
    turns: fc.array(turnArb, { minLength: 1, maxLength: 6 }),
    respondWithCall: fc.boolean(),
    keep: fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }),
    keepCall: fc.array(fc.oneof(fc.constant(true), fc.constant(true), fc.constant(false)), { minLength: 30, maxLength: 30 }),
  })
  .map(({ turns, respondWithCall, keep, keepCall }) => {
    const fn = (id: string) => ({ id, type: 'function', function: { name: 'lookup', arguments: `{"id":"${id}"}` } });
    // The opening user message stays: a request that drops it starts another thread (formats/threads.ts), not a step.
    const messages: Record<string, unknown>[] = [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Task.' }];
    let id = 0;
    for (const turn of turns) {
      if (turn.kind !== 'group') messages.push({ role: turn.kind, content: turn.text });
      else {
        const ids = turn.tools.map(() => `call_${id++}`);
        messages.push({ role: 'assistant', content: turn.text || null, tool_calls: ids.map(fn) });
        for (const i of ids) messages.push({ role: 'tool', tool_call_id: i, content: `r${i}` });
      }
    }
    const answer = respondWithCall ? { role: 'assistant', content: null, tool_calls: [fn('call_next')], refusal: null } : { role: 'assistant', content: 'ok', refusal: null };
    const next = respondWithCall ? { role: 'tool', tool_call_id: 'call_next', content: 'fine' } : { role: 'user', content: 'more' };
    const history: Record<string, unknown>[] = [...messages, answer, next];
    let c = 0;
    const compacted = history
      .filter((_, i) => i <= 1 || i === history.length - 1 || keep[i % keep.length])
      .map((m) => (Array.isArray(m['tool_calls']) ? { ...m, tool_calls: (m['tool_calls'] as unknown[]).filter(() => keepCall[c++ % keepCall.length]) } : m));
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }];
    const response = { id: 'chatcmpl-1', choices: [{ index: 0, message: answer, finish_reason: 'stop' }] };
    return JSON.stringify({ request: { model: 'm', tools, messages }, response }) + '\n' + JSON.stringify({ request: { model: 'm', tools, messages: compacted } }) + '\n';
  });

test('(c) on OpenAI Chat request logs too: the planned fix never aborts, before or after its edits', () => {
  assertPlannedFixesNeverAbort(openaiChatAdapter, chatLogArb, 150);
});

const FORMATS: readonly FormatId[] = ['native', 'anthropic', 'openai-chat', 'openai-responses'];

/** Checks a text as every format (and detected): findings or UnknownFormatError, never another exception. */
function checkAll(text: string): void {
  try {
    checkTranscript({ file: 'x.jsonl', text }, { tokens: false });
  } catch (error) {
    if (!(error instanceof UnknownFormatError)) throw error;
  }
  for (const format of FORMATS) checkTranscript({ file: 'x.jsonl', text }, { tokens: false, format });
}

const validTraceArb = windowArb.map((w) => traceText(w, { source: 'compaction', messages: w.messages.slice(0, 2) }));

const mutatedArb = fc
  .record({ text: validTraceArb, at: fc.nat(), len: fc.nat(40), insert: fc.string({ maxLength: 6 }), mode: fc.nat(3) })
  .map(({ text, at, len, insert, mode }) => {
    const i = at % (text.length + 1);
    if (mode === 0) return text.slice(0, i);
    if (mode === 1) return text.slice(0, i) + insert + text.slice(i + len);
    if (mode === 2) return text.slice(0, i) + text.slice(i + len);
    return text.slice(0, i) + text.slice(i, i + len).split('').reverse().join('') + text.slice(i + len);
  });

test('(d) no input crashes the parser or the checker', () => {
  fc.assert(
    fc.property(fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 200 }), mutatedArb), (text) => {
      const parsed = parseJson(text);
      if (!parsed.ok) assert.ok(parsed.error.offset >= 0 && parsed.error.offset <= text.length);
      checkAll(text);
    }),
    RUNS,
  );
});

test('(d) a broken line of a trace is an invalid-json finding and the rest is still read', () => {
  fc.assert(
    fc.property(validTraceArb, fc.nat(), (text, cut) => {
      const lines = text.split('\n');
      const line = lines[1] ?? '';
      lines[1] = line.slice(0, 1 + (cut % Math.max(1, line.length - 1)));
      const report = checkTranscript({ file: 'x.jsonl', text: lines.join('\n') }, { tokens: false, format: 'native' });
      assert.ok(report.findings.some((f) => f.rule === 'invalid-json'));
    }),
    RUNS,
  );
});

test('(d) deep nesting is a finding, not a stack overflow', () => {
  for (const depth of [1000, 100000]) {
    const nested = '['.repeat(depth) + ']'.repeat(depth);
    const object = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    const parsed = [parseJson(nested), parseJson(object)];
    if (depth === 1000) assert.ok(parsed.every((p) => p.ok), 'moderate nesting parses');
    else assert.ok(parsed.every((p) => !p.ok && /deep/i.test(p.error.message)), 'extreme nesting is a syntax error');
    const trace = `{"type":"prefix-lens/trace","version":1}\n{"type":"window","messages":${nested}}\n{"type":"append","messages":[${object}]}\n`;
    const report = checkTranscript({ file: 'deep.jsonl', text: trace }, { tokens: false });
    assert.equal(report.findings.some((f) => f.rule === 'invalid-json'), depth !== 1000);
    checkAll(nested);
    checkAll(object);
  }
});
