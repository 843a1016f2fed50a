/**
 * A transcript's check started from its file on disk the moment its editor
 * tab opens, before VS Code has loaded the document (seconds for a 20 MB log).
 * First the findings alone, checked as the CLI checks (no windows kept, in a
 * worker thread that reads the file itself: the report is small), published at once, placed by the
 * report's own line starts; then the editor's check (windows kept, in slices
 * between other work), whose follower the session of the document takes over
 * once it comes (its check then finds the text read, unless the document
 * differs from the file: then it reads it again). Owned by `Sessions`, which
 * decides when (a tab opened) and hands both checks to the Checker.
 */
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { Checker } from './checker';
import { DocumentFollower, fileHead, findingsRequest, lineColumn, recognises, resolveLimits, type Report, type SourceRange } from './engine';
import { readSettings } from './settings';
import { EXTENSIONS as TRANSCRIPT_EXTENSIONS, SNIFF_CHARS } from './sniff';

/** File names whose tabs are checked from disk: the text ones (`prefixLens.include` globs wait for the document). */
const EXTENSIONS = TRANSCRIPT_EXTENSIONS.filter((e) => e !== '.eval');

/** VS Code hands no document over this many characters to extensions (its model sync limit, 50 MB): no session would take its follower. */
const SYNC_LIMIT_CHARS = 50 * 1024 * 1024;

/** A check from disk in progress or done: the follower it leaves for the document's session, whether it published, how to stop it. */
interface DiskCheck {
  readonly done: Promise<DocumentFollower | undefined>;
  readonly stop: AbortController;
  published: boolean;
}

export class DiskStarts {
  private readonly byUri = new Map<string, DiskCheck>();

  constructor(
    private readonly checker: Checker,
    /** A report of a file whose document is not open yet. */
    private readonly checked: (uri: vscode.Uri, report: Report) => void,
  ) {}

  /** Starts checking the file of each opened tab that names a transcript file no document holds yet. */
  start(tabs: readonly vscode.Tab[], isOpen: (uri: vscode.Uri) => boolean): void {
    for (const tab of tabs) {
      const uri = tab.input instanceof vscode.TabInputText ? tab.input.uri : undefined;
      if (!uri || uri.scheme !== 'file' || !EXTENSIONS.some((e) => uri.path.toLowerCase().endsWith(e))) continue;
      if (this.byUri.has(uri.toString()) || isOpen(uri) || vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString())) continue;
      const stop = new AbortController();
      const publish = (report: Report) => {
        if (this.byUri.get(uri.toString()) !== check) return;
        check.published = true;
        this.checked(uri, report);
      };
      const check: DiskCheck = { stop, published: false, done: this.check(uri, stop.signal, publish).catch(() => undefined) };
      this.byUri.set(uri.toString(), check);
    }
  }

  /** The follower of a file checked from disk, once its check is done (undefined: none, or it failed), for the session of its document. */
  async take(uri: vscode.Uri): Promise<DocumentFollower | undefined> {
    const check = this.byUri.get(uri.toString());
    if (!check) return undefined;
    this.byUri.delete(uri.toString());
    return check.done;
  }

  /** Forgets a file (its tab closed before its document came), stopping its check; true when the check published a report. */
  drop(uri: vscode.Uri): boolean {
    const check = this.byUri.get(uri.toString());
    if (!check) return false;
    this.byUri.delete(uri.toString());
    check.stop.abort();
    return check.published;
  }

  /**
   * The findings first (`publish`), then the follower's report (published
   * too), the follower kept for the document's session. Undefined for a file
   * under `workerThresholdBytes` (its document comes soon enough), too large,
   * not UTF-8 or not a transcript, or a check stopped (`signal`).
   */
  private async check(uri: vscode.Uri, signal: AbortSignal, publish: (report: Report) => void): Promise<DocumentFollower | undefined> {
    const settings = readSettings(uri);
    const file = uri.fsPath;
    const size = (await fs.promises.stat(file)).size;
    if (size < settings.workerThresholdBytes || size > resolveLimits(settings.limits).maxFileBytes) return undefined;
    // Not a transcript (sniffed from its head: a large JSON file of another kind is never read whole): left to the document's own check.
    if (!recognises(fileHead(file, SNIFF_CHARS))) return undefined;
    const options = { tokens: settings.tokens, limits: settings.limits };
    // The findings alone, by a worker that reads the file itself (it throws when the file is not UTF-8).
    const findings = await this.checker.check(findingsRequest(file, size, settings.limits), 0, signal).catch(() => undefined);
    if (signal.aborted) return undefined;
    if (findings) publish(findings);
    const text = await fs.promises.readFile(file, 'utf8');
    if (signal.aborted || text.includes('\uFFFD')) return undefined;
    const request = { kind: 'transcript', file, text, ...options } as const;
    const follower = new DocumentFollower();
    signal.addEventListener('abort', () => follower.stop(), { once: true });
    const report = await this.checker.follow(request, settings.workerThresholdBytes, { follower, version: 0, editedAt: -1 });
    if (!report) return undefined;
    // Again with the windows: the related location of an orphan finding (the call or result the rewrite dropped) is found in them.
    publish(report);
    return text.length > SYNC_LIMIT_CHARS ? undefined : follower;
  }
}

/** A report's range placed by its line starts (`Report.lineStarts`): for a file whose document is not there. */
export function rangeByLines(starts: readonly number[], range: SourceRange): vscode.Range {
  return new vscode.Range(positionByLines(starts, range.start), positionByLines(starts, range.end));
}

/** A report's offset placed by its line starts (text the document does not hold, or no document). */
export function positionByLines(starts: readonly number[], offset: number): vscode.Position {
  const { line, column } = lineColumn(starts, offset);
  return new vscode.Position(line - 1, column - 1);
}
