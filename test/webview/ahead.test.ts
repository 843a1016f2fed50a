/**
 * Issue 14: once a step is painted the host sends the step after it (`nextStep`) and the panel lays it
 * out in a hidden second diff; `]` then shows it by swapping the two. The swap must be used (a step
 * laid out ahead and ready is shown by it, not the old way) and must show exactly what the old way
 * shows: each step is stepped to on two pages of the same fixture, one whose host sends the next step
 * ahead and one whose host does not, and what each shows on screen is compared. A step sent ahead
 * that is not the step then selected (a forged one here; a grown file in life) is never shown.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { Report } from '../../src/core/results';
import type { HostMessage } from '../../src/shared/protocol';
import { incidentReport, largeReport } from '../fixtures/inspector/reports';
import { fixtureOf, type Harness, openInspector, startHarness, waitReady } from './harness';
import type { Fixture } from './stub';

let harness: Harness;
before(async () => {
  harness = await startHarness();
});
after(async () => {
  await harness?.close();
});

/**
 * What the panel shows of its step: the banner, the body's counts, and per side of the diff on screen
 * its lines, line numbers and overlay rows (top, text, classes), boundary label and view zones. (A
 * string: tsx would wrap a function's named arrows in a helper the page does not have.)
 */
const ON_SCREEN = `(() => {
  const shown = document.querySelectorAll('.pl-diff-slot.pl-shown');
  if (shown.length !== 1) throw new Error(shown.length + ' diffs on screen');
  const rows = (editor, selector) => Array.from(editor.querySelectorAll(selector)).map((e) => e.style.top + '|' + (e.textContent || '').replace(/\u00a0/g, ' ') + '|' + e.className).sort();
  const side = (name) => {
    const editor = shown[0].querySelector('.editor.' + name);
    return {
      lines: rows(editor, '.view-lines .view-line'),
      numbers: rows(editor, '.margin-view-overlays > div'),
      marks: rows(editor, '.view-overlays > div'),
      boundary: editor.querySelector('.pl-boundary-label')?.textContent,
      zones: Array.from(editor.querySelectorAll('.view-zones > *')).map((z) => z.style.top + '/' + z.style.height).sort(),
    };
  };
  const data = document.body.dataset;
  return { banner: document.querySelector('.pl-banner')?.textContent, violations: data.violations, folds: data.folds, original: side('original'), modified: side('modified') };
})()`;

const onScreen = (page: Page): Promise<unknown> => page.evaluate(ON_SCREEN);

async function painted(page: Page, step: number): Promise<void> {
  await waitReady(page, step);
  await page.waitForFunction(() => Boolean(document.body.dataset.paintMs));
}

/** Two pages on `report`, at step 1: one whose host sends the next step ahead, one whose host does not. */
async function pages(report: Report): Promise<{ ahead: Page; plain: Page; fixture: Fixture }> {
  const fixture = fixtureOf(report, 'light', undefined, 1);
  const ahead = (await openInspector(harness, { ...fixture, ahead: true })).page;
  const plain = (await openInspector(harness, fixture)).page;
  await Promise.all([painted(ahead, 1), painted(plain, 1)]);
  return { ahead, plain, fixture };
}

const aheadReady = (page: Page, step: number) => page.waitForFunction((want) => document.body.dataset.ahead === String(want), step, { timeout: 10_000 });

