/**
 * The step after the one shown, sent ahead of `]` (issue 14, src/extension/inspector/ahead.ts): the
 * `nextStep` the host sends is, as JSON, exactly the `stepEdit` it sends when that step is then
 * selected (the webview shows the step laid out ahead only on that equality), the step rendered ahead
 * is reused for that selection and for nothing else, and both new messages are validated.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderWindow } from '../../src/core/render';
import { renderAhead, renderOrReuse, stepAfter, stepAhead } from '../../src/extension/inspector/ahead';
import { type InspectorEngine, renderStep, stepEdit } from '../../src/extension/inspector/views';
import { isHostMessage, parseWebviewMessage } from '../../src/shared/protocol';
import { incidentReport, largeReport } from '../fixtures/inspector/reports';

const engine: InspectorEngine = { renderWindow: (w) => renderWindow(w) };
const source = () => 'source';

test('the step sent ahead is, as JSON, the stepEdit sent when it is selected; the last step has none', () => {
  for (const report of [incidentReport(), largeReport(600)]) {
    const indices = report.steps.map((s) => s.index);
    for (const [i, index] of indices.entries()) {
      const shown = renderStep(report, index, engine, source())!;
      const next = renderAhead(report, shown, engine, source);
      if (i === indices.length - 1) {
        assert.equal(next, undefined, 'nothing after the last step');
        continue;
      }
      assert.equal(next?.ahead.rendered.detail.step.index, indices[i + 1]);
      // What the host sends on `]`: the step after, rendered or reused, as splices of the step shown.
      const selected = renderOrReuse(next?.ahead, report, indices[i + 1]!, engine, source)!;
      assert.equal(selected, next?.ahead.rendered, 'the step rendered ahead is reused');
      const onKey = stepEdit(shown, selected);
      assert.ok(onKey && next?.message?.type === 'nextStep');
      assert.equal(JSON.stringify(next.message.edit), JSON.stringify(onKey));
      assert.ok(isHostMessage(JSON.parse(JSON.stringify(next.message))));
    }
  }
});

test('a step rendered ahead is reused only for its report, engine and step', () => {
  const report = largeReport(600);
  const shown = renderStep(report, 1, engine, source())!;
  const { ahead } = renderAhead(report, shown, engine, source)!;
  assert.equal(renderOrReuse(ahead, report, 2, engine, source), ahead.rendered);
  assert.notEqual(renderOrReuse(ahead, report, 3, engine, source)?.detail.step.index, 2);
  assert.notEqual(renderOrReuse(ahead, largeReport(600), 2, engine, source), ahead.rendered, 'another report (the file changed)');
  assert.notEqual(renderOrReuse(ahead, report, 2, { ...engine }, source), ahead.rendered, 'another engine (fixes to a copy)');
  assert.deepEqual(renderOrReuse(undefined, report, 2, engine, source)?.detail, ahead.rendered.detail);
});

test('the step after is the next in the report\'s order', () => {
  const report = incidentReport();
  assert.deepEqual(report.steps.map((s) => stepAfter(report, s.index)), [2, 3, 4, undefined]);
  assert.equal(stepAfter(report, 99), undefined);
});

test('stepShown and nextStep are validated', () => {
  assert.deepEqual(parseWebviewMessage({ type: 'stepShown', step: 3, extra: 1 }), { type: 'stepShown', step: 3 });
  for (const step of [-1, 1.5, '3', undefined]) assert.equal(parseWebviewMessage({ type: 'stepShown', step }), undefined);
  const report = largeReport(600);
  const edit = stepEdit(renderStep(report, 2, engine)!, renderStep(report, 3, engine)!)!;
  assert.ok(isHostMessage({ type: 'nextStep', edit }));
  for (const bad of [{ type: 'nextStep' }, { type: 'nextStep', edit: {} }, { type: 'nextStep', edit: { ...edit, type: 'step' } }, { type: 'nextStep', edit: { ...edit, from: -1 } }, { type: 'nextStep', edit: { ...edit, detail: { ...edit.detail, after: { ...edit.detail.after, splice: { start: 5, end: 2, text: '' } } } } }]) {
    assert.equal(isHostMessage(bad), false, JSON.stringify(bad).slice(0, 80));
  }
});

test('stepShown: the step after goes ahead only for the step shown, rendered as it was', () => {
  const report = largeReport(600);
  const rendered = renderStep(report, 1, engine, source())!;
  const shown = { report, step: 1, rendered, engine, sourceText: source };
  assert.equal(stepAhead(shown, 1)?.ahead.rendered.detail.step.index, 2);
  assert.equal(stepAhead(shown, 2), undefined, 'a step no longer shown (the user moved on)');
  assert.equal(stepAhead({ ...shown, report: undefined }, 1), undefined, 'nothing shown');
  const { ahead } = stepAhead(shown, 1)!;
  assert.equal(stepAhead({ ...shown, ahead }, 1)?.ahead.rendered, ahead.rendered, 'asked again: the step rendered ahead is reused');
});
