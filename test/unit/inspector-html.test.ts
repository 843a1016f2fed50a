/** The one HTML builder of both webviews (inspector, session view): the CSP and how values enter the page. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contentSecurityPolicy, INSPECTOR_PAGE, makeNonce, SESSION_PAGE, webviewHtml, type WebviewPage } from '../../src/extension/webview-html';

const PAGES = { inspector: INSPECTOR_PAGE, session: SESSION_PAGE } as const;

const page = (which: WebviewPage, extra: Partial<Parameters<typeof webviewHtml>[1]> = {}) =>
  webviewHtml(which, { cspSource: 'https://res.example', nonce: 'N0nce', assetBase: 'https://res.example/dist/webview', ...extra });

const directives = (csp: string) => new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k!, v]));

for (const [name, which] of Object.entries(PAGES)) {
  test(`${name} CSP: nothing by default, scripts only by nonce, no eval, no workers, no wildcard`, () => {
    const csp = contentSecurityPolicy(which, 'https://res.example', 'N0nce');
    const d = directives(csp);
    assert.deepEqual(d.get('default-src'), ["'none'"]);
    assert.deepEqual(d.get('script-src'), ["'nonce-N0nce'"]);
    assert.deepEqual(d.get('worker-src'), ["'none'"]);
    assert.deepEqual(d.get('base-uri'), ["'none'"]);
    assert.deepEqual(d.get('form-action'), ["'none'"]);
    assert.ok(!csp.includes('unsafe-eval'));
    assert.ok(!csp.includes('*'));
  });

  test(`${name}: every script carries the nonce and loads from the build output; the CSP is the page's first meta`, () => {
    const html = page(which, { preludeScripts: ['https://res.example/stub.js'] });
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    assert.equal(scripts.length, 2);
    for (const s of scripts) assert.match(s, /nonce="N0nce" src="https:\/\/res\.example\//);
    assert.ok(html.indexOf('Content-Security-Policy') < html.indexOf('<link'));
    assert.ok(html.includes(`src="https://res.example/dist/webview/${which.script}"`));
    assert.ok(!/<script[^>]*>[^<]/.test(html), 'no inline script body');
    assert.ok(!/<style\b/.test(html) && !/\sstyle=/.test(html), 'no inline style');
  });

  test(`${name}: values are attribute-escaped`, () => {
    const html = page(which, { assetBase: 'https://x/"><script>alert(1)</script>', bodyClass: '"><img src=x onerror=alert(1)>', preludeScripts: ['"><b>'] });
    assert.ok(!html.includes('<script>alert(1)'));
    assert.ok(!html.includes('<img'));
    assert.ok(!html.includes('<b>'));
  });
}

test('the inspector widens the policy only for Monaco: inline styles, the codicon font, data: images', () => {
  const d = directives(contentSecurityPolicy(INSPECTOR_PAGE, 'https://res.example', 'N0nce'));
  assert.deepEqual(d.get('style-src'), ['https://res.example', "'unsafe-inline'"]);
  assert.deepEqual(d.get('font-src'), ['https://res.example']);
  assert.deepEqual(d.get('img-src'), ['https://res.example', 'data:']);
  const html = page(INSPECTOR_PAGE);
  assert.match(html, /href="https:\/\/res\.example\/dist\/webview\/codicon\.css" id="vscode-codicon-stylesheet"/);
  assert.match(html, /href="https:\/\/res\.example\/dist\/webview\/inspector\.css"/);
});

test('the session view keeps the strict policy: styles from the build output only, no fonts, no images', () => {
  const csp = contentSecurityPolicy(SESSION_PAGE, 'https://res.example', 'N0nce');
  const d = directives(csp);
  assert.deepEqual(d.get('style-src'), ['https://res.example']);
  assert.ok(!csp.includes('unsafe-inline'));
  assert.equal(d.get('font-src'), undefined);
  assert.equal(d.get('img-src'), undefined);
  const html = page(SESSION_PAGE);
  assert.deepEqual([...html.matchAll(/<link\b[^>]*>/g)].map((m) => m[0]), ['<link rel="stylesheet" href="https://res.example/dist/webview/session.css" />']);
  assert.match(html, /aria-label="Prefix Lens session"/);
});

test('nonces are fresh and unguessable', () => {
  const a = makeNonce();
  assert.match(a, /^[A-Za-z0-9_-]{24}$/);
  assert.notEqual(a, makeNonce());
});