for (const [name, report] of [
  ['a 2k-message window: a compaction, then two appends', () => largeReport(2_000)],
  ['the incident: a patch after an abort, a self-edit, a policy step', incidentReport],
] as const) {
  test(`${name}: each \`]\` shows the step laid out ahead by a swap, exactly as it is shown without`, async () => {
    const { ahead, plain, fixture } = await pages(report());
    const steps = fixture.view!.steps.map((s) => s.index);
    for (const step of steps.slice(1)) {
      await aheadReady(ahead, step);
      await Promise.all([ahead.keyboard.press(']'), plain.keyboard.press(']')]);
      await Promise.all([painted(ahead, step), painted(plain, step)]);
      assert.equal(await ahead.evaluate(() => document.body.dataset.swapped), 'true', `step ${step}: shown by the swap`);
      assert.equal(await plain.evaluate(() => document.body.dataset.swapped), 'false', `step ${step}: shown the old way`);
      assert.deepEqual(await onScreen(ahead), await onScreen(plain), `step ${step}: the same on screen`);
    }
    // Back a step: not laid out ahead (the host sends the next step only), shown the old way, the same.
    await Promise.all([ahead.keyboard.press('['), plain.keyboard.press('[')]);
    const back = steps.at(-2)!;
    await Promise.all([painted(ahead, back), painted(plain, back)]);
    assert.equal(await ahead.evaluate(() => document.body.dataset.swapped), 'false');
    assert.deepEqual(await onScreen(ahead), await onScreen(plain), `step ${back}: the same on screen`);
    await aheadReady(ahead, steps.at(-1)!);
    await Promise.all([ahead.keyboard.press(']'), plain.keyboard.press(']')]);
    await Promise.all([painted(ahead, steps.at(-1)!), painted(plain, steps.at(-1)!)]);
    assert.equal(await ahead.evaluate(() => document.body.dataset.swapped), 'true');
    assert.deepEqual(await onScreen(ahead), await onScreen(plain));
    await Promise.all([ahead.context().close(), plain.context().close()]);
  });
}

test('a step sent ahead that is not the step then selected is never shown', async () => {
  const { ahead, plain, fixture } = await pages(largeReport(2_000));
  await aheadReady(ahead, 2);
  // A `nextStep` for step 2 whose new tail differs from the step the host then sends on `]`.
  const real = fixture.edits['1>2']!;
  const splice = real.detail.after.splice;
  const text = splice.text.replace(/next/g, 'FORGED');
  assert.notEqual(text, splice.text);
  const forged: HostMessage = {
    type: 'nextStep',
    edit: { ...real, detail: { ...real.detail, after: { ...real.detail.after, splice: { ...splice, text }, length: real.detail.after.length + text.length - splice.text.length } } },
  };
  await ahead.evaluate((data) => window.dispatchEvent(new MessageEvent('message', { data })), forged);
  // Laid out in the spare, hidden, in place of the real one.
  await ahead.locator('.pl-diff-slot[inert] .editor.modified .view-line', { hasText: 'FORGED' }).first().waitFor({ state: 'attached', timeout: 10_000 });
  await aheadReady(ahead, 2);
  await Promise.all([ahead.keyboard.press(']'), plain.keyboard.press(']')]);
  await Promise.all([painted(ahead, 2), painted(plain, 2)]);
  assert.equal(await ahead.evaluate(() => document.body.dataset.swapped), 'false', 'not the step laid out ahead');
  assert.equal(await ahead.locator('.pl-shown .view-line', { hasText: 'FORGED' }).count(), 0);
  assert.deepEqual(await onScreen(ahead), await onScreen(plain));
  await Promise.all([ahead.context().close(), plain.context().close()]);
});

test('no animation runs after a step (the scrollbars do not fade): a key would wait behind the frames it makes', async () => {
  const { ahead, plain } = await pages(largeReport(2_000));
  await plain.context().close();
  await aheadReady(ahead, 2);
  // The jump from the compaction to the window's end: both diffs were scrolled (the spare laying it out, then the swap).
  await ahead.keyboard.press(']');
  await painted(ahead, 2);
  const running: number[] = [];
  for (let i = 0; i < 15; i++) {
    running.push(await ahead.evaluate(() => document.getAnimations().length));
    await ahead.waitForTimeout(100);
  }
  assert.deepEqual(running, Array(15).fill(0), 'animations running in the 1.5 s after the step');
  assert.ok((await ahead.locator('.pl-diff .scrollbar').count()) >= 4, 'both diffs have their scrollbars');
  await ahead.context().close();
});
