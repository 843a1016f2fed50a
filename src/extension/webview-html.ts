/**
 * The HTML of both webviews (the inspector and the session view), built in ONE
 * place for the real panels and the browser tests. Pure (no `vscode` import).
 *
 * Content Security Policy, for every page:
 * - `default-src 'none'`; scripts only with this page's nonce (no `unsafe-eval`);
 *   styles only from the build output; no workers, no `<base>`, no forms.
 * A page widens it only by what it declares in `WebviewPage.allow`:
 * - `monaco` (the inspector): `style-src 'unsafe-inline'` because Monaco creates
 *   `<style>` elements at runtime (decoration and theme rules) and has no nonce
 *   support for them; `font-src` for the codicon font from the build output;
 *   `img-src` from the build output and `data:` (Monaco's css inlines a tiny
 *   fill pattern). Monaco runs without workers (its diff on the main thread):
 *   a worker would need `blob:`, as the webview's resource origin differs.
 */
import { randomBytes } from 'node:crypto';

/** What differs between the two webviews. */
export interface WebviewPage {
  readonly title: string;
  /** The `aria-label` of the app root. */
  readonly label: string;
  /** Stylesheets from the build output, in order. */
  readonly stylesheets: readonly { readonly name: string; readonly id?: string }[];
  /** The page's bundle in the build output. */
  readonly script: string;
  /** What the page needs beyond the strict policy (see above). */
  readonly allow?: { readonly monaco?: boolean };
}

export const INSPECTOR_PAGE: WebviewPage = {
  title: 'Prefix Lens Inspector',
  label: 'Prefix Lens inspector',
  stylesheets: [{ name: 'codicon.css', id: 'vscode-codicon-stylesheet' }, { name: 'inspector.css' }],
  script: 'inspector.js',
  allow: { monaco: true },
};

export const SESSION_PAGE: WebviewPage = {
  title: 'Prefix Lens Session',
  label: 'Prefix Lens session',
  stylesheets: [{ name: 'session.css' }],
  script: 'session.js',
};

export interface WebviewHtmlOptions {
  /** `webview.cspSource` (or the test server's origin). */
  readonly cspSource: string;
  readonly nonce: string;
  /** URI of the build output folder `dist/webview`, without a trailing slash. */
  readonly assetBase: string;
  /** Scripts loaded before the page's own (the browser tests' stub host), with the same nonce. */
  readonly preludeScripts?: readonly string[];
  /** Body classes (the tests set `vscode-light` / `vscode-dark`; VS Code sets them itself). */
  readonly bodyClass?: string;
}

/** A fresh script nonce for one page load. */
export function makeNonce(): string {
  return randomBytes(18).toString('base64url');
}

const escapeAttr = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function contentSecurityPolicy(page: WebviewPage, cspSource: string, nonce: string): string {
  const monaco = page.allow?.monaco === true;
  return [
    "default-src 'none'",
    ...(monaco ? [`img-src ${cspSource} data:`] : []),
    monaco ? `style-src ${cspSource} 'unsafe-inline'` : `style-src ${cspSource}`,
    ...(monaco ? [`font-src ${cspSource}`] : []),
    `script-src 'nonce-${nonce}'`,
    "worker-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** A webview page. Every value is attribute-escaped; no transcript text is ever part of it. */
export function webviewHtml(page: WebviewPage, options: WebviewHtmlOptions): string {
  const nonce = escapeAttr(options.nonce);
  const asset = (name: string) => escapeAttr(`${options.assetBase}/${name}`);
  const script = (src: string) => `<script nonce="${nonce}" src="${src}"></script>`;
  const styles = page.stylesheets.map(({ name, id }) => `<link rel="stylesheet" href="${asset(name)}"${id ? ` id="${escapeAttr(id)}"` : ''} />`);
  const prelude = (options.preludeScripts ?? []).map((src) => script(escapeAttr(src)));
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <meta http-equiv="Content-Security-Policy" content="${escapeAttr(contentSecurityPolicy(page, options.cspSource, options.nonce))}" />
    <meta name="viewport" content="width=device-width, initial-scale=1.0" />
    ${styles.join('\n    ')}
    <title>${escapeAttr(page.title)}</title>
  </head>
  <body class="${escapeAttr(options.bodyClass ?? '')}">
    <div id="app" role="main" aria-label="${escapeAttr(page.label)}"></div>
    ${prelude.join('\n    ')}
    ${script(asset(page.script))}
  </body>
</html>
`;
}
