/**
 * UI scenarios against the real workbench (code-server 4.100.3 + Debian
 * chromium through playwright-core): the extension loaded from source, the
 * seed incident open. Screenshots go to test-output/vscode/.
 * Run: `node --import tsx test/vscode/ui/run.ts` (part of `npm run test:vscode`).
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Frame, Page } from 'playwright-core';
import { launchChromium, newWorkbenchPage } from '../../../scripts/vscode/browser';
import { REPO_ROOT, startCodeServer, workbenchUrl, type RunningCodeServer } from '../../../scripts/vscode/codeServer';

const OUT = join(REPO_ROOT, 'test-output', 'vscode');
const SEED = join(REPO_ROOT, 'examples', 'seed-incident.trace.jsonl');
const TIMEOUT = 120_000;

let server: RunningCodeServer | undefined;
let browser: Browser | undefined;
let page: Page;

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(OUT, name) });
}

/** Runs a command from the palette by its title. */
async function runCommand(title: string): Promise<void> {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: TIMEOUT });
  await input.fill(`>${title}`);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ timeout: TIMEOUT });
  await page.keyboard.press('Enter');
}

/** The first webview frame whose body contains `needle`, with its text. */
async function webviewText(needle: string): Promise<{ frame: Frame; text: string }> {
  const deadline = Date.now() + TIMEOUT;
  while (Date.now() < deadline) {
    // webviews only: the workbench itself shows ABORT in the CodeLens and the Problems panel
    for (const frame of page.frames().filter((f) => f !== page.mainFrame())) {
      const text = await bodyText(frame);
      if (text.includes(needle)) return { frame, text };
    }
    await page.waitForTimeout(250);
  }
  throw new Error(`no webview shows "${needle}"`);
}

async function bodyText(frame: Frame): Promise<string> {
  try {
    return await frame.evaluate(() => document.body?.innerText ?? '');
  } catch {
    return '';
  }
}

before(async () => {
  mkdirSync(OUT, { recursive: true });
  server = await startCodeServer({ verbose: process.env.PREFIX_LENS_VERBOSE === '1' });
  browser = await launchChromium();
  page = await newWorkbenchPage(browser);
  page.setDefaultTimeout(TIMEOUT);
  await page.goto(workbenchUrl(server, { folder: join(REPO_ROOT, 'examples'), extensionDevelopmentPath: [REPO_ROOT], openFile: SEED }), { waitUntil: 'commit', timeout: 180_000 });
  await page.locator('.monaco-workbench').waitFor();
  await page.locator('.monaco-editor .view-lines', { hasText: 'prefix-lens/trace' }).first().waitFor();
});

after(async () => {
  await browser?.close().catch(() => undefined);
  await server?.stop();
});

test('opening the seed incident: CodeLens and squiggles in the editor', async () => {
  const lens = page.locator('.codelens-decoration', { hasText: 'Step 1/1 · ABORT' });
  await lens.first().waitFor();
  const text = await lens.first().innerText();
  assert.match(text, /tool-result-orphaned toolu_01/);
  assert.match(text, /cache −[\d,]+ tokens/);
  await page.locator('.squiggly-error').first().waitFor();
  await shot('editor-codelens.png');
});

test('the Problems panel lists the findings with their rule ids', async () => {
  await runCommand('View: Focus Problems');
  const panel = page.locator('.markers-panel');
  await panel.waitFor();
  await page.locator('.markers-panel .monaco-list-row', { hasText: 'tool-result-orphaned' }).first().waitFor();
  const text = await panel.innerText();
  for (const rule of ['tool-result-orphaned', 'schema-dropped', 'prefix-mutated']) assert.ok(text.includes(rule), `${rule} in:\n${text}`);
  assert.match(text, /seed-incident\.trace\.jsonl/);
  await shot('problems-panel.png');
});

test('"Prefix Lens: Open Inspector" shows the decision banner in a webview', async () => {
  await page.locator('.monaco-editor .view-lines').first().click();
  await runCommand('Prefix Lens: Open Inspector');
  const { frame, text } = await webviewText('ABORT');
  assert.match(text, /tool-result-orphaned/);
  const banner = frame.locator('.pl-banner[data-decision="abort"]').first();
  await banner.waitFor({ state: 'attached' });
  assert.match(await banner.innerText(), /ABORT/);
  await page.waitForTimeout(5000); // a busy machine paints the webview (and Monaco's diff) late
  await shot('inspector.png');
});

test('"Prefix Lens: Open Session View" shows a real Claude Code session as a timeline', async () => {
  const session = join(REPO_ROOT, '..', 'shared', 'corpus', 'claude-code', 'spotter_4d5611e5-241a-462a-8d15-5122611a9569.excerpt-L742-L790.jsonl');
  await page.goto(workbenchUrl(server!, { folder: join(REPO_ROOT, 'examples'), extensionDevelopmentPath: [REPO_ROOT], openFile: session }), { waitUntil: 'commit', timeout: 180_000 });
  await page.locator('.monaco-editor .view-lines', { hasText: 'parentUuid' }).first().waitFor();
  await page.locator('.monaco-editor .view-lines').first().click();
  await runCommand('Prefix Lens: Open Session View');
  const { frame, text } = await webviewText('DEFER');
  assert.match(text, /claude-code · claude-opus-4-6/);
  assert.match(text, /3 pairs ✓ · 1 compaction/);
  await frame.locator('.sv-row[data-kind="step"]').first().click();
  await page.waitForTimeout(3000);
  await shot('session-view.png');
});
