/**
 * "Export Report": writes the current transcript's report as Markdown or
 * SARIF 2.1.0 through the engine's report writers.
 */
import * as vscode from 'vscode';
import type { Ctx } from './ctx';
import { type Report, toMarkdown, toSarif } from './engine';

export type ExportFormat = 'markdown' | 'sarif';

/** The report as file text (pure). */
export function reportText(report: Report, format: ExportFormat, rulesDocUri: string, toolVersion: string): string {
  if (format === 'markdown') return toMarkdown(report, { rulesDocUri });
  return `${JSON.stringify(toSarif([report], { toolVersion, rulesDocUri }), null, 2)}\n`;
}

async function pickFormat(): Promise<ExportFormat | undefined> {
  const picked = await vscode.window.showQuickPick(
    [
      { label: 'Markdown', description: '.md', format: 'markdown' as const },
      { label: 'SARIF 2.1.0', description: '.sarif', format: 'sarif' as const },
    ],
    { title: 'Prefix Lens: export the report as' },
  );
  return picked?.format;
}

/** `prefixLens.exportReport(format?, target?)`; without arguments it asks. Returns the written file. */
export function exportReport(ctx: Ctx): (format?: unknown, target?: unknown) => Promise<vscode.Uri | undefined> {
  return async (formatArg, targetArg) => {
    const session = ctx.sessions.active();
    if (!session?.report) {
      void vscode.window.showWarningMessage('Prefix Lens: open a transcript to export its report.');
      return undefined;
    }
    const format = formatArg === 'markdown' || formatArg === 'sarif' ? formatArg : await pickFormat();
    if (!format) return undefined;
    const suffix = format === 'markdown' ? '.prefix-lens.md' : '.prefix-lens.sarif';
    const target =
      targetArg instanceof vscode.Uri
        ? targetArg
        : await vscode.window.showSaveDialog({
            defaultUri: session.uri.with({ path: session.uri.path + suffix }),
            filters: format === 'markdown' ? { Markdown: ['md'] } : { SARIF: ['sarif', 'json'] },
          });
    if (!target) return undefined;
    const version = String((ctx.extension.extension.packageJSON as { version?: string }).version ?? '0.0.0');
    const text = reportText(session.report, format, ctx.rulesDoc.toString(), version);
    await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(text));
    void vscode.window.showInformationMessage(`Prefix Lens: report written to ${vscode.workspace.asRelativePath(target)}`);
    return target;
  };
}
