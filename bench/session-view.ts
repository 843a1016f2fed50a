/**
 * The session view's bench (issue 13), in Debian's headless Chromium with the
 * browser tests' harness and stub host, on a 10k-message session (an Anthropic
 * request body checked by the engine, the snapshot built by the real view
 * builder), against a plain page showing the same texts (one div per row,
 * nothing else) measured in the same run:
 *
 * - `session-view.first-paint-10k`: navigation → the rows painted, against the
 *   plain page's first contentful paint (target: ≤ 2×);
 * - `session-view.scroll-frame-10k`: the longest interval between two frames
 *   while scrolling through the list at 700 px per frame, against the same on
 *   the plain page (target: every frame ≤ 16 ms, i.e. no frame dropped: a
 *   frame that keeps up with a 60 Hz display is 16.7 ms apart).
 *
 * Run alone with `node --import tsx bench/session-view.ts` (after `node esbuild.js`).
 */
import type { Page } from 'playwright-core';
import { checkTranscript } from '../src/core/check';
import { inputFromText } from '../src/core/io';
import { sessionView } from '../src/extension/session-view/view';
import type { SessionView } from '../src/shared/session-protocol';
import { anthropicRequest } from '../test/webview/session-fixtures';
import { type Harness, startHarness } from '../test/webview/harness';
import { THEMES } from '../test/webview/themes';
import { addResult, type BenchResult, formatTable, removeResults, result } from './results';

const RUNS = 3;
const FRAMES = 120;

const escape = (t: string) => t.replace(/[&<>]/g, (c) => `&#${c.charCodeAt(0)};`);

function plainPage(view: SessionView): string {
  const rows = view.rows.map((r) => `<div>${escape(r.kind === 'message' ? `${r.role}: ${r.text}` : r.kind === 'step' ? `step ${r.index}` : r.label)}</div>`);
  return `<!DOCTYPE html><html><body style="margin:0;height:100%;overflow:hidden"><div id="list" style="height:100vh;overflow-y:auto;white-space:pre-wrap">${rows.join('')}</div></body></html>`;
}

/**
 * Longest frame interval while scrolling `selector` by 700 px per frame. A
 * string, not a function: tsx would wrap a function's inner functions in a
 * helper the page does not have.
 */
function scrollFrames(page: Page, selector: string): Promise<number> {
  return page.evaluate(`new Promise((resolve) => {
    const list = document.querySelector(${JSON.stringify(selector)});
    let last = 0, worst = 0, n = 0;
    const step = (now) => {
      if (last > 0) worst = Math.max(worst, now - last);
      last = now;
      list.scrollTop += 700;
      if (++n < ${FRAMES}) requestAnimationFrame(step);
      else resolve(worst);
    };
    requestAnimationFrame(step);
  })`);
}

async function sessionRun(harness: Harness, view: SessionView): Promise<{ paint: number; frame: number }> {
  const context = await harness.browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  await page.addInitScript((data) => {
    (window as unknown as { __session: unknown }).__session = data;
  }, { view, theme: THEMES.dark });
  await page.goto(`${harness.origin}/session?theme=dark`, { timeout: 120_000 });
  await page.waitForFunction(() => document.body.dataset.ready === 'true', undefined, { timeout: 120_000 });
  const paint = await page.evaluate(() => Number(document.body.dataset.paintedAt));
  const frame = await scrollFrames(page, '.sv-scroller');
  await context.close();
  return { paint, frame };
}

async function plainRun(harness: Harness, html: string): Promise<{ paint: number; frame: number }> {
  const context = await harness.browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  await page.route(`${harness.origin}/plain`, (route) => route.fulfill({ body: html, contentType: 'text/html; charset=utf-8' }));
  await page.goto(`${harness.origin}/plain`, { timeout: 120_000 });
  await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0, undefined, { timeout: 120_000 });
  const paint = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]!.startTime);
  const frame = await scrollFrames(page, '#list');
  await context.close();
  return { paint, frame };
}

export async function benchSessionView(): Promise<BenchResult[]> {
  const view = sessionView(checkTranscript(inputFromText('/bench/session-10k.json', anthropicRequest(3334)), { keepRewrites: true, tokens: false }), true);
  const html = plainPage(view);
  const harness = await startHarness();
  try {
    const session = { paint: [] as number[], frame: [] as number[] };
    const plain = { paint: [] as number[], frame: [] as number[] };
    for (let run = 0; run < RUNS; run++) {
      const p = await plainRun(harness, html);
      plain.paint.push(p.paint);
      plain.frame.push(p.frame);
      const s = await sessionRun(harness, view);
      session.paint.push(s.paint);
      session.frame.push(s.frame);
    }
    const best = (values: number[]) => Math.min(...values);
    return [
      result('session-view.first-paint-10k', best(session.paint), 'ms', best(plain.paint)),
      result('session-view.scroll-frame-10k', best(session.frame), 'ms', best(plain.frame)),
    ];
  } finally {
    await harness.close();
  }
}

if (require.main === module) {
  void benchSessionView().then((entries) => {
    removeResults(['session-view.']);
    addResult(entries);
    console.log(formatTable(entries));
  });
}
