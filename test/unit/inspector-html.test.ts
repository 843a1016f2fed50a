/** The inspector's one HTML builder: the CSP and how values enter the page. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contentSecurityPolicy, inspectorHtml, makeNonce } from '../../src/extension/inspector/html';

const page = (extra: Partial<Parameters<typeof inspectorHtml>[0]> = {}) =>
  inspectorHtml({ cspSource: 'https://res.example', nonce: 'N0nce', assetBase: 'https://res.example/dist/webview', ...extra });

test('CSP: nothing by default, scripts only by nonce, no eval, no workers, assets only from the build output', () => {
  const csp = contentSecurityPolicy('https://res.example', 'N0nce');
  const directives = new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k!, v]));
  assert.deepEqual(directives.get('default-src'), ["'none'"]);
  assert.deepEqual(directives.get('script-src'), ["'nonce-N0nce'"]);
  assert.deepEqual(directives.get('worker-src'), ["'none'"]);
  assert.deepEqual(directives.get('font-src'), ['https://res.example']);
  assert.deepEqual(directives.get('style-src'), ['https://res.example', "'unsafe-inline'"]);
  assert.ok(!csp.includes('unsafe-eval'));
  assert.ok(!csp.includes('*'));
});

test('every script carries the nonce and loads from the build output; the CSP is the page\'s first meta', () => {
  const html = page({ preludeScripts: ['https://res.example/stub.js'] });
  const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
  assert.equal(scripts.length, 2);
  for (const s of scripts) assert.match(s, /nonce="N0nce" src="https:\/\/res\.example\//);
  assert.ok(html.indexOf('Content-Security-Policy') < html.indexOf('<link'));
  assert.match(html, /href="https:\/\/res\.example\/dist\/webview\/codicon\.css" id="vscode-codicon-stylesheet"/);
  assert.match(html, /src="https:\/\/res\.example\/dist\/webview\/inspector\.js"/);
  assert.ok(!/<script[^>]*>[^<]/.test(html), 'no inline script body');
});

test('values are attribute-escaped', () => {
  const html = page({ assetBase: 'https://x/"><script>alert(1)</script>', bodyClass: '"><img src=x onerror=alert(1)>' });
  assert.ok(!html.includes('<script>alert(1)'));
  assert.ok(!html.includes('<img'));
});

test('nonces are fresh and unguessable', () => {
  const a = makeNonce();
  assert.match(a, /^[A-Za-z0-9_-]{24}$/);
  assert.notEqual(a, makeNonce());
});
