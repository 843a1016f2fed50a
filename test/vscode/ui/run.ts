/**
 * UI scenarios against the real workbench (code-server 4.100.3 + Debian
 * chromium through playwright-core): the extension loaded from source, the
 * seed incident open. Screenshots go to test-output/vscode/.
 * Run: `node --import tsx test/vscode/ui/run.ts` (part of `npm run test:vscode`).
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Frame, Page } from 'playwright-core';
import { recordTimes, typingCounts } from '../../../bench/vscode-record';
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
  // The lens's text, not innerText: a refresh (another report of the same file) renders the lenses
  // anew, hidden until laid out, and innerText of a hidden lens is empty.
  const text = (await lens.first().textContent()) ?? '';
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
  // The status bar item of the active transcript (a click on it opens the session view too).
  await page.locator('.statusbar-item', { hasText: 'claude-code · 1 rewrite (1 defer) · 3 pairs ✓' }).first().waitFor();
  await runCommand('Prefix Lens: Open Session View');
  const { frame, text } = await webviewText('DEFER');
  assert.match(text, /claude-code · claude-opus-4-6/);
  assert.match(text, /3 pairs ✓ · 1 compaction/);
  await frame.locator('.sv-row[data-kind="step"]').first().click();
  await page.waitForTimeout(3000);
  await shot('session-view.png');
});

/** Opens `file` in a fresh workbench (its folder as the workspace; the extension loaded unless `withExtension` is false), past the large-file question, and waits for its text. */
async function openWorkbench(file: string, text: string, withExtension = true): Promise<void> {
  await page.goto(workbenchUrl(server!, { folder: dirname(file), extensionDevelopmentPath: withExtension ? [REPO_ROOT] : [], openFile: file }), { waitUntil: 'commit', timeout: 180_000 });
  const shown = page.locator('.monaco-editor .view-lines', { hasText: text }).first();
  // Remote workbenches ask before opening a file over 10 MB (workbench.editorLargeFileConfirmation).
  const anyway = page.getByText('Open Anyway', { exact: true }).first();
  await shown.or(anyway).first().waitFor();
  if (await anyway.isVisible()) await anyway.click();
  await shown.waitFor();
}

/** A private copy of the three-step fixture in its own folder (keys may be typed at it). */
function threeSteps(folder: string): { file: string; original: string } {
  const file = join(OUT, folder, 'three-steps.trace.jsonl');
  mkdirSync(dirname(file), { recursive: true });
  copyFileSync(join(REPO_ROOT, 'test', 'fixtures', 'vscode', 'three-steps.trace.jsonl'), file);
  return { file, original: readFileSync(file, 'utf8') };
}

/** Where the workbench's keyboard focus is: the transcript's text editor, a webview, or elsewhere. */
const workbenchFocus = () =>
  page.evaluate(() => {
    const active = document.activeElement;
    if (active?.closest('.monaco-editor')) return 'text editor';
    return active?.tagName === 'IFRAME' && active.classList.contains('webview') ? 'webview' : `${active?.tagName}`;
  });

test('"Open Inspector" gives the panel focus at once: ] [ n step in it and never type into the transcript', async () => {
  const { file, original } = threeSteps('keys');
  await openWorkbench(file, 'prefix-lens/trace');
  await page.locator('.monaco-editor .view-lines').first().click();
  await runCommand('Prefix Lens: Open Inspector');
  await page.locator('.tab', { hasText: 'Inspector: three-steps' }).first().waitFor();
  // Typed as soon as the panel's tab is there, before its page has loaded: the keys must not reach the transcript.
  await page.keyboard.press(']');
  const { frame } = await webviewText('DEFER');
  const step = (n: number) => frame.waitForFunction((want) => document.body.dataset.ready === 'true' && document.body.dataset.step === want, String(n));
  await step(2);
  assert.equal(await workbenchFocus(), 'webview');
  await page.keyboard.press(']');
  await step(3);
  await page.keyboard.press('[');
  await step(2);
  await page.keyboard.press('n');
  await step(3);
  assert.equal(await page.locator('.tab.dirty').count(), 0, 'no editor was edited');
  assert.equal(readFileSync(file, 'utf8'), original, 'the transcript on disk is as it was');
  await shot('inspector-keys.png');
});

