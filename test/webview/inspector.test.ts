/**
 * The built inspector webview in real headless Chromium (Debian's
 * /usr/bin/chromium via playwright-core), talking to a stub host over the real
 * protocol: boundary, pairs, orphans, stepping, reveal, state restore, fix
 * preview, a hostile transcript, and screenshots in light and dark themes.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { checkTranscript, planFix } from '../../src/core';
import type { InspectorEngine } from '../../src/extension/inspector/views';
import type { WebviewMessage } from '../../src/shared/protocol';
import { emptyReport, hostileReport, incidentReport, largeReport, msg, text } from '../fixtures/inspector/reports';
import { transcriptView } from '../../src/extension/inspector/views';
import type { HostMessage } from '../../src/shared/protocol';
import { ENGINE, fixtureOf, ROOT, type Harness, openInspector, OUTPUT, startHarness, waitReady } from './harness';

let harness: Harness;
before(async () => {
  harness = await startHarness();
});
after(async () => {
  await harness?.close();
});

const posted = (page: Page) => page.evaluate(() => (window as unknown as { __posted: WebviewMessage[] }).__posted);
const cspViolations = (page: Page) => page.evaluate(() => (window as unknown as { __csp: string[] }).__csp);
/** Monaco renders spaces as no-break spaces. */
const textOf = async (locator: ReturnType<Page['locator']>) => ((await locator.allTextContents()).join('') ?? '').replace(/\u00a0/g, ' ');
/** The locator's text once it is `expected` (Monaco paints its view lines on the next frame), or what it shows after 5 s. */
async function textOnceSettled(locator: ReturnType<Page['locator']>, expected: string): Promise<string> {
  const deadline = Date.now() + 5_000;
  let shown = await textOf(locator);
  while (shown !== expected && Date.now() < deadline) {
    await locator.page().waitForTimeout(50);
    shown = await textOf(locator);
  }
  return shown;
}
const lineWith = (page: Page, side: 'original' | 'modified', needle: string) =>
  page.locator(`.editor.${side} .view-line`).filter({ hasText: needle }).first();

test('the generation boundary is a labelled line across both sides, with its token index', async () => {
  const { page, errors } = await openInspector(harness, fixtureOf(incidentReport()));
  const left = page.locator('.editor.original .pl-boundary');
  const right = page.locator('.editor.modified .pl-boundary');
  await left.waitFor();
  assert.match((await left.textContent()) ?? '', /generation boundary after message 5 · token 5,000/);
  assert.match((await right.textContent()) ?? '', /boundary after message 3 of 4/);
  // The line sits between the last consumed message and the first unread one.
  const zone = (await left.boundingBox())!;
  const consumed = (await lineWith(page, 'original', '1,284 orders shipped last week.').boundingBox())!;
  const unread = (await lineWith(page, 'original', 'And the week before?').boundingBox())!;
  assert.ok(consumed.y < zone.y && zone.y < unread.y, `${consumed.y} < ${zone.y} < ${unread.y}`);
  assert.ok(zone.width > 300, 'spans the side');
  // Consumed lines are tinted, changed spans inside the prefix marked as violations.
  assert.ok((await page.locator('.editor.original .pl-consumed').count()) > 0);
  assert.ok((await page.locator('.editor.original .pl-violation').count()) > 0);
  assert.equal(await page.evaluate(() => document.body.dataset.violations), '2');
  assert.deepEqual(errors, []);
  assert.deepEqual(await cspViolations(page), []);
  await page.context().close();
});

test('hovering a call highlights its result on both sides', async () => {
  const { page } = await openInspector(harness, fixtureOf(incidentReport()));
  assert.equal(await page.locator('.pl-pair-active').count(), 0);
  const call = lineWith(page, 'original', '"type":"tool_use","id":"toolu_01A"');
  const box = (await call.boundingBox())!;
  await page.mouse.move(box.x + 60, box.y + box.height / 2);
  await page.waitForFunction(() => document.body.dataset.activePair === 'toolu_01A');
  await page.locator('.editor.modified .pl-pair-active').first().waitFor();
  assert.ok((await page.locator('.editor.original .pl-pair-active').count()) >= 2, 'call and result on the left');
  assert.ok((await page.locator('.editor.modified .pl-pair-active').count()) >= 1, 'the result on the right');
  // Same colour class for call and result.
  const classes = await page.locator('.editor.original .pl-pair').evaluateAll((els) => els.map((e) => e.className));
  const colours = new Set(classes.map((c) => /pl-c\d/.exec(c)?.[0]));
  assert.equal(colours.size, 1, classes.join(' | '));
  await page.mouse.move(5, 5);
  await page.waitForFunction(() => document.body.dataset.activePair === '');
  await page.context().close();
});

