/**
 * *Prefix Lens: Record Agent Session*: starts the recording proxy
 * (core/live/proxy.ts) on a free port, opens its growing request log (the
 * editor follows it as it grows: diagnostics, CodeLens, Rewrites view) and
 * shows the address with the environment lines to paste into the agent's
 * shell. One recording at a time, owned here and disposed with the extension.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { startProxy, type RunningProxy } from './engine';

export const RECORD_COMMAND = 'prefixLens.recordAgentSession';

/** What the command returns (for tests and other extensions). */
export interface Recording {
  readonly url: string;
  readonly log: string;
  /** The lines to paste into the agent's shell. */
  readonly environment: string;
}

export class AgentRecorder implements vscode.Disposable {
  private running: { proxy: RunningProxy; recording: Recording } | undefined;

  constructor(private readonly context: vscode.ExtensionContext) {}

  /** Starts recording (or shows the running one). `upstream`: another base URL than the providers' own. */
  async start(options: { readonly upstream?: string } = {}): Promise<Recording> {
    if (!this.running) {
      const log = this.newLogFile();
      const proxy = await startProxy({ log, ...(options.upstream && { upstream: options.upstream }) });
      const environment = `export ANTHROPIC_BASE_URL=${proxy.url}\nexport OPENAI_BASE_URL=${proxy.url}/v1`;
      this.running = { proxy, recording: { url: proxy.url, log, environment } };
    }
    const { recording } = this.running;
    await vscode.window.showTextDocument(vscode.Uri.file(recording.log), { preview: false, preserveFocus: true });
    void this.announce(recording);
    return recording;
  }

  async stop(): Promise<void> {
    const running = this.running;
    this.running = undefined;
    await running?.proxy.close();
  }

  dispose(): void {
    void this.stop();
  }

  private async announce(recording: Recording): Promise<void> {
    const choice = await vscode.window.showInformationMessage(
      `Prefix Lens is recording on ${recording.url}. Point the agent at it:\n${recording.environment}`,
      'Copy Environment',
      'Stop Recording',
    );
    if (choice === 'Copy Environment') await vscode.env.clipboard.writeText(recording.environment);
    if (choice === 'Stop Recording') await this.stop();
  }

  /** A new empty log: in the workspace's `.prefix-lens/` folder, else in the extension's storage. */
  private newLogFile(): string {
    const folder = vscode.workspace.workspaceFolders?.[0];
    const dir = folder?.uri.scheme === 'file' ? path.join(folder.uri.fsPath, '.prefix-lens') : this.context.globalStorageUri.fsPath;
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `agent-session-${new Date().toISOString().replace(/[:.]/g, '-')}.jsonl`);
    fs.writeFileSync(file, '', { flag: 'a' });
    return file;
  }
}
