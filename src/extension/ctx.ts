/** What every command factory and provider gets: the pieces of one activation (no module-level state). */
import type * as vscode from 'vscode';
import type { Inspector } from './inspector/panel';
import type { Sessions } from './sessions';

export interface Ctx {
  readonly extension: vscode.ExtensionContext;
  readonly sessions: Sessions;
  /** docs/rules.md, where rule ids link to. */
  readonly rulesDoc: vscode.Uri;
  readonly log: vscode.LogOutputChannel;
  /** Findings of "Compare with…" / "Compare with HEAD", kept apart from the live diagnostics. */
  readonly compareDiagnostics: vscode.DiagnosticCollection;
  /** The inspector panel, where "Compare with…" shows its diff. */
  readonly inspector: Inspector;
}
