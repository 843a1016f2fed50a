/**
 * Prefix Lens in VS Code. `activate` builds the sessions (the one owner of
 * checking, with its Checker) and their subscribers (diagnostics, CodeLens,
 * tree, inspector), and registers everything into `context.subscriptions`;
 * commands are small factories over one context object. No module-level state.
 */
import * as vscode from 'vscode';
import { AbortNotifier } from './abort-notice';
import { Checker } from './checker';
import { TranscriptCodeActions } from './codeActions';
import { INSPECT_STEP_COMMAND, StepCodeLenses } from './codeLens';
import { compareWith, compareWithHead } from './compare';
import { LensLimit } from './lens-limit';
import type { Ctx } from './ctx';
import { DiagnosticsManager } from './diagnostics';
import { exportReport } from './export';
import { APPLY_FIX_COMMAND, applyFix } from './fixes';
import { type Inspector, registerInspector } from './inspector/panel';
import { AgentRecorder, RECORD_COMMAND } from './record';
import { Sessions } from './sessions';
import { registerSessionView, type SessionEditors } from './session-view/editor';
import { SessionStatus } from './status';
import { nextRewrite, nextViolation, previousRewrite } from './stepping';
import { REVEAL_COMMAND, RewritesTree, SELECT_STEP_COMMAND } from './tree';

/** What `activate` returns: the live pieces, for the extension-host tests and other extensions. */
export interface PrefixLensApi {
  readonly sessions: Sessions;
  readonly tree: RewritesTree;
  readonly checker: Checker;
  /** What the inspector panel shows now. */
  readonly inspector: Inspector;
  readonly sessionViews: SessionEditors;
  /** Warnings shown for new aborting steps. */
  readonly abortNotifier: AbortNotifier;
  /** The status item for a transcript over VS Code's CodeLens limit. */
  readonly lensLimit: LensLimit;
  readonly diagnostics: DiagnosticsManager;
}

type Command = (...args: never[]) => unknown;

/** docs/rules.md as shipped in the extension (no public repository to link to). */
function rulesDocOf(context: vscode.ExtensionContext): vscode.Uri {
  return vscode.Uri.joinPath(context.extensionUri, 'docs', 'rules.md');
}

function selectStep(ctx: Ctx) {
  return (uri: vscode.Uri, index: number) => ctx.sessions.get(uri)?.selectStep(index);
}

function revealFinding(ctx: Ctx) {
  return (uri: vscode.Uri, start: number, end: number) => ctx.sessions.get(uri)?.revealRange({ start, end });
}

function inspectStep(ctx: Ctx) {
  return async (uri?: vscode.Uri, index?: number) => {
    const session = uri ? ctx.sessions.get(uri) : ctx.sessions.active();
    if (session && index !== undefined) session.selectStep(index);
    await vscode.commands.executeCommand('prefixLens.openInspector');
  };
}

const COMMANDS: Readonly<Record<string, (ctx: Ctx) => Command>> = {
  'prefixLens.nextRewrite': nextRewrite,
  'prefixLens.previousRewrite': previousRewrite,
  'prefixLens.nextViolation': nextViolation,
  'prefixLens.compareWith': compareWith,
  'prefixLens.compareWithHead': compareWithHead,
  'prefixLens.exportReport': exportReport,
  [APPLY_FIX_COMMAND]: applyFix,
  [SELECT_STEP_COMMAND]: selectStep,
  [REVEAL_COMMAND]: revealFinding,
  [INSPECT_STEP_COMMAND]: inspectStep,
};

const TRANSCRIPT_SELECTOR: vscode.DocumentSelector = [{ scheme: 'file' }, { scheme: 'untitled' }, { scheme: 'vscode-remote' }];

export function activate(context: vscode.ExtensionContext): PrefixLensApi {
  const log = vscode.window.createOutputChannel('Prefix Lens', { log: true });
  const checker = new Checker(vscode.Uri.joinPath(context.extensionUri, 'dist', 'worker.js').fsPath);
  const sessions = new Sessions(checker);
  const rulesDoc = rulesDocOf(context);
  const diagnostics = new DiagnosticsManager(sessions, rulesDoc);
  const compareDiagnostics = vscode.languages.createDiagnosticCollection('prefixLens.compare');
  const inspector = registerInspector(context, sessions);
  const ctx: Ctx = { extension: context, sessions, rulesDoc, log, compareDiagnostics, inspector };
  const lensLimit = new LensLimit(sessions);
  const tree = new RewritesTree(sessions, lensLimit);
  const lenses = new StepCodeLenses(sessions);
  context.subscriptions.push(log, checker, sessions, diagnostics, compareDiagnostics, lensLimit, tree, lenses, new SessionStatus(sessions));

  for (const [id, factory] of Object.entries(COMMANDS)) {
    context.subscriptions.push(vscode.commands.registerCommand(id, factory(ctx)));
  }
  context.subscriptions.push(
    vscode.languages.registerCodeActionsProvider(TRANSCRIPT_SELECTOR, new TranscriptCodeActions(sessions), TranscriptCodeActions.metadata),
    vscode.languages.registerCodeLensProvider(TRANSCRIPT_SELECTOR, lenses),
  );
  const sessionViews = registerSessionView(context, checker, sessions);
  const recorder = new AgentRecorder(context);
  context.subscriptions.push(recorder, vscode.commands.registerCommand(RECORD_COMMAND, (options?: { upstream?: string }) => recorder.start(options)));
  const abortNotifier = new AbortNotifier(sessions);
  context.subscriptions.push(abortNotifier);
  sessions.start();
  log.info('Prefix Lens activated');
  return { sessions, tree, checker, inspector, sessionViews, abortNotifier, lensLimit, diagnostics };
}

export function deactivate(): void {
  // everything is disposed through context.subscriptions
}
