/**
 * The session view's HTML, for the real editor and the browser tests. Pure
 * (no `vscode`). Its CSP is stricter than the inspector's (no Monaco, so no
 * inline styles): `default-src 'none'`, our css and script from the build
 * output only, the script with this page's nonce.
 */
export { makeNonce } from '../inspector/html';

export interface SessionHtmlOptions {
  readonly cspSource: string;
  readonly nonce: string;
  /** URI of `dist/webview`, without a trailing slash. */
  readonly assetBase: string;
  /** Scripts loaded first (the browser tests' stub host), with the same nonce. */
  readonly preludeScripts?: readonly string[];
  readonly bodyClass?: string;
}

const escapeAttr = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function sessionCsp(cspSource: string, nonce: string): string {
  return ["default-src 'none'", `style-src ${cspSource}`, `script-src 'nonce-${nonce}'`, "base-uri 'none'", "form-action 'none'"].join('; ');
}

/** The page. Every value is attribute-escaped; no transcript text is ever part of it. */
export function sessionHtml(options: SessionHtmlOptions): string {
  const nonce = escapeAttr(options.nonce);
  const asset = (name: string) => escapeAttr(`${options.assetBase}/${name}`);
  const prelude = (options.preludeScripts ?? []).map((src) => `<script nonce="${nonce}" src="${escapeAttr(src)}"></script>`).join('\n    ');
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <meta http-equiv="Content-Security-Policy" content="${escapeAttr(sessionCsp(options.cspSource, options.nonce))}" />
    <meta name="viewport" content="width=device-width, initial-scale=1.0" />
    <link rel="stylesheet" href="${asset('session.css')}" />
    <title>Prefix Lens Session</title>
  </head>
  <body class="${escapeAttr(options.bodyClass ?? '')}">
    <div id="app" role="main" aria-label="Prefix Lens session"></div>
    ${prelude}
    <script nonce="${nonce}" src="${asset('session.js')}"></script>
  </body>
</html>
`;
}
