/**
 * The session view's bench (issue 13), in Debian's headless Chromium with the
 * browser tests' harness and stub host, on a 10k-message session (an Anthropic
 * request body checked by the engine, the snapshot built by the real view
 * builder), against a plain page showing the same texts (one div per row,
 * nothing else) measured in the same run:
 *
 * - `session-view.first-paint-10k`: navigation → the rows painted, against the
 *   plain page's first contentful paint (target: ≤ 2×);
 * - `session-view.scroll-work-10k`: while scrolling through the list at 700 px
 *   per frame, the longest CPU time the page's main thread spent on one task
 *   (a frame's rendering update: the view's scroll handler and render, style,
 *   layout, paint), from a performance trace, against the same on the plain
 *   page. Target: every frame's work ≤ 16 ms;
 * - `session-view.scroll-frame-10k`: the longest interval between two frames
 *   in the same scroll, against the plain page. For reference only: it is
 *   quantised by the display's frame clock (16.7 ms apart at 60 Hz however
 *   little each frame costs), so it shows dropped frames, not the view's work.
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
import { TRACE_CATEGORIES, type TraceEvent, traceEvents } from './trace';

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

/**
 * The longest main-thread CPU time of one task while scrolling `selector` by
 * 700 px per frame: a performance trace of the page (Chromium's tracing,
 * through playwright-core) gives every task the renderer's main thread ran
 * (`RunTask`), with its wall time and its thread (CPU) time; the tasks between
 * the scroll's first and last frame are taken (marked with user timing marks
 * on that thread). A frame's rendering update (its scroll event, the page's
 * animation-frame callbacks, style, layout, paint, commit) is one such task.
 * Thread time, not wall time: on the shared 2-core machine a task's wall time
 * also counts the time other processes had the core. Raster and compositing
 * run on other threads and are not counted.
 */
async function scrollWork(harness: Harness, page: Page, selector: string): Promise<number> {
  await harness.browser.startTracing(page, { categories: TRACE_CATEGORIES });
  await page.evaluate(`new Promise((resolve) => {
    const list = document.querySelector(${JSON.stringify(selector)});
    let n = 0;
    performance.mark('pl-scroll-start');
    const step = () => {
      list.scrollTop += 700;
      if (++n < ${FRAMES}) requestAnimationFrame(step);
      else requestAnimationFrame(() => setTimeout(() => { performance.mark('pl-scroll-end'); resolve(0); }));
    };
    requestAnimationFrame(step);
  })`);
  return longestTask(traceEvents(await harness.browser.stopTracing()));
}

/** The longest thread time (ms) of a task on the marks' thread between the two marks. */
function longestTask(events: readonly TraceEvent[]): number {
  const start = events.find((e) => e.name === 'pl-scroll-start');
  const end = events.find((e) => e.name === 'pl-scroll-end');
  if (!start || !end) throw new Error('the trace has no scroll marks');
  const tasks = events.filter((e) => e.name === 'RunTask' && e.ph === 'X' && e.pid === start.pid && e.tid === start.tid && e.ts >= start.ts && e.ts <= end.ts);
  if (tasks.length < FRAMES) throw new Error(`the trace has ${tasks.length} tasks for ${FRAMES} frames`);
  return Math.max(...tasks.map((e) => (e.tdur ?? 0) / 1000));
}

async function sessionRun(harness: Harness, view: SessionView): Promise<{ paint: number; frame: number; work: number }> {
  const context = await harness.browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  await page.addInitScript((data) => {
    (window as unknown as { __session: unknown }).__session = data;
  }, { view, theme: THEMES.dark });
  await page.goto(`${harness.origin}/session?theme=dark`, { timeout: 120_000 });
  await page.waitForFunction(() => document.body.dataset.ready === 'true', undefined, { timeout: 120_000 });
  const paint = await page.evaluate(() => Number(document.body.dataset.paintedAt));
  const frame = await scrollFrames(page, '.sv-scroller');
  await page.evaluate(() => (document.querySelector('.sv-scroller')!.scrollTop = 0));
  const work = await scrollWork(harness, page, '.sv-scroller');
  await context.close();
  return { paint, frame, work };
}

async function plainRun(harness: Harness, html: string): Promise<{ paint: number; frame: number; work: number }> {
  const context = await harness.browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  await page.route(`${harness.origin}/plain`, (route) => route.fulfill({ body: html, contentType: 'text/html; charset=utf-8' }));
  await page.goto(`${harness.origin}/plain`, { timeout: 120_000 });
  await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0, undefined, { timeout: 120_000 });
  const paint = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]!.startTime);
  const frame = await scrollFrames(page, '#list');
  await page.evaluate(() => (document.querySelector('#list')!.scrollTop = 0));
  const work = await scrollWork(harness, page, '#list');
  await context.close();
  return { paint, frame, work };
}

export async function benchSessionView(): Promise<BenchResult[]> {
  const view = sessionView(checkTranscript(inputFromText('/bench/session-10k.json', anthropicRequest(3334)), { keepRewrites: true, tokens: false }), true);
  const html = plainPage(view);
  const harness = await startHarness();
  try {
    const session = { paint: [] as number[], frame: [] as number[], work: [] as number[] };
    const plain = { paint: [] as number[], frame: [] as number[], work: [] as number[] };
    for (let run = 0; run < RUNS; run++) {
      const p = await plainRun(harness, html);
      plain.paint.push(p.paint);
      plain.frame.push(p.frame);
      plain.work.push(p.work);
      const s = await sessionRun(harness, view);
      session.paint.push(s.paint);
      session.frame.push(s.frame);
      session.work.push(s.work);
    }
    const best = (values: number[]) => Math.min(...values);
    return [
      result('session-view.first-paint-10k', best(session.paint), 'ms', best(plain.paint)),
      result('session-view.scroll-work-10k', best(session.work), 'ms', best(plain.work)),
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
