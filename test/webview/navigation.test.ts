/**
 * Navigating the inspector without the mouse and in a narrow panel: its keys
 * work as soon as it is shown, and a 400 px split gets an inline diff and a
 * banner whose reasons wrap instead of being clipped; stepping does not move
 * or resize the diff.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { incidentReport, tallerBannerReport } from '../fixtures/inspector/reports';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkTranscript, planFix } from '../../src/core';
import { fixToCopy } from '../../src/extension/inspector/views';
import { ENGINE, fixtureOf, type Harness, openInspector, ROOT, startHarness, waitReady } from './harness';

let harness: Harness;
before(async () => {
  harness = await startHarness();
});
after(async () => {
  await harness?.close();
});

test('the panel takes focus when shown: its keys work without a click and are not passed on', async () => {
  const { page, errors } = await openInspector(harness, fixtureOf(incidentReport()));
  const focused = await page.evaluate(() => ({ id: document.activeElement?.id, inPanel: document.getElementById('app')!.contains(document.activeElement) }));
  assert.ok(focused.inPanel, `focus is inside the panel, not on ${focused.id || 'the body'}`);
  const prevented = await page.evaluate(() => {
    const event = new KeyboardEvent('keydown', { key: ']', bubbles: true, cancelable: true });
    document.activeElement!.dispatchEvent(event);
    return event.defaultPrevented;
  });
  assert.equal(prevented, true, '] is consumed by the panel');
  await waitReady(page, 2);
  await page.keyboard.press('[');
  await waitReady(page, 1);
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('at a 400 px panel the diff is inline and every banner reason wraps, none clipped', async () => {
  const { page, errors } = await openInspector(harness, fixtureOf(incidentReport()), 'light', 400);
  const reasons = await page.locator('.pl-reasons li').count();
  assert.ok(reasons >= 2, `the seed incident's abort has several reasons (${reasons})`);
  const clipped = await page.evaluate(() => {
    const out: string[] = [];
    const list = document.querySelector<HTMLElement>('.pl-reasons')!;
    if (list.scrollHeight > list.clientHeight + 1) out.push(`the list: ${list.scrollHeight} > ${list.clientHeight}`);
    for (const node of Array.from(document.querySelectorAll<HTMLElement>('.pl-banner, .pl-reasons, .pl-reasons li, .pl-reasons li > *'))) {
      if (node.scrollWidth > node.clientWidth + 1) out.push(`${node.className || node.tagName}: ${node.scrollWidth} > ${node.clientWidth}`);
    }
    const banner = document.querySelector<HTMLElement>('.pl-banner')!.getBoundingClientRect();
    if (banner.right > window.innerWidth + 1) out.push(`the banner ends at ${banner.right} of ${window.innerWidth}`);
    return out;
  });
  assert.deepEqual(clipped, [], 'no reason is clipped');
  const layout = await page.evaluate(() => {
    const [original, modified] = ['.editor.original', '.editor.modified'].map((selector) => {
      const node = document.querySelector<HTMLElement>(selector);
      return node && node.offsetParent !== null ? node.getBoundingClientRect().width : 0;
    });
    return { original: original ?? 0, modified: modified ?? 0, window: window.innerWidth };
  });
  // Inline, Monaco keeps only the old side's line-number gutter; side by side each half is ~185 px.
  assert.ok(layout.original < 60, `no left text column, only its line numbers (${JSON.stringify(layout)})`);
  assert.ok(layout.modified > layout.window * 0.75, `one inline column uses the width (${JSON.stringify(layout)})`);
  assert.ok((await page.locator('.editor.modified .view-line').count()) > 0, 'the inline diff shows text');
  await page.keyboard.press(']');
  await waitReady(page, 2);
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('at a 400 px panel the inline diff has one column of labels: the left and right labels stack, never side by side', async () => {
  const { page, errors } = await openInspector(harness, fixtureOf(incidentReport()), 'light', 400);
  const boxes = await page.locator('.pl-columns > div').evaluateAll((labels) => labels.map((l) => l.getBoundingClientRect().toJSON() as DOMRect));
  assert.equal(boxes.length, 2, 'a label for each side');
  const [left, right] = boxes as [DOMRect, DOMRect];
  assert.equal(right.left, left.left, `both labels start at the panel's left (${left.left}, ${right.left})`);
  assert.ok(right.top >= left.bottom, `the right side's label is below the left's (${right.top} >= ${left.bottom})`);
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('at a 400 px panel a long fix name ("… in a repaired copy") wraps its controls: nothing wider than the panel', async () => {
  const file = join(ROOT, 'test', 'fixtures', 'vscode', 'compacted.requests.jsonl');
  const source = readFileSync(file, 'utf8');
  const report = checkTranscript({ file, text: source }, { keepRewrites: true });
  const { page, errors } = await openInspector(harness, fixtureOf(report, 'light', fixToCopy({ ...ENGINE, planFix }), undefined, source), 'light', 400);
  const apply = page.locator('.pl-fix-slot vscode-button', { hasText: 'Compact in whole pairs in a repaired copy' });
  await apply.waitFor();
  await page.locator('.pl-preview-toggle').click();
  await page.locator('.pl-fix-note').waitFor();
  const overflow = await page.evaluate(() => {
    const out: string[] = [];
    if (document.documentElement.scrollWidth > window.innerWidth) out.push(`the page is ${document.documentElement.scrollWidth} px wide`);
    for (const node of Array.from(document.querySelectorAll<HTMLElement>('.pl-toolbar, .pl-fix-slot, .pl-fix-slot vscode-button'))) {
      const r = node.getBoundingClientRect();
      if (r.right > window.innerWidth + 1 || r.left < -1) out.push(`${node.className || node.tagName} spans ${Math.round(r.left)}-${Math.round(r.right)}`);
    }
    return out;
  });
  assert.deepEqual(overflow, [], `nothing wider than the ${400} px panel`);
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('stepping leaves the diff where it is: a step with fewer reasons and findings keeps the banner and the tabs their height', async () => {
  const { page, errors } = await openInspector(harness, fixtureOf(incidentReport()));
  // The frame showing the step is painted, and the work the panel leaves for the idle time after it is done.
  const settled = async (step: number) => {
    await waitReady(page, step);
    await page.waitForFunction(() => Boolean(document.body.dataset.paintMs));
    await page.evaluate(() => new Promise((resolve) => requestIdleCallback(() => requestAnimationFrame(resolve))));
  };
  const diffBox = () => page.locator('.pl-diff').evaluate((e) => JSON.stringify(e.getBoundingClientRect()));
  const counts = () => page.evaluate(() => [document.querySelectorAll('.pl-reasons li').length, document.querySelectorAll('.pl-findings li').length]);
  await settled(1);
  const first = { box: await diffBox(), counts: await counts() };
  await page.keyboard.press(']');
  await settled(2);
  const [reasons, findings] = await counts();
  assert.ok(reasons! < first.counts[0]! && findings! < first.counts[1]!, `step 2 has fewer reasons and findings than step 1 (${reasons}, ${findings} < ${first.counts})`);
  assert.equal(await diffBox(), first.box, 'step 2: the diff keeps its place and size');
  await page.keyboard.press('[');
  await settled(1);
  assert.equal(await diffBox(), first.box, 'back at step 1');
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('a narrow panel: a step whose banner is taller than any before it still opens at its first change, in view once the panel is laid out', async () => {
  const { page, errors } = await openInspector(harness, fixtureOf(tallerBannerReport(), 'light', ENGINE, 1), 'light', 520);
  const reasons = () => page.locator('.pl-reasons li').count();
  assert.ok((await reasons()) <= 1, 'step 1 (an append) has a one-line banner');
  await page.keyboard.press(']');
  await waitReady(page, 2);
  assert.ok((await reasons()) >= 5, 'step 2 lists its five reasons');
  // The frame showing the step, then what the panel leaves for the idle time after it.
  await page.waitForFunction(() => Boolean(document.body.dataset.paintMs));
  await page.evaluate(() => new Promise((resolve) => requestIdleCallback(() => requestAnimationFrame(() => requestAnimationFrame(resolve)))));
  // The first change: messages 100–102 of the left side (turn 34) were dropped; the diff's box must show them.
  const shown = await page.evaluate(() => {
    const box = document.querySelector('.editor.modified .monaco-scrollable-element')!.getBoundingClientRect();
    return Array.from(document.querySelectorAll<HTMLElement>('.editor.modified .view-line'))
      .filter((line) => {
        const r = line.getBoundingClientRect();
        return r.bottom > box.top && r.top < box.bottom;
      })
      .map((line) => line.textContent ?? '')
      .join('\n');
  });
  assert.match(shown, /module_34\.ts/, `the dropped messages are on screen, not below it:\n${shown.slice(0, 400)}`);
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('a narrow panel (inline diff): messages a step dropped are shown whole below the line before them, not cut at the bottom', async () => {
  const { page, errors } = await openInspector(harness, fixtureOf(tallerBannerReport(), 'light', ENGINE, 2), 'light', 520);
  // The three dropped messages of turn 34 (user, assistant's call, its result): their first and last rows on screen once
  // the panel is laid out (polled: the editors are laid out a frame or more after the step is painted).
  const onScreen = (needles: string[]) =>
    page
      .waitForFunction(
        (needles) => {
          const box = document.querySelector('.editor.modified .monaco-scrollable-element')!.getBoundingClientRect();
          const rows = Array.from(document.querySelectorAll<HTMLElement>('.editor.modified .view-line')).filter((line) => {
            const r = line.getBoundingClientRect();
            return r.top >= box.top && r.bottom <= box.bottom;
          });
          return needles.every((needle) => rows.some((row) => (row.textContent ?? '').includes(needle)));
        },
        needles,
        { timeout: 5_000 },
      )
      .then(() => true, () => false);
  // (Monaco writes a space as U+00A0: needles without spaces.)
  assert.ok(await onScreen(['module_34.ts', 'f34()']), 'the first and the last dropped message are on screen');
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('Follow keeps a growing file\'s newest step in view; off, the selection stays', async () => {
  const fixture = fixtureOf(incidentReport());
  const full = fixture.view!;
  const { page, errors } = await openInspector(harness, fixture);
  /** The host re-sends the view of the file as it grows (here: its first `count` steps, `selected` kept). */
  const grow = (count: number, selected: number) =>
    page.evaluate(
      ({ view, count, selected, detail }) => {
        const message = { type: 'transcript', view: { ...view, steps: view.steps.slice(0, count), selected, detail } };
        window.dispatchEvent(new MessageEvent('message', { data: message }));
      },
      { view: full, count, selected, detail: fixture.details[selected]! },
    );
  await grow(2, 1);
  await waitReady(page, 1);
  const toggle = page.locator('.pl-follow');
  assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
  await toggle.click();
  assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
  await waitReady(page, 2);
  await grow(4, 2);
  await waitReady(page, 4);
  await toggle.click();
  assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
  await grow(2, 1);
  await waitReady(page, 1);
  await grow(4, 1);
  await waitReady(page, 1);
  assert.equal(await page.evaluate(() => document.body.dataset.step), '1', 'Follow off: the selected step stays');
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('[ and ] arrive as splices of the step shown; a splice of another step is asked for again whole', async () => {
  const fixture = fixtureOf(incidentReport());
  const { page, errors } = await openInspector(harness, fixture);
  const violations = await page.evaluate(() => document.body.dataset.violations);
  /** Whether Previous and Next are disabled: only at the first and the last step. */
  const ends = () => page.evaluate(() => Array.from(document.querySelectorAll('.pl-toolbar > vscode-button')).slice(0, 2).map((b) => b.hasAttribute('disabled')));
  assert.deepEqual(await ends(), [true, false], 'at step 1 of 4');
  for (const [key, step] of [[']', 2], [']', 3], [']', 4], ['[', 3], ['[', 2], ['[', 1]] as const) {
    await page.keyboard.press(key);
    await waitReady(page, step);
    assert.deepEqual(await ends(), [step === 1, step === 4], `at step ${step} of 4`);
  }
  const sent = await page.evaluate(() => (window as unknown as { __sent: string[] }).__sent);
  assert.deepEqual(sent, ['transcript', ...Array(6).fill('stepEdit')]);
  // Back at step 1 through six splices: the same diff as when it opened whole.
  assert.equal(await page.evaluate(() => document.body.dataset.violations), violations);
  assert.match((await page.locator('.editor.original .pl-boundary').textContent()) ?? '', /generation boundary after message 5/);
  // A splice computed against step 3 while step 1 is shown: not applied; the webview asks for the view again.
  await page.evaluate((edit) => window.dispatchEvent(new MessageEvent('message', { data: edit })), fixture.edits['3>4']!);
  await waitReady(page, 4);
  const posted = await page.evaluate(() => (window as unknown as { __posted: { type: string; restoredStep?: number }[] }).__posted.at(-1));
  assert.deepEqual(posted, { type: 'ready', protocol: 1, restoredStep: 4 });
  // The file grew: its new view carries the selected step as splices of the step shown.
  const grown = { type: 'transcript', view: { ...fixture.view!, selected: 3 }, edit: fixture.edits['4>3']! };
  await page.evaluate((message) => window.dispatchEvent(new MessageEvent('message', { data: message })), grown);
  await waitReady(page, 3);
  await page.waitForFunction(() => Array.from(document.querySelectorAll('.editor.modified .view-line')).some((l) => l.textContent?.includes('(rephrased)')), null, { timeout: 10_000 });
  assert.deepEqual(await page.evaluate(() => (window as unknown as { __sent: string[] }).__sent.at(-1)), 'transcript', 'no view asked for again');
  assert.deepEqual(errors, []);
  await page.context().close();
});