test('an orphaned result is drawn in the error colour with a label saying what is missing', async () => {
  const { page } = await openInspector(harness, fixtureOf(incidentReport()));
  const label = page.locator('.editor.modified .pl-orphan-label').first();
  await label.waitFor();
  assert.match(await textOf(page.locator('.editor.modified .pl-orphan-label')), /orphan: result toolu_01A has no call/);
  const colour = await label.evaluate((e) => getComputedStyle(e).color);
  assert.equal(colour, 'rgb(229, 20, 0)', 'the light theme editorError.foreground');
  assert.ok((await page.locator('.editor.modified .pl-orphan').count()) > 0);
  await page.locator('vscode-tab-header', { hasText: 'Tool pairs' }).click();
  const item = page.locator('.pl-pair-item[data-call="toolu_01A"]');
  assert.equal(await item.getAttribute('data-state'), 'orphan-result');
  await page.context().close();
});

test('a pending call at the frontier is marked pending', async () => {
  const { page } = await openInspector(harness, fixtureOf(incidentReport(), 'light', ENGINE, 2));
  const label = page.locator('.editor.modified .pl-pending-label').first();
  await label.waitFor();
  assert.match(await textOf(page.locator('.editor.modified .pl-pending-label')), /pending: no result for toolu_02B yet/);
  await page.context().close();
});

test('keyboard stepping: ] next, [ previous, n next non-patch step, also with the diff focused', async () => {
  const { page } = await openInspector(harness, fixtureOf(incidentReport()));
  assert.equal(await page.evaluate(() => document.body.dataset.step), '1');
  await page.keyboard.press(']');
  await waitReady(page, 2);
  assert.match((await page.locator('.pl-banner').textContent()) ?? '', /PATCH\s*Step 2 of 4/);
  await page.keyboard.press(']');
  await waitReady(page, 3);
  assert.match((await page.locator('.pl-banner').textContent()) ?? '', /DEFER[\s\S]*self_edit[\s\S]*untrusted/);
  await page.keyboard.press('[');
  await waitReady(page, 2);
  await page.keyboard.press('n');
  await waitReady(page, 3);
  await lineWith(page, 'modified', '"role":"system"').click();
  await page.keyboard.press('n');
  await waitReady(page, 1);
  assert.match((await page.locator('.pl-banner').textContent()) ?? '', /ABORT/);
  await page.locator('.pl-tick[data-step="4"]').click();
  await waitReady(page, 4);
  const steps = (await posted(page)).filter((m) => m.type === 'selectStep').map((m) => (m.type === 'selectStep' ? m.step : 0));
  assert.deepEqual(steps, [2, 3, 2, 3, 1, 4]);
  await page.context().close();
});

test('clicking a finding asks the host to reveal its exact range', async () => {
  const report = incidentReport();
  const { page } = await openInspector(harness, fixtureOf(report));
  await page.locator('.pl-finding[data-rule="schema-dropped"]').click();
  const expected = report.findings.find((f) => f.rule === 'schema-dropped')!.range;
  const reveal = (await posted(page)).filter((m) => m.type === 'reveal');
  assert.deepEqual(reveal, [{ type: 'reveal', range: { start: expected.start, end: expected.end } }]);
  await page.context().close();
});

test('the current step survives a reload (setState → ready.restoredStep)', async () => {
  const { page } = await openInspector(harness, fixtureOf(incidentReport()));
  await page.keyboard.press(']');
  await waitReady(page, 2);
  await page.keyboard.press(']');
  await waitReady(page, 3);
  await page.reload();
  await waitReady(page, 3);
  const ready = (await posted(page)).find((m) => m.type === 'ready');
  assert.deepEqual(ready, { type: 'ready', protocol: 1, restoredStep: 3 });
  assert.match((await page.locator('.pl-banner').textContent()) ?? '', /Step 3 of 4/);
  await page.context().close();
});

