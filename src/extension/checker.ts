/**
 * Where a check runs: small documents inline; an open document over
 * `prefixLens.workerThresholdBytes` on this thread in small slices between
 * other work (a keystroke never waits for more than one slice, and the report
 * needs no copy from another thread: copying a 20 MB log's report with its
 * windows out of a worker took longer than checking it); a comparison or a
 * file on disk over it in a worker thread (dist/worker.js). Only `Sessions`
 * and the session view ask it (they decide when). A status bar item shows
 * checks that take long.
 */
import * as vscode from 'vscode';
import { Worker } from 'node:worker_threads';
import type { WorkerAnswer } from './worker';
import { checkRequest, checkSubAgentFiles, type CheckedSubAgent, type CheckRequest, type DocumentFollower, type Report, requestSize, type SubAgentsRequest, type TranscriptRequest, type WorkerRequest } from './engine';

/** A check running longer than this shows the status bar item. */
const STATUS_DELAY_MS = 250;

/** Characters of a large document read between two pauses: about one request of a large log, a few ms to tens of ms. */
const SLICE_CHARS = 1 << 16;

const pause = () => new Promise<void>((resolve) => setImmediate(resolve));

export class Checker implements vscode.Disposable {
  private readonly status = vscode.window.createStatusBarItem('prefixLens.progress', vscode.StatusBarAlignment.Left, 100);
  private running = 0;
  /**
   * How many checks ran where (tests read it through the extension's API); `followed`: inline, only
   * the appended lines read; `sliced`: a large document read in slices between other work;
   * `rewound`: (inline or in slices) read from the checkpoint before an edit, the report before it kept;
   * `cancelled`: worker checks ended before their answer (a tab closed before its document came);
   * `ahead`: worker checks that ran in a worker started before they were asked; `settled`: re-checks after an edit
   * whose kept checkpoints were made after their report (core/follow.ts `settle`).
   */
  readonly stats = { inline: 0, worker: 0, ahead: 0, followed: 0, sliced: 0, rewound: 0, settled: 0, cancelled: 0, failures: [] as string[] };
  /**
   * A worker thread started before it is asked (at activation, and again
   * after each worker check ends), its engine loaded: a large file's check
   * from disk does not wait for a thread to start and load the bundle (80–170
   * ms of the first diagnostics on a loaded 2-core machine). Each check still
   * gets a thread of its own, ended after it (nothing is kept from one to the
   * next); the idle one holds ~13 MB.
   */
  private spare: Worker | undefined;
  private disposed = false;

  constructor(private readonly workerScript: string) {
    this.status.name = 'Prefix Lens: checking';
    this.spare = this.startWorker();
  }

  /**
   * Checks a document followed as it grows: after an append only the new
   * lines are read, after an edit the text from the checkpoint before it
   * (`DocumentFollower.prepare`, once), else the whole document. What is left
   * to read is read inline under `thresholdBytes`, else in slices between other
   * work. Undefined when a later check of the document took over the read.
   */
  async follow(request: TranscriptRequest, thresholdBytes: number, follow: { readonly follower: DocumentFollower; readonly version: number; readonly editedAt: number }): Promise<Report | undefined> {
    const { follower, version, editedAt } = follow;
    const from = follower.prepare(request, version, editedAt);
    if (from === 'rewound') this.stats.rewound++;
    const report = await this.read(request, thresholdBytes, follower, from, version);
    // What a re-check after an edit left for later (core/follow.ts `settle`), done once its report is out.
    if (from === 'rewound') setImmediate(() => (follower.settle(), this.stats.settled++));
    return report;
  }

  private read(request: TranscriptRequest, thresholdBytes: number, follower: DocumentFollower, from: ReturnType<DocumentFollower['prepare']>, version: number): Report | Promise<Report | undefined> {
    if (request.text.length - follower.position < thresholdBytes) {
      this.stats[from === 'appended' ? 'followed' : 'inline']++;
      return follower.read(request, version);
    }
    this.stats.sliced++;
    return this.showingProgress(request, () => follower.readInSlices(request, version, pause, SLICE_CHARS));
  }

