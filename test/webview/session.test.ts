/**
 * The built session view webview in real headless Chromium, talking to a stub
 * host over the real protocol with snapshots built by the real view builder
 * from real files: a corpus session, hostile text, a 10k-message session,
 * keyboard, pair linking, a growing file, and screenshots in light, dark and
 * high contrast.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { checkTranscript } from '../../src/core/check';
import { inputFromFile, inputFromText } from '../../src/core/io';
import { checkSession, readSubAgents } from '../../src/core/sub-agents';
import { sessionView } from '../../src/extension/session-view/view';
import type { SessionView, SessionWebviewMessage } from '../../src/shared/session-protocol';
import { HOSTILE_TEXTS } from '../fixtures/inspector/reports';
import { type Harness, OUTPUT, ROOT, startHarness } from './harness';
import { anthropicRequest } from './session-fixtures';
import { type ThemeName, THEMES } from './themes';
import { CORPUS } from '../support/corpus';

const TOOL_HEAVY = join(CORPUS, 'claude-code/spotter_tool_heavy.jsonl');
const COMPACTION = join(CORPUS, 'claude-code/spotter_4d5611e5-241a-462a-8d15-5122611a9569.excerpt-L742-L790.jsonl');
const SIDE_CHAINS = join(ROOT, 'test/fixtures/claude-code/inline-side-chains.jsonl');

let harness: Harness;
before(async () => {
  harness = await startHarness();
});
after(async () => {
  await harness?.close();
});

const viewOfFile = (file: string) => sessionView(checkTranscript(inputFromFile(file), { keepRewrites: true, tokens: false }), true);

const viewOfText = (file: string, text: string) => sessionView(checkTranscript(inputFromText(file, text), { keepRewrites: true, tokens: false }), true);

async function open(view: SessionView, theme: ThemeName = 'light'): Promise<{ page: Page; errors: string[] }> {
  const context = await harness.browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (m) => m.type() === 'error' && errors.push(`console: ${m.text()}`));
  await page.addInitScript((data) => {
    const w = window as unknown as { __session: unknown; __csp: string[] };
    w.__session = data;
    w.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => w.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
  }, { view, theme: THEMES[theme] });
  await page.goto(`${harness.origin}/session?theme=${theme}`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true');
  return { page, errors };
}

const posted = (page: Page) => page.evaluate(() => (window as unknown as { __posted: SessionWebviewMessage[] }).__posted);
const selected = (page: Page) => page.evaluate(() => Number(document.body.dataset.selected));

test('a clean Claude Code session says so; a call links to its result and back', async () => {
  const view = viewOfFile(TOOL_HEAVY);
  const { page, errors } = await open(view);
  assert.match((await page.locator('.sv-title').textContent()) ?? '', /clean ✓/);
  assert.match((await page.locator('.sv-facts').first().textContent()) ?? '', /claude-code · claude-opus-4-6 · .* · 6 pairs ✓ · 0 compactions/);
  const call = page.locator('.sv-tool[data-role="call"]').first();
  const id = await call.getAttribute('data-call');
  await call.click();
  const resultRow = await selected(page);
  const row = view.rows[resultRow]!;
  assert.ok(row.kind === 'message' && row.tools.some((t) => t.role === 'result' && t.id === id), 'the result of the clicked call is selected');
  // Every request's cache figures: listed in the header, and at the row that reports it.
  assert.equal(await page.locator('.sv-cache-rows li').count(), view.summary.cache.length);
  assert.match((await page.locator('.sv-cache-rows li').nth(1).textContent()) ?? '', /request 2 \(claude-opus-4-6\): .* 25,798 read of 25,798 left cached .* predicted: prefix intact · agrees/);
  const cached = page.locator('.sv-row', { has: page.locator('.sv-cache') }).first();
  assert.match((await cached.locator('.sv-cache').textContent()) ?? '', /^cache 17,915 read · 7,883 written$/);
  await cached.click();
  assert.match((await page.locator('.sv-cache-line').textContent()) ?? '', /^Cache: request 1 /);
  await call.click();
  await page.locator('.sv-tool-detail .sv-link').first().click();
  const back = view.rows[await selected(page)]!;
  assert.ok(back.kind === 'message' && back.tools.some((t) => t.role === 'call' && t.id === id), 'and its link leads back to the call');
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('keys: next step, next problem, Enter opens the step; a finding reveals its bytes', async () => {
  const view = viewOfFile(COMPACTION);
  const { page } = await open(view);
  await page.locator('.sv-scroller').focus();
  await page.keyboard.press('s');
  const step = view.rows[await selected(page)]!;
  assert.equal(step.kind, 'step');
  await page.keyboard.press('Enter');
  assert.deepEqual((await posted(page)).at(-1), { type: 'openStep', step: 1 });
  await page.keyboard.press('t');
  const turn = view.rows[await selected(page)]!;
  assert.ok(turn.kind === 'message' && turn.role === 'user');
  await page.keyboard.press('E');
  assert.equal(view.rows[await selected(page)]!.kind, 'step', 'previous problem: the step');
  await page.locator('.sv-finding').first().click();
  const reveal = (await posted(page)).at(-1);
  assert.ok(reveal?.type === 'reveal' && step.kind === 'step' && reveal.range.start === step.findings[0]!.range.start);
  await page.locator('#sv-problems').check();
  assert.equal(await page.locator('.sv-row').count(), 1, 'problems only: the step');
  await page.context().close();
});

test('sub-agents: nested under the call that started them, linked both ways; the one-thread filter', async () => {
  const view = viewOfFile(SIDE_CHAINS);
  const { page, errors } = await open(view);
  const headers = page.locator('.sv-row[data-kind="thread"]');
  assert.equal(await headers.count(), 2);
  assert.match((await headers.first().textContent()) ?? '', /sub-agent Explore · 4 messages · 1 pair ✓/);
  assert.ok((await page.locator('.sv-row.sv-nested').count()) >= 8, 'the side-chains’ rows are indented under their header');
  // The Task call's chip leads to its sub-agent; the header leads back to the call.
  const call = page.locator('.sv-tool[data-call="toolu_task_1"][data-role="call"]');
  assert.match((await call.textContent()) ?? '', /sub-agent ⤵/);
  await page.locator('.sv-row', { has: call }).click();
  await page.locator('[data-thread-row]').first().click();
  const header = view.rows[await selected(page)]!;
  assert.ok(header.kind === 'thread' && header.label === 'sub-agent Explore');
  await page.locator('.sv-detail [data-partner]').click();
  const back = view.rows[await selected(page)]!;
  assert.ok(back.kind === 'message' && back.tools.some((t) => t.id === 'toolu_task_1'));
  // One thread: the toolbar select, and the header's "Show only this conversation".
  await page.locator('select[aria-label="Only one thread"]').selectOption('3');
  const shown = await page.locator('.sv-row').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.thread));
  assert.ok(shown.length === 5 && shown.every((t) => t === '3'), JSON.stringify(shown));
  await page.locator('select[aria-label="Only one thread"]').selectOption('');
  await headers.first().click();
  await page.locator('[data-only-thread]').click();
  const only = await page.locator('.sv-row').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.thread));
  assert.ok(only.length === 5 && only.every((t) => t === '2'), JSON.stringify(only));
  assert.equal(await page.locator('select[aria-label="Only one thread"]').inputValue(), '2');
  await page.screenshot({ path: join(OUTPUT, 'session-sub-agents.png') });
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('sub-agent files (Claude Code 2.x): nested under their calls, said in the header; their findings reveal in their own file', async () => {
  const file = join(ROOT, 'test/fixtures/claude-code/subagents/5e551013-0000-4000-8000-000000000002.jsonl');
  const view = sessionView(checkSession(inputFromFile(file), readSubAgents(file), { keepRewrites: true, tokens: false }), true, 5);
  const { page, errors } = await open(view);
  assert.match((await page.locator('.sv-header').textContent()) ?? '', /sub-agent files: 2 · 1 with problems · 0 not read/);
  const headers = page.locator('.sv-row[data-kind="thread"]');
  assert.deepEqual(await headers.allTextContents(), [
    'sub-agentsub-agent Explore (a1b2c3d4e5f60718) · 4 messages · 1 pair ✓ · no problems · log: 2 requests, 3,900 cache read, 4,020 writtenstarted by the call at row 2',
    'sub-agentsub-agent general-purpose (a9e8d7c6b5a40312) · 6 messages · 1 pair · 2 orphaned · 2 problems · log: 3 requests, 8,490 cache read, 4,490 writtenstarted by the call at row 2',
  ]);
  // Each request of a sub-agent's log: its cache chip at its row, from that file's own figures.
  const answer = view.rows.findIndex((r) => r.kind === 'message' && r.file === 1 && r.text.startsWith('One test fails'));
  assert.match((await page.locator(`.sv-row[data-index="${answer}"] .sv-cache`).textContent()) ?? '', /cache 4,290 read · 200 written/);
  const orphan = view.rows.findIndex((r) => r.kind === 'message' && r.file === 1 && r.tools.some((t) => t.state === 'orphan-result'));
  await page.locator(`.sv-row[data-index="${orphan}"]`).click();
  await page.locator('.sv-detail .sv-finding').first().click();
  const reveal = (await posted(page)).at(-1);
  assert.ok(reveal?.type === 'reveal' && reveal.file === 1 && reveal.generation === 5, JSON.stringify(reveal));
  await page.locator('.sv-scroller').press('Enter');
  const enter = (await posted(page)).at(-1);
  assert.ok(enter?.type === 'reveal' && enter.file === 1 && enter.generation === 5 && enter.range.start === view.rows[orphan]!.range!.start, JSON.stringify(enter));
  await page.screenshot({ path: join(OUTPUT, 'session-sub-agent-files.png') });
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('a file with one conversation has no thread filter', async () => {
  const { page } = await open(viewOfFile(TOOL_HEAVY));
  assert.equal(await page.locator('select[aria-label="Only one thread"]').isHidden(), true);
  await page.context().close();
});

test('hostile text is shown as text and runs nothing', async () => {
  const hostile = anthropicRequest(HOSTILE_TEXTS.length, (i) => HOSTILE_TEXTS[i]!);
  const { page, errors } = await open(viewOfText('/tmp/<img src=x onerror=alert(1)>.json', hostile), 'dark');
  assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned), undefined);
  assert.equal(await page.locator('#app script, #app img, #app svg, #app a[href]').count(), 0);
  await page.locator('.sv-row', { hasText: '<img src=x' }).first().click();
  assert.match((await page.locator('.sv-text').textContent()) ?? '', /<img src=x onerror=/);
  assert.deepEqual(await page.evaluate(() => (window as unknown as { __csp: string[] }).__csp), []);
  assert.deepEqual(errors, []);
  await page.context().close();
});

test("a notice instead of a view (a check's error) is shown as text and runs nothing", async () => {
  const { page, errors } = await open(viewOfFile(TOOL_HEAVY));
  const reason = 'Prefix Lens cannot show this file as a session: <img src=x onerror="window.__pwned=1"> no worker';
  await page.evaluate((r) => (window as unknown as { __notice(r: string): void }).__notice(r), reason);
  await page.waitForFunction((r) => document.querySelector('.sv-notice')?.textContent === r, reason);
  assert.equal(await page.locator('.sv-row').count(), 0, 'no rows of the view before');
  assert.equal(await page.locator('#app img').count(), 0);
  assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('a 10k-message session renders only the rows in view, and scrolls to the end', async () => {
  const view = viewOfText('/work/large.json', anthropicRequest(3400));
  assert.ok(view.rows.length >= 10_000);
  const { page } = await open(view);
  assert.ok((await page.locator('.sv-row').count()) < 60, 'only visible rows are in the DOM');
  await page.locator('.sv-scroller').evaluate((s) => (s.scrollTop = s.scrollHeight));
  await page.locator('.sv-row', { hasText: 'Done?' }).waitFor();
  assert.ok((await page.locator('.sv-row').count()) < 60);
  await page.context().close();
});

test('a growing file: a new snapshot appends rows and keeps the selection', async () => {
  const { page } = await open(viewOfText('/work/grow.json', anthropicRequest(2)));
  await page.locator('.sv-row').nth(2).click();
  const before = await selected(page);
  const grown = viewOfText('/work/grow.json', anthropicRequest(4));
  await page.evaluate((v) => (window as unknown as { __push(v: unknown): void }).__push(v), grown);
  await page.waitForFunction((n) => document.body.dataset.rows === String(n), grown.rows.length);
  assert.equal(await selected(page), before);
  await page.context().close();
});

for (const theme of ['light', 'dark', 'high-contrast'] as const) {
  test(`screenshot: ${theme} theme`, async () => {
    const { page, errors } = await open(viewOfFile(COMPACTION), theme);
    await page.locator('.sv-row[data-kind="step"]').click();
    await page.screenshot({ path: join(OUTPUT, `session-${theme}.png`) });
    assert.deepEqual(errors, []);
    await page.context().close();
  });
}
