/**
 * Where a check runs: small documents inline, documents over
 * `prefixLens.workerThresholdBytes` in a worker thread (dist/worker.js) so the
 * extension host never blocks. Only `Sessions` asks it (it decides when).
 * A status bar item shows checks that take long.
 */
import * as vscode from 'vscode';
import { Worker } from 'node:worker_threads';
import type { WorkerAnswer } from './worker';
import { checkRequest, type CheckRequest, type DocumentFollower, type Report, requestSize, type TranscriptRequest } from './engine';

/** A check running longer than this shows the status bar item. */
const STATUS_DELAY_MS = 250;

export class Checker implements vscode.Disposable {
  private readonly status = vscode.window.createStatusBarItem('prefixLens.progress', vscode.StatusBarAlignment.Left, 100);
  private running = 0;
  /** How many checks ran where (tests read it through the extension's API); `followed`: inline, only the appended lines read. */
  readonly stats = { inline: 0, worker: 0, followed: 0, failures: [] as string[] };

  constructor(private readonly workerScript: string) {
    this.status.name = 'Prefix Lens: checking';
  }

  /**
   * Checks a document followed as it grows: after an append, only the new
   * lines are read, inline (however large the document, unless the append
   * itself is over `thresholdBytes`). Otherwise the whole
   * document is read by `check`'s rule; after a check in a worker the
   * follower reads it in slices between other work, for the next append.
   */
  async follow(request: TranscriptRequest, thresholdBytes: number, follow: { readonly follower: DocumentFollower; readonly version: number; readonly editedAt: number }): Promise<Report> {
    const { follower, version, editedAt } = follow;
    if (follower.follows(request, editedAt) && request.text.length - follower.position < thresholdBytes) {
      this.stats.followed++;
      return follower.check(request, version, editedAt);
    }
    if (request.text.length < thresholdBytes) {
      this.stats.inline++;
      return follower.check(request, version, editedAt);
    }
    const report = await this.check(request, thresholdBytes);
    void follower.readInSlices(request, version, () => new Promise((resolve) => setImmediate(resolve)));
    return report;
  }

  /** Checks a request; in a worker when the text is at least `thresholdBytes` long (UTF-16 units ≈ bytes). */
  async check(request: CheckRequest, thresholdBytes: number): Promise<Report> {
    const { file, length } = requestSize(request);
    const label = file.split(/[\\/]/).pop() ?? file;
    const timer = setTimeout(() => this.showProgress(label, length), STATUS_DELAY_MS);
    this.running++;
    try {
      if (length >= thresholdBytes) {
        this.stats.worker++;
        return await this.inWorker(request).catch((error: unknown) => {
          this.stats.failures.push(String(error));
          throw error;
        });
      }
      this.stats.inline++;
      return checkRequest(request);
    } finally {
      clearTimeout(timer);
      if (--this.running === 0) this.status.hide();
    }
  }

  private showProgress(label: string, size: number): void {
    this.status.text = `$(sync~spin) Prefix Lens: checking ${label} (${(size / 1e6).toFixed(1)} MB)`;
    this.status.tooltip = 'Prefix Lens is checking a large transcript in a worker thread';
    this.status.show();
  }

  private inWorker(request: CheckRequest): Promise<Report> {
    return new Promise((resolve, reject) => {
      const worker = new Worker(this.workerScript);
      const finish = () => void worker.terminate();
      worker.once('message', (answer: WorkerAnswer) => {
        finish();
        if (answer.ok) resolve(answer.report);
        else reject(new Error(answer.error));
      });
      worker.once('error', (error) => {
        finish();
        reject(error);
      });
      worker.postMessage(request);
    });
  }

  dispose(): void {
    this.status.dispose();
  }
}
