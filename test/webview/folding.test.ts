/**
 * Large blocks in the inspector's diff fold behind a size badge: an unchanged
 * 28 KB tool input is one badge on each side, not a wrapped wall; a click or
 * the keyboard expands it; a block the step changed stays open.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { largeBlockReport } from '../fixtures/inspector/reports';
import { ENGINE, fixtureOf, type Harness, openInspector, OUTPUT, startHarness, waitReady } from './harness';

let harness: Harness;
before(async () => {
  harness = await startHarness();
});
after(async () => {
  await harness?.close();
});

/** Rendered lines of one side mentioning `needle` (Monaco renders only what is on screen). */
const shownLines = (page: Page, side: 'original' | 'modified', needle: string) =>
  page.locator(`.editor.${side} .view-line`).filter({ hasText: needle }).count();
/** Opens on step 1 (the append); the inspector's own choice would be step 2, the first that is not a patch. */
const stepOne = () => fixtureOf(largeBlockReport(), 'light', ENGINE, 1);
const folds = (page: Page) => page.evaluate(() => Number(document.body.dataset.folds ?? '0'));

test('an unchanged 28 KB tool input folds behind a size badge on both sides; a click expands both', async () => {
  const { page, errors } = await openInspector(harness, stepOne());
  assert.equal(await folds(page), 1, 'the heredoc is folded');
  for (const side of ['original', 'modified'] as const) {
    const badge = page.locator(`.editor.${side} .pl-fold`);
    assert.equal(await badge.count(), 1, `one badge on the ${side} side`);
    assert.match((await badge.textContent()) ?? '', /28\.\d KB block folded.*"tool_call"|28\.\d KB block folded.*toolu_big/);
    assert.equal(await shownLines(page, side, 'A long line of notes'), 0, `the ${side} side shows no line of the block`);
  }
  assert.ok((await shownLines(page, 'modified', 'Thanks, now summarise it.')) > 0, 'the appended message is in view');
  await page.screenshot({ path: join(OUTPUT, 'inspector-folded-block.png') });
  // A real click at the badge (Monaco's text layer is above view zones: the editor receives it).
  const box = (await page.locator('.editor.original .pl-fold').boundingBox())!;
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  assert.equal(await folds(page), 0);
  assert.equal(await page.locator('.pl-fold').count(), 0, 'both badges are gone');
  await page.locator('.editor.modified .view-line', { hasText: 'A long line of notes' }).first().waitFor({ timeout: 5_000 });
  assert.ok((await shownLines(page, 'original', 'A long line of notes')) > 0, 'the left side expanded too');
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('the badge is a button reached with Tab; Enter expands the block', async () => {
  const { page, errors } = await openInspector(harness, stepOne());
  const onBadge = () => page.evaluate(() => document.activeElement?.classList.contains('pl-fold') ?? false);
  for (let i = 0; i < 40 && !(await onBadge()); i++) await page.keyboard.press('Tab');
  assert.equal(await onBadge(), true, 'Tab reaches a badge');
  await page.keyboard.press('Enter');
  assert.equal(await folds(page), 0);
  await page.locator('.editor.modified .view-line', { hasText: 'A long line of notes' }).first().waitFor({ timeout: 5_000 });
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('a large block the step changed stays open (the change is the point)', async () => {
  const { page, errors } = await openInspector(harness, stepOne());
  await page.keyboard.press(']');
  await waitReady(page, 2);
  assert.equal(await folds(page), 0, 'nothing folded: the only large block is the edited one');
  assert.ok((await page.locator('.editor.modified .view-line', { hasText: 'A long line of notes' }).count()) > 0);
  await page.keyboard.press('[');
  await waitReady(page, 1);
  assert.equal(await folds(page), 1, 'back on step 1 the unchanged block folds again');
  assert.deepEqual(errors, []);
  await page.context().close();
});
