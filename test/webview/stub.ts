/**
 * The browser tests' stand-in for VS Code: `acquireVsCodeApi` with state kept
 * in sessionStorage (so it survives a reload, like a panel restored by the
 * serializer), and a host that answers the webview over the real protocol with
 * transcript views built in Node by the real view builder (`window.__fixture`).
 * It also applies the theme's `--vscode-*` variables, as VS Code does.
 */
import {
  assertNever,
  type HostMessage,
  type InspectorState,
  parseWebviewMessage,
  type TranscriptView,
  type StepDetail,
  type StepEdit,
  type WebviewMessage,
} from '../../src/shared/protocol';
import { applyTheme, hostReceiver, sendLater, type StubTheme } from './stub-host';

export interface Fixture {
  readonly view: TranscriptView | undefined;
  readonly details: Record<number, StepDetail>;
  /** `from>to`: step `to` as splices of step `from`'s texts, for neighbouring steps. */
  readonly edits: Record<string, StepEdit>;
  readonly theme: StubTheme;
  /**
   * Answer `stepShown` with the next step (`nextStep`), as the panel's host does. Off unless asked: a
   * host may decline, and the tests written before it step at once, before a step laid out ahead is ready.
   */
  readonly ahead?: boolean;
}

interface TestWindow {
  __fixture: Fixture;
  __posted: WebviewMessage[];
  /** The type of each message the stub host sent. */
  __sent: HostMessage['type'][];
  acquireVsCodeApi(): unknown;
}

const page = window as unknown as TestWindow;
const fixture = page.__fixture;
page.__posted = [];
page.__sent = [];
applyTheme(fixture.theme);

/** The step the stub last sent (as the host tracks what its webview shows). */
let shown: number | undefined;
const send = (message: HostMessage): void => {
  if (message.type === 'transcript') shown = message.view.selected;
  if (message.type === 'step' || message.type === 'stepEdit') shown = message.selected;
  page.__sent.push(message.type);
  sendLater(message);
};

function answer(message: WebviewMessage): void {
  const view = fixture.view;
  switch (message.type) {
    case 'ready': {
      if (!view) return send({ type: 'empty', reason: 'Open a transcript to inspect its rewrites.' });
      const step = message.restoredStep !== undefined && fixture.details[message.restoredStep] ? message.restoredStep : view.selected;
      const detail = step === undefined ? undefined : fixture.details[step];
      return send({ type: 'transcript', view: { ...view, ...(step ? { selected: step } : {}), ...(detail ? { detail } : {}) } });
    }
    case 'selectStep': {
      const edit = fixture.edits[`${shown}>${message.step}`];
      const detail = fixture.details[message.step];
      if (edit) send(edit);
      else if (detail) send({ type: 'step', selected: message.step, detail });
      return;
    }
    case 'stepShown': {
      // As the host: the step after the one shown, in the view's order, as the `stepEdit` `]` would bring.
      const steps = view?.steps ?? [];
      const at = steps.findIndex((s) => s.index === message.step);
      const next = at < 0 ? undefined : steps[at + 1];
      const edit = next && message.step === shown ? fixture.edits[`${message.step}>${next.index}`] : undefined;
      if (fixture.ahead && edit) send({ type: 'nextStep', edit });
      return;
    }
    case 'reveal':
      return;
    case 'applyFix':
      return send({ type: 'fixResult', step: message.step, applied: true, message: 'Compacted in whole pairs.' });
    default:
      assertNever(message);
  }
}

let acquired = false;
page.acquireVsCodeApi = () => {
  if (acquired) throw new Error('acquireVsCodeApi may only be called once');
  acquired = true;
  return {
    postMessage: hostReceiver(parseWebviewMessage, page.__posted, answer),
    getState(): InspectorState | undefined {
      const saved = sessionStorage.getItem('vscode-state');
      return saved ? (JSON.parse(saved) as InspectorState) : undefined;
    },
    setState(state: InspectorState) {
      sessionStorage.setItem('vscode-state', JSON.stringify(state));
    },
  };
};
