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

/** Delivers a host message to the page on a later task, as a copy (a webview receives a structured clone). */
export function sendLater(message: unknown): void {
  const copy = structuredClone(message);
  setTimeout(() => window.dispatchEvent(new MessageEvent('message', { data: copy })), 0);
}

/**
 * The host's side of `postMessage`: reads what the page posted as the real host
 * does (a structured clone, then the protocol's validator; an invalid message
 * fails the test), records it in `posted` and lets the stub answer it.
 */
export function hostReceiver<M>(parse: (value: unknown) => M | undefined, posted: M[], answer: (message: M) => void): (raw: unknown) => void {
  return (raw) => {
    const message = parse(JSON.parse(JSON.stringify(raw)));
    if (!message) throw new Error(`invalid message ${JSON.stringify(raw)}`);
    posted.push(message);
    answer(message);
  };
}
