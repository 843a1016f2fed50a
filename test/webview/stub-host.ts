/**
 * What both browser-test stand-ins for VS Code share (`stub.ts` for the
 * inspector, `session-stub.ts` for the session view): the theme's
 * `--vscode-*` variables and body class, applied as VS Code does, and a host
 * that answers asynchronously, as a real webview host does.
 */
export interface StubTheme {
  readonly bodyClass: string;
  readonly vars: Record<string, string>;
}

export function applyTheme(theme: StubTheme): void {
  for (const [name, value] of Object.entries(theme.vars)) document.documentElement.style.setProperty(name, value);
  document.body.classList.add(theme.bodyClass);
}

/** Delivers a host message to the page on a later task. */
export function sendLater(message: unknown): void {
  setTimeout(() => window.dispatchEvent(new MessageEvent('message', { data: message })), 0);
}
