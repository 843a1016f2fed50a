/**
 * The inspector's HTML, built in ONE place for the real panel and the browser
 * tests. Pure (no `vscode` import).
 *
 * Content Security Policy:
 * - `default-src 'none'`; scripts only with this page's nonce (no `unsafe-eval`).
 * - `style-src`: our css from the build output, plus `'unsafe-inline'` because
 *   Monaco creates `<style>` elements at runtime (decoration and theme rules)
 *   and has no nonce support for them.
 * - `font-src`: the codicon font from the build output.
 * - `worker-src 'none'`: Monaco's editor worker would need a `blob:` worker
 *   (the webview's resource origin differs from the page's), so the inspector
 *   runs Monaco without workers; its diff is computed on the main thread.
 * - `img-src`: the build output and `data:` (Monaco's css inlines a tiny fill pattern).
 */
import { randomBytes } from 'node:crypto';

export interface InspectorHtmlOptions {
  /** `webview.cspSource` (or the test server's origin). */
  readonly cspSource: string;
  readonly nonce: string;
  /** URI of the build output folder `dist/webview`, without a trailing slash. */
  readonly assetBase: string;
  /** Scripts loaded before the inspector (the browser tests' stub host), with the same nonce. */
  readonly preludeScripts?: readonly string[];
  /** Body classes (the tests set `vscode-light` / `vscode-dark`; VS Code sets them itself). */
  readonly bodyClass?: string;
}

/** A fresh script nonce for one page load. */
export function makeNonce(): string {
  return randomBytes(18).toString('base64url');
}

const escapeAttr = (value: string) =>
  value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `img-src ${cspSource} data:`,
    `style-src ${cspSource} 'unsafe-inline'`,
    `font-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
    "worker-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** The inspector page. Every value is attribute-escaped; no transcript text is ever part of it. */
export function inspectorHtml(options: InspectorHtmlOptions): string {
  const nonce = escapeAttr(options.nonce);
  const asset = (name: string) => escapeAttr(`${options.assetBase}/${name}`);
  const prelude = (options.preludeScripts ?? [])
    .map((src) => `<script nonce="${nonce}" src="${escapeAttr(src)}"></script>`)
    .join('\n    ');
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <meta http-equiv="Content-Security-Policy" content="${escapeAttr(contentSecurityPolicy(options.cspSource, options.nonce))}" />
    <meta name="viewport" content="width=device-width, initial-scale=1.0" />
    <link rel="stylesheet" href="${asset('codicon.css')}" id="vscode-codicon-stylesheet" />
    <link rel="stylesheet" href="${asset('inspector.css')}" />
    <title>Prefix Lens Inspector</title>
  </head>
  <body class="${escapeAttr(options.bodyClass ?? '')}">
    <div id="app" role="main" aria-label="Prefix Lens inspector"></div>
    ${prelude}
    <script nonce="${nonce}" src="${asset('inspector.js')}"></script>
  </body>
</html>
`;
}