  /** Checks a request; in a worker when the text is at least `thresholdBytes` long (UTF-16 units ≈ bytes), ended when `signal` aborts. */
  check(request: CheckRequest, thresholdBytes: number, signal?: AbortSignal): Promise<Report> {
    return this.run(request, thresholdBytes, () => checkRequest(request), signal);
  }

  /** Checks a session's sub-agent files, each on its own; where `check` would check their texts together. */
  checkSubAgents(request: SubAgentsRequest, thresholdBytes: number): Promise<CheckedSubAgent[]> {
    return this.run(request, thresholdBytes, () => checkSubAgentFiles(request));
  }

  private async run<T extends Report | CheckedSubAgent[]>(request: WorkerRequest, thresholdBytes: number, inline: () => T, signal?: AbortSignal): Promise<T> {
    if (requestSize(request).length < thresholdBytes) {
      this.stats.inline++;
      return inline();
    }
    this.stats.worker++;
    return this.showingProgress(request, () =>
      this.inWorker<T>(request, signal).catch((error: unknown) => {
        if (!signal?.aborted) this.stats.failures.push(String(error));
        throw error;
      }),
    );
  }

  /** Runs a long check with the status bar item shown once it has taken `STATUS_DELAY_MS`. */
  private async showingProgress<T>(request: WorkerRequest, run: () => Promise<T>): Promise<T> {
    const { file, length } = requestSize(request);
    const label = file.split(/[\\/]/).pop() ?? file;
    const timer = setTimeout(() => this.showProgress(label, length), STATUS_DELAY_MS);
    this.running++;
    try {
      return await run();
    } finally {
      clearTimeout(timer);
      if (--this.running === 0) this.status.hide();
    }
  }

  private showProgress(label: string, size: number): void {
    this.status.text = `$(sync~spin) Prefix Lens: checking ${label} (${(size / 1e6).toFixed(1)} MB)`;
    this.status.tooltip = 'Prefix Lens is checking a large transcript, between other work';
    this.status.show();
  }

  /** The worker's answer to `request` (of the kind `answerRequest` gives for it); the worker ended when `signal` aborts. */
  private inWorker<T>(request: WorkerRequest, signal?: AbortSignal): Promise<T> {
    return new Promise((resolve, reject) => {
      const worker = this.takeWorker();
      const cancel = () => {
        void worker.terminate();
        this.spare ??= this.startWorker();
        this.stats.cancelled++;
        reject(new Error('cancelled'));
      };
      signal?.addEventListener('abort', cancel, { once: true });
      const finish = () => {
        signal?.removeEventListener('abort', cancel);
        void worker.terminate();
        this.spare ??= this.startWorker();
      };
      worker.once('message', (answer: WorkerAnswer) => {
        finish();
        if (answer.ok) resolve(answer.result as T);
        else reject(new Error(answer.error));
      });
      worker.once('error', (error) => {
        finish();
        reject(error);
      });
      worker.postMessage(request);
    });
  }

  /** The spare worker (a new one when there is none: it failed to start, or a check took it and has not ended). */
  private takeWorker(): Worker {
    const spare = this.spare;
    this.spare = undefined;
    if (!spare) return new Worker(this.workerScript);
    this.stats.ahead++;
    spare.ref();
    return spare;
  }

  /** A worker for the next check, started now; unreferenced while idle (it keeps no process alive). Undefined once disposed. */
  private startWorker(): Worker | undefined {
    if (this.disposed) return undefined;
    const worker = new Worker(this.workerScript);
    worker.unref();
    // A spare that fails before it is asked (its script missing, out of memory) is dropped: the next check starts its own.
    const drop = () => this.spare === worker && (this.spare = undefined);
    worker.once('error', drop).once('exit', drop);
    return worker;
  }

  dispose(): void {
    this.disposed = true;
    void this.spare?.terminate();
    this.spare = undefined;
    this.status.dispose();
  }
}
