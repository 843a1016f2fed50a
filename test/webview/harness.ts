/**
 * Runs the built inspector (`dist/webview`) in Debian's headless Chromium
 * through playwright-core (no browser download): a localhost server serves the
 * build output and a page made by the SAME `webviewHtml` function as the
 * panel, with the stub host of `stub.ts` as its prelude script.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import * as esbuild from 'esbuild';
import { type Browser, chromium, type Page } from 'playwright-core';
import type { Report } from '../../src/core/results';
import { renderWindow } from '../../src/core/render';
import { INSPECTOR_PAGE, SESSION_PAGE, makeNonce, webviewHtml } from '../../src/extension/webview-html';
import { transcriptView, type InspectorEngine, type RenderedStep, renderStep, stepEdit } from '../../src/extension/inspector/views';
import type { StepDetail, StepEdit } from '../../src/shared/protocol';
import type { Fixture } from './stub';
import { type ThemeName, THEMES } from './themes';
import { CHROMIUM } from '../../scripts/vscode/codeServer';

export const ROOT = join(__dirname, '..', '..');
export const DIST = join(ROOT, 'dist', 'webview');
export const OUTPUT = join(ROOT, 'test-output', 'webview');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.ttf': 'font/ttf',
  '.map': 'application/json',
  '.html': 'text/html',
};

export interface Harness {
  readonly origin: string;
  readonly browser: Browser;
  close(): Promise<void>;
}

async function buildStub(entry = 'stub.ts'): Promise<string> {
  const result = await esbuild.build({
    entryPoints: [join(__dirname, entry)],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'chrome120',
    write: false,
  });
  return result.outputFiles[0]!.text;
}

function serve(stub: string, sessionStub: string): Promise<Server> {
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const origin = `http://${request.headers.host}`;
    if (url.pathname === '/') {
      const theme = THEMES[(url.searchParams.get('theme') as ThemeName) ?? 'light'] ?? THEMES.light;
      const html = webviewHtml(INSPECTOR_PAGE, { cspSource: origin, nonce: makeNonce(), assetBase: `${origin}/dist`, preludeScripts: [`${origin}/stub.js`], bodyClass: theme.bodyClass });
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
      return;
    }
    if (url.pathname === '/session') {
      const theme = THEMES[(url.searchParams.get('theme') as ThemeName) ?? 'light'] ?? THEMES.light;
      const html = webviewHtml(SESSION_PAGE, { cspSource: origin, nonce: makeNonce(), assetBase: `${origin}/dist`, preludeScripts: [`${origin}/session-stub.js`], bodyClass: theme.bodyClass });
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
      return;
    }
    if (url.pathname === '/session-stub.js') {
      response.writeHead(200, { 'content-type': TYPES['.js']! }).end(sessionStub);
      return;
    }
    if (url.pathname === '/favicon.ico') {
      response.writeHead(204).end();
      return;
    }
    if (url.pathname === '/stub.js') {
      response.writeHead(200, { 'content-type': TYPES['.js']! }).end(stub);
      return;
    }
    const file = normalize(join(DIST, url.pathname.replace(/^\/dist\//, '')));
    if (!url.pathname.startsWith('/dist/') || !file.startsWith(DIST) || !existsSync(file)) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

export async function startHarness(): Promise<Harness> {
  if (!existsSync(join(DIST, 'inspector.js'))) throw new Error('dist/webview is not built: run `node esbuild.js` first');
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: npm run test:webview installs it`);
  mkdirSync(OUTPUT, { recursive: true });
  const server = await serve(await buildStub(), await buildStub('session-stub.ts'));
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    browser,
    async close() {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export const ENGINE: InspectorEngine = { renderWindow: (window) => renderWindow(window) };

/**
 * The stub's data, built by the real view builder: the transcript view, every step's detail, and
 * each step as the host sends it from a neighbouring step (`[` / `]`): splices of that step's texts.
 */
export function fixtureOf(
  report: Report,
  theme: ThemeName = 'light',
  engine: InspectorEngine = ENGINE,
  selected?: number,
  sourceText = 'source',
): Fixture {
  const details: Record<number, StepDetail> = {};
  const edits: Record<string, StepEdit> = {};
  let previous: RenderedStep | undefined;
  for (const step of report.steps) {
    const rendered = renderStep(report, step.index, engine, sourceText)!;
    details[step.index] = rendered.detail;
    const forward = previous && stepEdit(previous, rendered);
    const back = previous && stepEdit(rendered, previous);
    if (forward) edits[`${forward.from}>${forward.selected}`] = forward;
    if (back) edits[`${back.from}>${back.selected}`] = back;
    previous = rendered;
  }
  // The stub adds the selected step's detail when it answers `ready`.
  const { detail: _detail, ...view } = transcriptView(report, selected, engine, sourceText);
  return { view, details, edits, theme: THEMES[theme] };
}

export interface Opened {
  readonly page: Page;
  readonly errors: string[];
}

/** Opens the inspector on a fixture (after `prepare`, e.g. init scripts) and waits until its first step (or empty state) is shown. */
export async function openInspector(harness: Harness, fixture: Fixture, theme: ThemeName = 'light', width = 1400, prepare?: (page: Page) => Promise<void>): Promise<Opened> {
  const context = await harness.browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  await prepare?.(page);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => message.type() === 'error' && errors.push(`console: ${message.text()} ${message.location().url}`));
  await page.addInitScript((data) => {
    const w = window as unknown as { __fixture: unknown; __csp: string[] };
    w.__fixture = data;
    w.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => w.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
  }, fixture);
  await page.goto(`${harness.origin}/?theme=${theme}`);
  await waitReady(page);
  return { page, errors };
}

/**
 * Monaco puts its API on `window` when its environment asks for it: the page's environment, plus that.
 * (A string: tsx would wrap a function's named arrows in a helper the page does not have.)
 */
export async function exposeMonaco(page: Page): Promise<void> {
  await page.addInitScript(`{
    let environment;
    Object.defineProperty(window, 'MonacoEnvironment', { configurable: true, get: () => environment, set: (value) => (environment = { ...value, globalAPI: true }) });
  }`);
}

/** Waits for the webview to finish showing a step (`step`), or anything. */
export async function waitReady(page: Page, step?: number, timeout = 30_000): Promise<void> {
  await page.waitForFunction(
    (want) => document.body.dataset.ready === 'true' && (want === null || document.body.dataset.step === String(want)),
    step ?? null,
    { timeout },
  );
}