test('the panel\'s host sends the step after the one shown ahead: `]` shows it by a swap (issue 14)', async () => {
  const { file } = threeSteps('ahead');
  await openWorkbench(file, 'prefix-lens/trace');
  await runCommand('Prefix Lens: Open Inspector');
  await page.locator('.tab', { hasText: 'Inspector: three-steps' }).first().waitFor();
  const { frame } = await webviewText('DEFER');
  const data = (key: string) => frame.evaluate((k) => document.body.dataset[k], key);
  await frame.waitForFunction(() => document.body.dataset.ready === 'true');
  for (let back = Number(await data('step')); back > 1; back--) {
    await page.keyboard.press('[');
    await frame.waitForFunction((want) => document.body.dataset.ready === 'true' && document.body.dataset.step === want, String(back - 1));
  }
  for (const next of ['2', '3']) {
    // Laid out by the real host's `nextStep` once the step before it was painted.
    await frame.waitForFunction((want) => document.body.dataset.ahead === want, next, { timeout: TIMEOUT });
    await page.keyboard.press(']');
    await frame.waitForFunction((want) => document.body.dataset.ready === 'true' && document.body.dataset.step === want, next);
    assert.equal(await data('swapped'), 'true', `step ${next}: shown by the swap`);
  }
});

test('the inspector never takes focus it was not given: back in the transcript, keys stay there', async () => {
  const { file } = threeSteps('no-steal');
  await openWorkbench(file, 'prefix-lens/trace');
  await page.locator('.monaco-editor .view-lines').first().click();
  await runCommand('Prefix Lens: Open Inspector');
  await page.locator('.tab', { hasText: 'Inspector: three-steps' }).first().waitFor();
  // VS Code moves focus to the new panel a moment after its tab shows; once it has (the panel's page is
  // still loading), the user goes back to the transcript.
  await page.waitForFunction(() => document.activeElement?.tagName === 'IFRAME');
  await page.locator('.monaco-editor .view-lines', { hasText: 'prefix-lens/trace' }).first().click();
  const { frame } = await webviewText('DEFER');
  await frame.waitForFunction(() => document.body.dataset.ready === 'true');
  await page.waitForTimeout(1000);
  assert.equal(await workbenchFocus(), 'text editor', 'the transcript keeps the focus');
});

test('over 20 MB VS Code shows no CodeLens: a status item says so; under it the lenses show', async () => {
  const fixture = readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'vscode', 'three-steps.trace.jsonl'), 'utf8');
  const padding = (mb: number) => `${' '.repeat(1023)}\n`.repeat(mb * 1024);
  const over = join(OUT, 'large', 'over-20mb.trace.jsonl');
  const under = join(OUT, 'large', 'under-20mb.trace.jsonl');
  mkdirSync(dirname(over), { recursive: true });
  writeFileSync(over, fixture + padding(21));
  writeFileSync(under, fixture + padding(19));
  await openWorkbench(over, 'prefix-lens/trace');
  await page.locator('.squiggly-error').first().waitFor();
  await page.locator('.statusbar-item', { hasText: 'No CodeLens: 3 steps in Rewrites' }).first().waitFor();
  assert.equal(await page.locator('.codelens-decoration').count(), 0, 'VS Code gives this file no CodeLens');
  await shot('codelens-limit.png');
  await openWorkbench(under, 'prefix-lens/trace');
  await page.locator('.codelens-decoration', { hasText: 'Step 1/3 · PATCH' }).first().waitFor();
  assert.equal(await page.locator('.statusbar-item', { hasText: 'No CodeLens' }).count(), 0, 'no status item under the limit');
});

/** Installs in the page: each keydown's time to the frame after the editor's text changed (`window.__keys`), and whether a check was showing then. */
const watchKeys = () =>
  page.evaluate(() => {
    const w = window as unknown as { __keys: { ms: number; checking: boolean }[] };
    w.__keys = [];
    document.addEventListener(
      'keydown',
      (e) => {
        const lines = document.querySelector('.monaco-editor.focused .view-lines');
        if (!lines) return;
        const checking = Array.from(document.querySelectorAll('.statusbar-item')).some((i) => (i.textContent ?? '').includes('Prefix Lens: checking'));
        const observer = new MutationObserver(() => {
          observer.disconnect();
          requestAnimationFrame(() => w.__keys.push({ ms: performance.now() - e.timeStamp, checking }));
        });
        observer.observe(lines, { subtree: true, childList: true, characterData: true });
      },
      true,
    );
  });

/** Keys typed in each file and rounds of the 20 MB log's typing scenario: 12 and 1 in the suite; `npm run bench` asks for more (bench/vscode.ts), for steadier medians. */
const { keys: KEYS, rounds: ROUNDS } = typingCounts({ keys: 12, rounds: 1 });

async function typed(keys: number, gapMs: number): Promise<Key[]> {
  await watchKeys();
  for (let i = 0; i < keys; i++) {
    await page.keyboard.type('x');
    await page.waitForTimeout(gapMs);
  }
  await page.waitForTimeout(500);
  return page.evaluate(() => (window as unknown as { __keys: Key[] }).__keys);
}

type Key = { ms: number; checking: boolean };

/** Keys typed into the head of `file` in a workbench without the extension. */
async function typedAlone(file: string): Promise<Key[]> {
  await openWorkbench(file, 'request', false);
  await page.locator('.monaco-editor .view-lines').first().click();
  await page.keyboard.press('Control+Home');
  const keys = await typed(KEYS, 120);
  await runCommand('File: Revert File');
  return keys;
}

