/**
 * A step change sends the step's two pane texts as splices of the step shown (views.ts `stepEdit`),
 * found by the engine's alignment of the windows' messages: an append step sends its new tail only,
 * and splicing the shown step's texts gives exactly the texts the step renders.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { checkTranscript } from '../../src/core';
import type { Report } from '../../src/core/results';
import { renderWindow } from '../../src/core/render';
import { type InspectorEngine, renderStep, type RenderedStep, stepEdit } from '../../src/extension/inspector/views';
import { applyStepEdit, isHostMessage, movedSegment, type PaneSegment, type StepEdit } from '../../src/shared/protocol';
import { hostileReport, incidentReport, largeBlockReport, largeReport } from '../fixtures/inspector/reports';
import { CORPUS } from '../support/corpus';

const engine: InspectorEngine = { renderWindow: (w) => renderWindow(w) };

function rendered(report: Report): RenderedStep[] {
  return report.steps.map((s) => renderStep(report, s.index, engine)!);
}

/** Every ordered pair of steps: the splices of `from` give `to`'s detail exactly; each step's `changed` is where its two texts differ. */
function assertSplicesExact(report: Report, name: string): number {
  const steps = rendered(report);
  for (const { detail } of steps) {
    const changed = detail.changed;
    if (!changed) continue;
    const { before, after } = detail;
    assert.equal(before.text.slice(0, changed.start) + after.text.slice(changed.start, changed.afterEnd) + before.text.slice(changed.beforeEnd), after.text, `${name}: step ${detail.step.index}`);
    assert.equal(before.text.length - changed.beforeEnd, after.text.length - changed.afterEnd);
  }
  let pairs = 0;
  for (const from of steps) {
    for (const to of steps) {
      if (from === to) continue;
      const edit = stepEdit(from, to);
      if (!edit) continue;
      assert.deepEqual(applyStepEdit(from.detail, edit), to.detail, `${name}: step ${from.detail.step.index} → ${to.detail.step.index}`);
      pairs++;
    }
  }
  return pairs;
}

test('an append step is sent as its new tail; the compaction before it as the dropped messages only', () => {
  const [compaction, append] = rendered(largeReport(10_000));
  const edit = stepEdit(compaction!, append!)!;
  const before = compaction!.detail.before.text;
  // The after pane: the previous step's proposal plus one message: only that message is sent.
  const shown = compaction!.detail.after.text.length;
  assert.deepEqual([edit.detail.after.splice.start, edit.detail.after.splice.end], [shown - 2, shown], 'the window\'s closing ]} replaced');
  assert.match(edit.detail.after.splice.text, /^,\n\{"role":"user".*next.*\]\}$/s);
  assert.ok(edit.detail.after.splice.text.length < 100, `${edit.detail.after.splice.text.length} characters`);
  // The before pane: the 10k window without the three messages the compaction dropped.
  const removed = before.slice(edit.detail.before.splice.start, edit.detail.before.splice.end);
  assert.ok(removed.length < 600 && removed.includes('module_34'), removed);
  assert.equal(edit.detail.before.splice.text.length < 10, true);
  assert.deepEqual(applyStepEdit(compaction!.detail, edit), append!.detail);
  const message = JSON.stringify(edit).length;
  assert.ok(message < JSON.stringify(append!.detail).length / 4, `the step message (${message} characters) carries no whole text`);
});

test('splices reproduce every step from every other, on the inspector fixtures', () => {
  for (const [name, report] of Object.entries({ incident: incidentReport(), hostile: hostileReport(), largeBlock: largeBlockReport(), large: largeReport(2_000) })) {
    const pairs = assertSplicesExact(report, name);
    // The hostile fixture has one step: only its own splice (`changed`) is checked.
    assert.ok(report.steps.length < 2 || pairs > 0, `${name}: ${pairs} step pairs checked of ${report.steps.length} steps`);
  }
});

