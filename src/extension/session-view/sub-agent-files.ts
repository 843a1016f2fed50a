/**
 * The sub-agent files beside a Claude Code session, read through VS Code's
 * file system (`<dir>/<session-id>/subagents/agent-<id>.jsonl`, see
 * core/sub-agents.ts). Untrusted and bounded: only regular files are read, each
 * up to `maxFileBytes` and all of them together too, at most `MAX_SUB_AGENTS`;
 * any other is listed with why it was not read. A view keeps what it read: a
 * file is read and checked again only when its size or modification time (or
 * its meta file's) changed. Never throws.
 */
import * as vscode from 'vscode';
import { agentIdOfFile, firstThreadOf, linkSubAgents, MAX_META_BYTES, OVER_COUNT, resolveLimits, scanLinks, subAgentNames, tooLarge, type CheckedSubAgent, type Limits, type Report, type SubAgentFile } from '../engine';

/** The folder of a session's sub-agent files (it may not exist). */
export function subAgentFolder(session: vscode.Uri): vscode.Uri {
  const name = session.path.split('/').pop() ?? '';
  return vscode.Uri.joinPath(session, '..', name.replace(/\.jsonl$/i, ''), 'subagents');
}

/** One sub-agent file: its URI (to open it) and its check. */
export interface SubAgentOfView {
  readonly uri: vscode.Uri;
  readonly checked: CheckedSubAgent;
}

/** One file found in the folder: checked already (`checked`), or read anew and to be checked (`read`). */
type Found = { readonly uri: vscode.Uri; readonly stamp: string } & ({ readonly checked: CheckedSubAgent } | { readonly read: SubAgentFile });

/** The sub-agent files of one session view, and what was last read of each. */
export class SubAgentFiles {
  private known = new Map<string, { readonly stamp: string; readonly checked: CheckedSubAgent }>();

  /**
   * The session's sub-agent files, each checked (`check` is given the files
   * read anew); none when it has no such folder or is not a `.jsonl` session.
   * `settings`: what a check depends on besides the files (a change re-checks all).
   */
  async read(session: vscode.Uri, overrides: Partial<Limits>, settings: string, check: (files: SubAgentFile[]) => Promise<CheckedSubAgent[]>): Promise<SubAgentOfView[]> {
    const found = await this.find(session, resolveLimits(overrides), settings);
    const fresh = found.flatMap((f) => ('read' in f ? [f.read] : []));
    const checked = fresh.length > 0 ? await check(fresh) : [];
    let next = 0;
    const out = found.map((f) => ({ uri: f.uri, stamp: f.stamp, checked: 'read' in f ? checked[next++]! : f.checked }));
    this.known = new Map(out.filter((f) => f.stamp !== '').map((f) => [f.uri.toString(), f]));
    return out.map(({ uri, checked }) => ({ uri, checked }));
  }

  private async find(session: vscode.Uri, limits: Limits, settings: string): Promise<Found[]> {
    if (!/\.jsonl$/i.test(session.path)) return [];
    const folder = subAgentFolder(session);
    let entries: [string, vscode.FileType][];
    try {
      // Most sessions have no such folder: asked first, so its absence is no read error.
      if (((await vscode.workspace.fs.stat(folder)).type & vscode.FileType.Directory) === 0) return [];
      entries = await vscode.workspace.fs.readDirectory(folder);
    } catch {
      return [];
    }
    const folderOf = { folder, types: new Map(entries), limits, settings, budget: { left: limits.maxFileBytes } };
    const { read, over } = subAgentNames(entries.map(([name]) => name));
    const out: Found[] = [];
    for (const name of read) out.push(await this.findOne(folderOf, name));
    for (const name of over) out.push(unread(vscode.Uri.joinPath(folder, name), name, undefined, OVER_COUNT));
    return out;
  }

  /** One file: its check kept when its stamp (size and time, its meta file's, the settings) is the one read last, else read anew. */
  private async findOne(at: Folder, name: string): Promise<Found> {
    const uri = vscode.Uri.joinPath(at.folder, name);
    const metaName = name.replace(/\.jsonl$/, '.meta.json');
    const metaUri = at.types.has(metaName) ? vscode.Uri.joinPath(at.folder, metaName) : undefined;
    const readMeta = () => (metaUri ? metaOf(metaUri) : Promise.resolve(undefined));
    const notRead = async (reason: string) => unread(uri, name, await readMeta(), reason);
    if (((at.types.get(name) ?? 0) & vscode.FileType.File) === 0) return notRead('not read: not a regular file');
    try {
      const stat = await vscode.workspace.fs.stat(uri);
      if (stat.size > at.limits.maxFileBytes) return notRead(tooLarge(stat.size, at.limits));
      if (stat.size > at.budget.left) return notRead(`not read: the session's sub-agent files together are over the limit of one file (maxFileBytes, docs/limits.md)`);
      at.budget.left -= stat.size;
      const stamp = `${at.settings}|${stampOf(stat)}|${metaUri ? await metaStamp(metaUri) : ''}`;
      const known = this.known.get(uri.toString());
      if (known?.stamp === stamp) return { uri, stamp, checked: known.checked };
      const meta = await readMeta();
      const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
      return { uri, stamp, read: { agentId: agentIdOfFile(name)!, file: fileName(uri), text, ...(meta !== undefined && { meta }) } };
    } catch (error) {
      return notRead(`not read: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    }
  }
}

/** The folder being read: its listing, the limits and what of `maxFileBytes` its files have left. */
interface Folder {
  readonly folder: vscode.Uri;
  readonly types: ReadonlyMap<string, vscode.FileType>;
  readonly limits: Limits;
  readonly settings: string;
  readonly budget: { left: number };
}

/** What a session's text says of its sub-agents (`scanLinks`). */
export type SessionLinks = ReturnType<typeof scanLinks>;

/** A session's report with its sub-agents linked (by the session's links, asked only when it has some, and their own lines), as `checkSession` gives it. */
export function withSubAgents(report: Report, links: () => SessionLinks, agents: readonly SubAgentOfView[]): Report {
  if (agents.length === 0) return report;
  return { ...report, subAgents: linkSubAgents(links(), agents.map((a) => a.checked), firstThreadOf(report)) };
}

/** A file not read: listed with why, never kept. */
function unread(uri: vscode.Uri, name: string, meta: string | undefined, reason: string): Found {
  return { uri, stamp: '', checked: { agentId: agentIdOfFile(name)!, file: fileName(uri), ...(meta !== undefined && { meta }), unread: reason, facts: [] } };
}

const stampOf = (stat: vscode.FileStat) => `${stat.size}:${stat.mtime}`;

async function metaStamp(uri: vscode.Uri): Promise<string> {
  try {
    return stampOf(await vscode.workspace.fs.stat(uri));
  } catch {
    return 'gone';
  }
}

async function metaOf(uri: vscode.Uri): Promise<string | undefined> {
  try {
    const stat = await vscode.workspace.fs.stat(uri);
    return stat.size <= MAX_META_BYTES ? new TextDecoder().decode(await vscode.workspace.fs.readFile(uri)) : undefined;
  } catch {
    return undefined;
  }
}

function fileName(uri: vscode.Uri): string {
  return uri.scheme === 'file' ? uri.fsPath : uri.toString();
}
