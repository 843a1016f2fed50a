/** What the inspector's command and the active tab point it at. */
import * as vscode from 'vscode';

/** Arguments the command accepts: (uri?, step?) from a CodeLens, or (step) alone. */
export function commandTarget(args: unknown[]): { uri?: vscode.Uri; step?: number } {
  const [first, second] = args;
  if (first instanceof vscode.Uri) return { uri: first, ...(typeof second === 'number' ? { step: second } : {}) };
  if (typeof first === 'number') return { step: first };
  return {};
}

/** The last part of a URI's path (or of a path). */
export const basename = (uri: vscode.Uri | string) => (typeof uri === 'string' ? uri : uri.path).split(/[\\/]/).pop() ?? '';

/** The file of the active editor tab (text, custom or binary editor), if it has one. */
export function activeTabUri(): vscode.Uri | undefined {
  const input: unknown = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  if (input instanceof vscode.TabInputText || input instanceof vscode.TabInputCustom) return input.uri;
  if (input instanceof vscode.TabInputTextDiff) return input.modified;
  return undefined;
}
