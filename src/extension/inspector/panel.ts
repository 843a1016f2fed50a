/**
 * PLACEHOLDER until the inspector helper lands the real panel (issue 5):
 * registers `prefixLens.openInspector` so the command, CodeLens and title
 * button exist. Replaced wholesale by the inspector's own module.
 */
import * as vscode from 'vscode';
import type { SessionRegistry } from '../session';

export function registerInspector(context: vscode.ExtensionContext, sessions: SessionRegistry): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('prefixLens.openInspector', () => {
      const session = sessions.active();
      const what = session ? session.uri.fsPath : 'no transcript';
      void vscode.window.showInformationMessage(`Prefix Lens inspector is not built yet (${what}).`);
    }),
  );
}