test('an aborting step with a planned fix: preview shows the fixed window, Apply asks the host', async () => {
  const withFix: InspectorEngine = {
    ...ENGINE,
    planFix: (rewrite) => ({
      title: 'Compact in whole pairs',
      description: 'Elided 1 tool pair (toolu_01A).',
      window: {
        ...rewrite.after,
        messages: [...rewrite.after.messages.filter((m) => m.blocks.every((b) => b.kind !== 'tool_result')), msg('user', text('[elided: 1 tool pair]'))],
      },
      verdict: { decision: 'defer', source: rewrite.source, findings: [], cacheImpact: { consumedTokens: 0, invalidatedTokens: 0 } },
      edits: [],
    }),
  };
  const { page } = await openInspector(harness, fixtureOf(incidentReport(), 'light', withFix));
  const toggle = page.locator('.pl-preview-toggle');
  await toggle.waitFor();
  await toggle.click();
  await page.locator('.editor.modified .view-line', { hasText: '[elided: 1 tool pair]' }).waitFor();
  assert.match((await page.locator('.pl-fix-note').textContent()) ?? '', /Fix preview \(DEFER\): Compact in whole pairs/);
  assert.equal(await page.locator('.editor.modified .pl-orphan').count(), 0);
  assert.equal(await page.locator('.pl-preview-toggle').getAttribute('aria-pressed'), 'true');
  await page.screenshot({ path: join(OUTPUT, 'inspector-fix-preview.png') });
  await page.locator('.pl-fix-slot vscode-button', { hasText: 'Compact in whole pairs' }).click();
  await page.locator('.pl-notice', { hasText: 'Compacted in whole pairs.' }).waitFor();
  assert.ok((await posted(page)).some((m) => m.type === 'applyFix' && m.step === 1));
  await page.context().close();
});

/** The host switching the panel to another transcript: a message as the real host posts it. */
async function hostSends(page: Page, message: HostMessage): Promise<void> {
  await page.evaluate((data) => {
    document.body.dataset.ready = 'false';
    window.dispatchEvent(new MessageEvent('message', { data }));
  }, message);
  await waitReady(page);
}

