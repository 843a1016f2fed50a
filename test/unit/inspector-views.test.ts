/** The inspector's pure view builder: display texts, boundary, pairs, orphans, findings. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkTranscript, LineIndex, pairStates, planFix } from '../../src/core';
import { renderWindow } from '../../src/core/render';
import {
  transcriptView,
  chooseStep,
  displayEnd,
  displayStart,
  displayText,
  type InspectorEngine,
} from '../../src/extension/inspector/views';
import { isHostMessage, parseInspectorState, parseWebviewMessage, PROTOCOL_VERSION } from '../../src/shared/protocol';
import { emptyReport, hostileReport, incidentReport, largeReport } from '../fixtures/inspector/reports';
import { CORPUS } from '../support/corpus';

const engine: InspectorEngine = { renderWindow: (w) => renderWindow(w) };

test('display text is the rendered bytes with a line break before every part', () => {
  const step = incidentReport().steps[0]!;
  const rendered = renderWindow(step.rewrite!.before);
  const display = displayText(rendered);
  assert.equal(display.text.replace(/\n/g, ''), rendered.text);
  for (const s of rendered.segments) {
    assert.equal(display.text.slice(displayStart(display, s.start), displayEnd(display, s.end)).replace(/\n/g, ''), rendered.text.slice(s.start, s.end));
  }
  assert.equal(display.text.split('\n').length, display.breaks.length + 1);
});

test('the boundary sits at the end of the last consumed message, with its token index', () => {
  const view = transcriptView(incidentReport(), 1, engine);
  const before = view.detail!.before;
  assert.equal(before.boundaryMessages, 5);
  assert.equal(before.boundaryTokens, 5000);
  const consumed = before.text.slice(0, before.boundaryOffset);
  assert.ok(consumed.endsWith('{"type":"text","text":"1,284 orders shipped last week."}]}'), consumed.slice(-80));
  assert.ok(!consumed.includes('And the week before?'));
  assert.ok(before.text.slice(before.boundaryOffset).includes('And the week before?'));
});

test('a call and its result share a colour on both sides; an orphaned result says what is missing', () => {
  const detail = transcriptView(incidentReport(), 1, engine).detail!;
  const beforePair = detail.before.segments.filter((s) => s.callId === 'toolu_01A');
  assert.deepEqual(beforePair.map((s) => [s.role, s.state]), [['call', 'paired'], ['result', 'paired']]);
  assert.equal(beforePair[0]!.colour, beforePair[1]!.colour);
  const afterResult = detail.after.segments.filter((s) => s.callId === 'toolu_01A');
  assert.equal(afterResult.length, 1);
  assert.equal(afterResult[0]!.state, 'orphan-result');
  assert.equal(afterResult[0]!.colour, beforePair[0]!.colour);
  assert.match(afterResult[0]!.label!, /toolu_01A has no call/);
  assert.ok(detail.after.text.slice(afterResult[0]!.start, afterResult[0]!.end).includes('"tool_use_id":"toolu_01A"'));
});

test('a call at the frontier of a live window is pending, not an orphan', () => {
  const detail = transcriptView(incidentReport(), 2, engine).detail!;
  const pending = detail.after.segments.find((s) => s.callId === 'toolu_02B');
  assert.equal(pending?.state, 'pending');
  const states = pairStates({ ...incidentReport().steps[1]!.rewrite!.after, live: false });
  assert.equal(states.get('toolu_02B'), 'orphan-call');
});

test('banner data: decision, reasons, source, untrusted self-edit, cache impact', () => {
  const view = transcriptView(incidentReport(), 3, engine);
  assert.equal(view.protocol, PROTOCOL_VERSION);
  assert.deepEqual(view.steps.map((s) => s.decision), ['abort', 'patch', 'defer', 'patch']);
  const detail = view.detail!;
  assert.equal(detail.step.index, 3);
  assert.equal(detail.step.untrusted, true);
  assert.equal(detail.step.cacheImpact.invalidatedTokens, 5100);
  assert.deepEqual(detail.findings.map((f) => f.rule), ['prefix-mutated', 'self-edit']);
  assert.equal(view.steps[0]!.untrusted, false);
  assert.equal(view.windowFindings.length, 1);
  assert.equal(view.windowFindings[0]!.rule, 'invalid-json');
});

test('findings carry their transcript range and 1-based line/column', () => {
  const detail = transcriptView(incidentReport(), 1, engine).detail!;
  const [first, second] = detail.findings;
  assert.deepEqual(first!.range, { start: 4, end: 14 });
  assert.deepEqual([first!.line, first!.column], [1, 5]);
  assert.deepEqual([second!.line, second!.column], [2, 5]);
  assert.deepEqual(LineIndex.fromStarts([0, 10, 20]).position(25), { line: 3, column: 6 });
});

test('the break offset maps into display coordinates', () => {
  const detail = transcriptView(incidentReport(), 1, engine).detail!;
  assert.equal(detail.breakOffset, 10 + 1);
});

test('step choice: requested, else first non-patch, else none', () => {
  const report = incidentReport();
  assert.equal(chooseStep(report, 99, 2), 2);
  assert.equal(chooseStep(report, undefined), 1);
  assert.equal(chooseStep(emptyReport()), undefined);
  const empty = transcriptView(emptyReport(), undefined, engine);
  assert.equal(empty.detail, undefined);
  assert.equal(empty.steps.length, 0);
});

test('a step without a kept rewrite says why instead of showing an empty diff', () => {
  const report = incidentReport();
  const stripped = { ...report, steps: report.steps.map(({ rewrite: _r, ...s }) => s) };
  const detail = transcriptView(stripped, 1, engine).detail!;
  assert.match(detail.unavailable!, /keepRewrites/);
});

test('hostile text is carried as data, unchanged', () => {
  const detail = transcriptView(hostileReport(), 1, engine).detail!;
  assert.ok(detail.before.text.includes('<script>window.__pwned = \\"script\\"</script>'));
  assert.ok(detail.before.text.includes('\u202Eabc'));
});

test('a fix planner, when present, gives the preview pane of an aborting step only', () => {
  const withFix: InspectorEngine = {
    ...engine,
    planFix: (rewrite) => ({
      title: 'Compact in whole pairs',
      description: 'elided 1 pair',
      window: rewrite.before,
      verdict: { decision: 'defer', source: rewrite.source, findings: [], cacheImpact: { consumedTokens: 0, invalidatedTokens: 0 } },
      edits: [],
    }),
  };
  assert.equal(transcriptView(incidentReport(), 1, withFix, 'src').detail!.fix?.decision, 'defer');
  assert.equal(transcriptView(incidentReport(), 3, withFix, 'src').detail!.fix, undefined);
});

test('a 10k-message window: one display line per part, segments sorted', () => {
  const detail = transcriptView(largeReport(10_000), 1, engine).detail!;
  assert.equal(detail.before.messageCount, 10_000);
  const lines = detail.before.text.split('\n').length;
  assert.ok(lines > 20_000, `${lines} lines`);
  const starts = detail.before.segments.map((s) => s.start);
  assert.deepEqual(starts, [...starts].sort((a, b) => a - b));
});

test('webview messages are validated before the host acts on them', () => {
  assert.deepEqual(parseWebviewMessage({ type: 'reveal', range: { start: 3, end: 9 } }), { type: 'reveal', range: { start: 3, end: 9 } });
  assert.equal(parseWebviewMessage({ type: 'reveal', range: { start: 9, end: 3 } }), undefined);
  assert.equal(parseWebviewMessage({ type: 'selectStep', step: -1 }), undefined);
  assert.equal(parseWebviewMessage({ type: 'evil' }), undefined);
  assert.equal(parseWebviewMessage({ type: 'toString' }), undefined);
  assert.equal(parseWebviewMessage({ type: 'constructor', step: 1 }), undefined);
  assert.deepEqual(parseWebviewMessage({ type: 'applyFix', step: 2, extra: 'dropped' }), { type: 'applyFix', step: 2 });
  assert.deepEqual(parseWebviewMessage({ type: 'ready', protocol: 1, restoredStep: -4 }), { type: 'ready', protocol: 1 });
  assert.deepEqual(parseWebviewMessage({ type: 'ready', protocol: 1, restoredStep: 3 }), { type: 'ready', protocol: 1, restoredStep: 3 });
});

test('host messages are checked by type and payload in the webview', () => {
  assert.ok(isHostMessage({ type: 'transcript', view: {} }));
  assert.ok(isHostMessage({ type: 'step', selected: 2, detail: {} }));
  assert.ok(isHostMessage({ type: 'empty', reason: 'nothing' }));
  assert.ok(isHostMessage({ type: 'fixResult', step: 1, applied: true, message: 'done' }));
  for (const bad of [null, 'transcript', { type: 'evil' }, { type: 'toString' }, { type: '__proto__' }, { type: 'step', selected: -1, detail: {} }, { type: 'empty' }, { type: 'fixResult', step: 1, applied: 'yes', message: '' }]) {
    assert.equal(isHostMessage(bad), false, JSON.stringify(bad));
  }
});

test('restored webview state keeps only well-formed fields', () => {
  assert.deepEqual(parseInspectorState({ file: '/t.jsonl', step: 3, previewFix: true }), { file: '/t.jsonl', step: 3, previewFix: true });
  assert.deepEqual(parseInspectorState({ file: 7, step: '3', previewFix: 'yes' }), {});
  assert.deepEqual(parseInspectorState({ step: 0 }), {});
  assert.deepEqual(parseInspectorState(undefined), {});
  assert.deepEqual(parseInspectorState('state'), {});
});

test('with the real engine: the seed incident shows its orphan, reasons at their lines, and a fix that does not abort', () => {
  const file = join(__dirname, '..', '..', 'examples', 'seed-incident.trace.jsonl');
  const text = readFileSync(file, 'utf8');
  const report = checkTranscript({ file, text }, { keepRewrites: true });
  const view = transcriptView(report, undefined, { renderWindow: (w) => renderWindow(w), planFix }, text);
  const detail = view.detail!;
  assert.equal(detail.step.decision, 'abort');
  assert.deepEqual([...detail.step.rules].sort(), ['prefix-mutated', 'schema-dropped', 'tool-result-orphaned']);
  const orphans = detail.after.segments.filter((s) => s.state === 'orphan-result');
  assert.equal(orphans.length, 1);
  assert.ok(detail.after.text.slice(orphans[0]!.start, orphans[0]!.end).includes(orphans[0]!.callId));
  for (const f of detail.findings) {
    const line = text.split('\n')[f.line - 1]!;
    assert.equal(text.slice(f.range.start, f.range.end), line.slice(f.column - 1, f.column - 1 + f.range.end - f.range.start));
  }
  assert.ok(detail.fix, 'the planner offers a fix');
  assert.notEqual(detail.fix!.decision, 'abort');
  assert.equal(detail.fix!.after.segments.filter((s) => s.state.startsWith('orphan')).length, 0);
  assert.equal(detail.before.boundaryTokens, report.steps[0]!.boundary.tokens);
});

test('a clean file with no step: the transcript view lists its tool pairs for the Tool pairs tab', () => {
  const file = join(CORPUS, 'claude-code', 'spotter_tool_heavy.jsonl');
  const report = checkTranscript({ file, text: readFileSync(file, 'utf8') }, { keepRewrites: true, tokens: false });
  const view = transcriptView(report, undefined, engine);
  assert.equal(view.steps.length, 0);
  assert.equal(view.detail, undefined);
  const pairs = view.pairs ?? [];
  assert.equal(pairs.filter((s) => s.role === 'call').length, 6);
  assert.equal(pairs.filter((s) => s.role === 'result').length, 6);
  assert.ok(pairs.every((s) => s.state === 'paired'));
});

test('a request log holding several conversations: each step carries its thread; a single-conversation file carries none', () => {
  const file = join(__dirname, '..', 'fixtures', 'providers', 'anthropic-log-interleaved-edited.jsonl');
  const report = checkTranscript({ file, text: readFileSync(file, 'utf8') }, { keepRewrites: true, tokens: false });
  const view = transcriptView(report, undefined, engine);
  assert.deepEqual(view.steps.map((s) => [s.index, s.thread, s.decision]), [[1, 1, 'patch'], [2, 2, 'defer'], [3, 1, 'patch'], [4, 1, 'patch']]);
  assert.equal(view.detail?.step.thread, 2, 'the first non-patch step is shown with its thread');
  const single = transcriptView(incidentReport(), 1, engine);
  assert.ok(single.steps.every((s) => !('thread' in s)));
});