/**
 * Keys typed into the head of `file` with the extension, while the re-check of a first edit there runs; its CodeLens stays.
 * `codeLens` false: the same in a folder whose settings turn the lenses off (`prefixLens.codeLens`), to tell the
 * extension's own work per key from VS Code's work for the lenses.
 */
async function typedWhileChecked(file: string, codeLens = true): Promise<Key[]> {
  await openWorkbench(file, 'request');
  await page.locator('.statusbar-item', { hasText: 'anthropic ·' }).first().waitFor();
  // The file is just under VS Code's CodeLens limit (20 MiB): a lens above each step.
  const lenses = page.locator('.codelens-decoration', { hasText: 'Step ' });
  if (codeLens) await lenses.first().waitFor();
  await page.locator('.monaco-editor .view-lines').first().click();
  await page.keyboard.press('Control+Home');
  // An edit in the first line (the file's head) is checked again from the start, in slices, once edits pause (300 ms):
  // one key, then keys typed while that check runs.
  await page.keyboard.type('x');
  await page.locator('.statusbar-item', { hasText: 'Prefix Lens: checking' }).first().waitFor({ timeout: 10_000 }).catch(() => undefined);
  const keys = await typed(KEYS, 120);
  // VS Code asked for the lenses again once the keys paused (375 ms); the edit's re-check had not answered yet.
  if (codeLens) assert.ok((await lenses.count()) > 0, 'the CodeLens stays while the edits wait for their re-check');
  else assert.equal(await lenses.count(), 0, 'no CodeLens where the setting turns it off');
  await runCommand('File: Revert File');
  return keys;
}

test('typing in a 20 MB request log while it is checked: keystroke → painted against the same file in VS Code without the extension and with the extension\'s CodeLens off; the CodeLens stays (printed)', async () => {
  const { generateLog } = await import('../../../bench/generate');
  const big = join(OUT, 'big', 'requests.jsonl');
  mkdirSync(dirname(big), { recursive: true });
  generateLog(big, { requests: 300, bytesPerTurn: 200, seed: 42 });
  // VS Code alone: a copy of the same log in a folder of its own, in a workbench without the extension.
  const alone = join(OUT, 'big-alone', 'requests.jsonl');
  mkdirSync(dirname(alone), { recursive: true });
  copyFileSync(big, alone);
  // With the extension and its CodeLens off: another copy, in a folder whose settings say so.
  const noLens = join(OUT, 'big-no-codelens', 'requests.jsonl');
  mkdirSync(join(dirname(noLens), '.vscode'), { recursive: true });
  copyFileSync(big, noLens);
  writeFileSync(join(dirname(noLens), '.vscode', 'settings.json'), JSON.stringify({ 'prefixLens.codeLens': false }));
  const plain = join(OUT, 'big', 'notes.txt');
  writeFileSync(plain, 'notes\n'.repeat(50));

  await openWorkbench(plain, 'notes');
  await page.locator('.monaco-editor .view-lines').first().click();
  const small = await typed(KEYS, 120);

  const [baseline, withoutLenses, during]: [Key[], Key[], Key[]] = [[], [], []];
  // VS Code alone, with the extension without and with its CodeLens, in turn, `ROUNDS` times: the load's drift falls on all alike.
  for (let round = 0; round < ROUNDS; round++) {
    baseline.push(...(await typedAlone(alone)));
    withoutLenses.push(...(await typedWhileChecked(noLens, false)));
    during.push(...(await typedWhileChecked(big)));
  }

  const stat = (xs: Key[]) => {
    const ms = xs.map((x) => x.ms).sort((a, b) => a - b);
    if (ms.length === 0) return 'none';
    return `median ${Math.round(ms[ms.length >> 1] ?? NaN)} ms, max ${Math.round(ms[ms.length - 1] ?? NaN)} ms over ${ms.length}`;
  };
  assert.ok(during.length > 0 && withoutLenses.length > 0 && baseline.length > 0 && small.length > 0, 'keystrokes were seen painted');
  recordTimes(
    'big-log.keystrokes',
    { withExtension: during.map((k) => k.ms), withoutCodeLens: withoutLenses.map((k) => k.ms), withoutExtension: baseline.map((k) => k.ms), smallFile: small.map((k) => k.ms) },
    `keystroke → painted in the 20.9 MB log: while "Prefix Lens: checking" showed ${stat(during.filter((k) => k.checking))}, ` +
      `the other keys ${stat(during.filter((k) => !k.checking))}; with the extension and its CodeLens off ${stat(withoutLenses)}; ` +
      `the same log in VS Code without the extension ${stat(baseline)}; ` +
      `a small plain file ${stat(small)}`,
  );
});