test('switching to a file with no steps drops the previous diff, fix preview and Apply; it says it is clean', async () => {
  const file = join(ROOT, 'examples', 'self-edit.trace.jsonl');
  const source = readFileSync(file, 'utf8');
  const report = checkTranscript({ file, text: source }, { keepRewrites: true });
  const engine: InspectorEngine = { ...ENGINE, planFix: (rewrite, sourceText) => planFix(rewrite, sourceText) };
  const { page, errors } = await openInspector(harness, fixtureOf(report, 'light', engine, undefined, source));
  await page.locator('.pl-preview-toggle').click();
  await page.locator('.pl-fix-note').waitFor();
  assert.ok((await page.locator('.editor.modified .view-line').count()) > 1, 'the fix preview is shown');
  await hostSends(page, { type: 'transcript', view: transcriptView(emptyReport(), undefined, ENGINE) });
  assert.equal(await page.locator('.pl-fix-slot vscode-button').count(), 0, 'no Preview / Apply for a file without steps');
  const stepping = await page.evaluate(() => Array.from(document.querySelectorAll<HTMLElement>('.pl-toolbar > vscode-button:not(.pl-follow)')).map((b) => [b.textContent?.trim() || b.title, b.hasAttribute('disabled')]));
  assert.deepEqual(stepping, [['Previous step ( [ )', true], ['Next step ( ] )', true], ['Next non-patch step', true]], 'nothing to step to');
  assert.equal(await page.locator('.pl-banner').count(), 0);
  assert.equal(await textOnceSettled(page.locator('.editor.original .view-line'), ''), '', 'the old diff is gone (left)');
  assert.equal(await textOnceSettled(page.locator('.editor.modified .view-line'), ''), '', 'the old diff is gone (right)');
  assert.match((await page.locator('.pl-notice').textContent()) ?? '', /No rewrite steps in \/work\/empty\.jsonl[\s\S]*Clean: no problems found/);
  // Back to the first file: its step shows again, without the preview that was on for it before.
  await hostSends(page, { type: 'transcript', view: transcriptView(report, undefined, engine, source) });
  assert.equal(await page.locator('.pl-preview-toggle').getAttribute('aria-pressed'), 'false');
  assert.equal(await page.locator('.pl-fix-note').count(), 0);
  // "No transcript" clears everything too.
  await hostSends(page, { type: 'empty', reason: 'Open a transcript to inspect its rewrites.' });
  assert.equal(await page.locator('.pl-fix-slot vscode-button').count(), 0);
  assert.equal(await textOnceSettled(page.locator('.editor.modified .view-line'), ''), '', 'no transcript, no diff');
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('a file with no steps shows its tool pairs at once (their tab open) and says it is clean; a file with steps opens on Findings again', async () => {
  const file = join(ROOT, 'test', 'fixtures', 'vscode', 'anthropic-clean.json');
  const source = readFileSync(file, 'utf8');
  const clean = checkTranscript({ file, text: source }, { keepRewrites: true });
  assert.equal(clean.steps.length, 0, 'one request: no steps');
  const { page, errors } = await openInspector(harness, fixtureOf(incidentReport()));
  await hostSends(page, { type: 'transcript', view: transcriptView(clean, undefined, ENGINE, source) });
  assert.match((await page.locator('.pl-notice').textContent()) ?? '', /Clean: no problems found\. Its 1 tool call is listed under Tool pairs\./);
  const pair = page.locator('.pl-pairs .pl-pair-item', { hasText: 'toolu_01C' });
  await pair.waitFor({ state: 'visible', timeout: 5_000 });
  assert.equal(await page.locator('.pl-tabs').evaluate((tabs) => (tabs as HTMLElement & { selectedIndex: number }).selectedIndex), 1, 'the Tool pairs tab is open');
  await hostSends(page, { type: 'transcript', view: transcriptView(incidentReport(), undefined, ENGINE) });
  assert.equal(await page.locator('.pl-tabs').evaluate((tabs) => (tabs as HTMLElement & { selectedIndex: number }).selectedIndex), 0, 'back on a file with steps: Findings');
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('a hostile transcript renders inert and readable', async () => {
  const { page, errors } = await openInspector(harness, fixtureOf(hostileReport(), 'dark'), 'dark');
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned), undefined, 'no script ran');
  assert.equal(await page.locator('#app img, #app script, #app svg[onload], #app a[href^="javascript"]').count(), 0);
  await lineWith(page, 'original', '<script>window.__pwned').waitFor();
  await lineWith(page, 'original', '</textarea><svg onload=').waitFor();
  assert.ok(((await page.locator('.pl-banner').textContent()) ?? '').includes('<img src=x onerror="window.__pwned=\'finding\'">'));
  const width = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  assert.ok(width[0]! <= width[1]!, `no horizontal overflow ${width}`);
  assert.deepEqual(await cspViolations(page), []);
  assert.deepEqual(errors, []);
  await page.screenshot({ path: join(OUTPUT, 'inspector-hostile-dark.png') });
  await page.context().close();
});

test('a 10k-message window opens, decorates only what is on screen, and steps', async () => {
  const { page, errors } = await openInspector(harness, fixtureOf(largeReport(10_000)));
  const lines = await page.evaluate(() => document.querySelectorAll('.editor.original .view-line').length);
  assert.ok(lines < 400, `only visible lines in the DOM (${lines})`);
  assert.ok((await page.locator('.editor.original .pl-pair').count()) < 400);
  // Each step opens at its first change: the dropped messages 100–102 (turn 34), then the appended message at the end.
  assert.match(await textOf(page.locator('.editor.original .view-line')), /module_34\.ts/, 'step 1 scrolled to its change');
  assert.doesNotMatch(await textOf(page.locator('.editor.original .view-line')), /module_1\.ts/, 'not at the top');
  await page.keyboard.press(']');
  await waitReady(page, 2);
  await page.waitForFunction(() => Array.from(document.querySelectorAll('.editor.modified .view-line')).some((l) => l.textContent?.includes('"next"')), null, { timeout: 10_000 });
  assert.deepEqual(errors, []);
  await page.context().close();
});

for (const theme of ['light', 'dark', 'high-contrast'] as const) {
  test(`screenshot: ${theme} theme`, async () => {
    const { page } = await openInspector(harness, fixtureOf(incidentReport(), theme), theme);
    const call = lineWith(page, 'original', '"type":"tool_use","id":"toolu_01A"');
    const box = (await call.boundingBox())!;
    await page.mouse.move(box.x + 60, box.y + box.height / 2);
    await page.waitForFunction(() => document.body.dataset.activePair === 'toolu_01A');
    await page.screenshot({ path: join(OUTPUT, `inspector-${theme}.png`) });
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(background, { light: 'rgb(255, 255, 255)', dark: 'rgb(31, 31, 31)', 'high-contrast': 'rgb(0, 0, 0)' }[theme]);
    await page.context().close();
  });
}

for (const theme of ['light', 'dark'] as const) {
  test(`the real engine's seed incident (${theme}): abort with its reasons, the orphan, and a fix preview`, async () => {
    const file = join(ROOT, 'examples', 'seed-incident.trace.jsonl');
    const source = readFileSync(file, 'utf8');
    const report = checkTranscript({ file, text: source }, { keepRewrites: true });
    const engine: InspectorEngine = { ...ENGINE, planFix };
    const { page, errors } = await openInspector(harness, fixtureOf(report, theme, engine, undefined, source), theme);
    const bannerText = (await page.locator('.pl-banner').textContent()) ?? '';
    for (const rule of ['ABORT', 'tool-result-orphaned', 'schema-dropped', 'prefix-mutated']) assert.ok(bannerText.includes(rule), rule);
    await page.locator('.editor.modified .pl-orphan-label').first().waitFor();
    const call = page.locator('.editor.original .pl-call').first();
    const box = (await call.boundingBox())!;
    await page.mouse.move(box.x + 20, box.y + box.height / 2);
    await page.locator('.editor.modified .pl-pair-active').first().waitFor();
    await page.screenshot({ path: join(OUTPUT, `inspector-seed-incident-${theme}.png`) });
    await page.locator('.pl-preview-toggle').click();
    await page.locator('.pl-fix-note').waitFor();
    await waitReady(page, 1);
    assert.equal(await page.locator('.editor.modified .pl-orphan').count(), 0, 'the fixed window has no orphan');
    await page.screenshot({ path: join(OUTPUT, `inspector-seed-incident-fix-${theme}.png`) });
    assert.deepEqual(errors, []);
    await page.context().close();
  });
}

test('the seed incident\'s plan only gives back the window before its compaction: button, preview and label say "Revert the rewrite"', async () => {
  const file = join(ROOT, 'examples', 'seed-incident.trace.jsonl');
  const source = readFileSync(file, 'utf8');
  const report = checkTranscript({ file, text: source }, { keepRewrites: true });
  const { page, errors } = await openInspector(harness, fixtureOf(report, 'light', { ...ENGINE, planFix }, undefined, source));
  const buttons = () => page.locator('.pl-fix-slot vscode-button').allTextContents();
  assert.deepEqual((await buttons()).map((t) => t.trim()), ['Preview fix', 'Revert the rewrite']);
  await page.locator('.pl-preview-toggle').click();
  await page.locator('.pl-fix-note').waitFor();
  assert.match((await page.locator('.pl-fix-note').textContent()) ?? '', /^Fix preview \(PATCH\): Revert the rewrite\. Keeping its tool pairs whole gives back the window before the rewrite, byte for byte\./);
  assert.match((await page.locator('.pl-columns').textContent()) ?? '', /Planned fix: Revert the rewrite \(preview\)/);
  assert.deepEqual((await buttons()).map((t) => t.trim()), ['Hide fix', 'Revert the rewrite']);
  assert.ok(!(await page.locator('body').innerText()).includes('Compact in whole pairs'), 'no other name for it');
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('a request log holding several conversations: the banner and the timeline name the thread of each step', async () => {
  const file = join(ROOT, 'test', 'fixtures', 'providers', 'anthropic-log-interleaved-edited.jsonl');
  const source = readFileSync(file, 'utf8');
  const report = checkTranscript({ file, text: source }, { keepRewrites: true, tokens: false });
  const { page, errors } = await openInspector(harness, fixtureOf(report, 'light', ENGINE, undefined, source));
  assert.equal(await page.evaluate(() => document.body.dataset.step), '2', 'opens on the first non-patch step');
  assert.match((await page.locator('.pl-banner .pl-step').textContent()) ?? '', /^Step 2 of 4 \(thread 2\)$/);
  assert.deepEqual(
    await page.locator('.pl-tick').evaluateAll((ticks) => ticks.map((t) => t.getAttribute('title'))),
    ['Step 1 (thread 1): PATCH · request', 'Step 2 (thread 2): DEFER · request · prefix-mutated', 'Step 3 (thread 1): PATCH · request', 'Step 4 (thread 1): PATCH · request'],
  );
  assert.deepEqual(errors, []);
  await page.context().close();
});
