/**
 * The session view tests' stand-in for VS Code: `acquireVsCodeApi` whose host
 * answers `ready` with the snapshot in `window.__session` (built in Node by the
 * real view builder), records what the webview posts, and can push a new
 * snapshot (`window.__push`) as a growing file would, or why there is none
 * (`window.__notice`). Applies the theme's
 * `--vscode-*` variables, as VS Code does.
 */
import { parseSessionWebviewMessage, type SessionHostMessage, type SessionView, type SessionWebviewMessage } from '../../src/shared/session-protocol';
import { applyTheme, hostReceiver, sendLater, type StubTheme } from './stub-host';

interface TestWindow {
  __session: { view: SessionView; theme: StubTheme };
  __posted: SessionWebviewMessage[];
  __push(view: SessionView): void;
  __notice(reason: string): void;
  acquireVsCodeApi(): unknown;
}

const page = window as unknown as TestWindow;
const fixture = page.__session;
page.__posted = [];
applyTheme(fixture.theme);

const send = (message: SessionHostMessage): void => sendLater(message);
page.__push = (view) => send({ type: 'session', view });
page.__notice = (reason) => send({ type: 'empty', reason });

page.acquireVsCodeApi = () => ({
  postMessage: hostReceiver(parseSessionWebviewMessage, page.__posted, (message) => {
    if (message.type === 'ready') send({ type: 'session', view: fixture.view });
  }),
});