test('splices reproduce every step from every other, on the real corpus files that have steps', () => {
  let pairs = 0;
  const files = readdirSync(CORPUS, { recursive: true, encoding: 'utf8' })
    .map((f) => join(CORPUS, f))
    .filter((f) => /\.(jsonl?|txt)$/.test(f) && statSync(f).isFile() && statSync(f).size < 3_000_000);
  for (const file of files) {
    let report: Report;
    try {
      report = checkTranscript({ file, text: readFileSync(file, 'utf8') }, { keepRewrites: true, tokens: false });
    } catch {
      continue;
    }
    if (report.steps.length < 2) continue;
    const limited = { ...report, steps: report.steps.slice(0, 8) };
    pairs += assertSplicesExact(limited, file);
  }
  assert.ok(pairs >= 20, `${pairs} step pairs checked`);
});

test('a stepEdit applies only to the step it was computed against', () => {
  const steps = rendered(incidentReport());
  const edit = stepEdit(steps[0]!, steps[1]!)!;
  assert.equal(applyStepEdit(undefined, edit), undefined);
  assert.equal(applyStepEdit(steps[2]!.detail, edit), undefined, 'another step shown');
  const shorter = { ...steps[0]!.detail, before: { ...steps[0]!.detail.before, text: steps[0]!.detail.before.text.slice(1) } };
  assert.equal(applyStepEdit(shorter, edit), undefined, 'another text shown');
  const outside: StepEdit = { ...edit, detail: { ...edit.detail, after: { ...edit.detail.after, splice: { start: 0, end: 1e9, text: '' } } } };
  assert.equal(applyStepEdit(steps[0]!.detail, outside), undefined, 'a splice past the end');
});

test('stepEdit messages are validated in the webview', () => {
  const pane = (splice: unknown, length: unknown = 5) => ({ splice, length, boundaryOffset: 0, boundaryMessages: 0, messageCount: 0, segments: { keepHead: 0, keepTail: 0, insert: [] } });
  const good = { start: 1, end: 2, text: 'x' };
  const edit = { type: 'stepEdit', selected: 2, from: 1, detail: { before: pane(good), after: pane(good) } };
  assert.ok(isHostMessage(edit));
  assert.ok(isHostMessage({ type: 'transcript', view: {}, edit }), 'a grown file\'s view with its step as splices');
  assert.equal(isHostMessage({ type: 'transcript', view: {}, edit: { ...edit, from: -1 } }), false);
  assert.equal(isHostMessage({ type: 'transcript', view: {}, edit: { ...edit, type: 'step' } }), false);
  for (const bad of [
    { type: 'stepEdit', selected: 2, detail: { before: pane(good), after: pane(good) } },
    { type: 'stepEdit', selected: 2, from: 1, detail: { before: pane(good) } },
    { type: 'stepEdit', selected: 2, from: 1, detail: { before: pane({ start: 3, end: 2, text: '' }), after: pane(good) } },
    { type: 'stepEdit', selected: 2, from: 1, detail: { before: pane({ start: -1, end: 2, text: '' }), after: pane(good) } },
    { type: 'stepEdit', selected: 2, from: 1, detail: { before: pane({ start: 1, end: 2, text: 3 }), after: pane(good) } },
    { type: 'stepEdit', selected: 2, from: 1, detail: { before: pane(good, -1), after: pane(good) } },
    { type: 'stepEdit', selected: 2, from: 1, detail: { before: { ...pane(good), segments: { keepHead: 0, keepTail: -1, insert: [] } }, after: pane(good) } },
    { type: 'stepEdit', selected: 2, from: 1, detail: { before: { ...pane(good), segments: [] }, after: pane(good) } },
  ]) {
    assert.equal(isHostMessage(bad), false, JSON.stringify(bad));
  }
});

test('a moved segment keeps every field but its place: start, end and message moved, a label kept, none added', () => {
  const paired: PaneSegment = { start: 10, end: 20, message: 3, callId: 'toolu_1', role: 'call', colour: 2, state: 'paired' };
  assert.deepEqual(movedSegment(paired, 5, -1), { ...paired, start: 15, end: 25, message: 2 });
  assert.equal('label' in movedSegment(paired, 5, -1), false);
  const orphan: PaneSegment = { ...paired, role: 'result', state: 'orphan-result', label: 'no call' };
  assert.deepEqual(movedSegment(orphan, -4, 2), { ...orphan, start: 6, end: 16, message: 5 });
});
