/**
 * The sub-agent files beside a Claude Code session, read through VS Code's
 * file system (`<dir>/<session-id>/subagents/agent-<id>.jsonl`, see
 * core/sub-agents.ts). Untrusted and bounded: only regular files are read, each
 * up to `maxFileBytes` and all of them together too, at most `MAX_SUB_AGENTS`;
 * any other is listed with why it was not read. Never throws.
 */
import * as vscode from 'vscode';
import { agentIdOfFile, MAX_META_BYTES, OVER_COUNT, resolveLimits, subAgentNames, tooLarge, type Limits, type SubAgentFile } from '../engine';

/** The folder of a session's sub-agent files (it may not exist). */
export function subAgentFolder(session: vscode.Uri): vscode.Uri {
  const name = session.path.split('/').pop() ?? '';
  return vscode.Uri.joinPath(session, '..', name.replace(/\.jsonl$/i, ''), 'subagents');
}

/** One file read: its URI (to open it) and what the check needs. */
export interface ReadSubAgent {
  readonly uri: vscode.Uri;
  readonly source: SubAgentFile;
}

/** The sub-agent files of a `.jsonl` session; none when it has no such folder. */
export async function readSubAgentFiles(session: vscode.Uri, overrides: Partial<Limits>): Promise<ReadSubAgent[]> {
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
  const limits = resolveLimits(overrides);
  const types = new Map(entries);
  const { read, over } = subAgentNames(entries.map(([name]) => name));
  const budget = { left: limits.maxFileBytes };
  const out: ReadSubAgent[] = [];
  for (const name of read) out.push(await readOne(folder, name, types, limits, budget));
  for (const name of over) out.push({ uri: vscode.Uri.joinPath(folder, name), source: { agentId: agentIdOfFile(name)!, file: fileName(vscode.Uri.joinPath(folder, name)), unread: OVER_COUNT } });
  return out;
}

async function readOne(folder: vscode.Uri, name: string, types: ReadonlyMap<string, vscode.FileType>, limits: Limits, budget: { left: number }): Promise<ReadSubAgent> {
  const uri = vscode.Uri.joinPath(folder, name);
  const metaName = name.replace(/\.jsonl$/, '.meta.json');
  const meta = types.has(metaName) ? await readMeta(vscode.Uri.joinPath(folder, metaName)) : undefined;
  const base = { agentId: agentIdOfFile(name)!, file: fileName(uri), ...(meta !== undefined && { meta }) };
  const unread = (reason: string): ReadSubAgent => ({ uri, source: { ...base, unread: reason } });
  if (((types.get(name) ?? 0) & vscode.FileType.File) === 0) return unread('not read: not a regular file');
  try {
    const stat = await vscode.workspace.fs.stat(uri);
    if (stat.size > limits.maxFileBytes) return unread(tooLarge(stat.size, limits));
    if (stat.size > budget.left) return unread(`not read: the session's sub-agent files together are over the limit of one file (maxFileBytes, docs/limits.md)`);
    budget.left -= stat.size;
    return { uri, source: { ...base, text: new TextDecoder().decode(await vscode.workspace.fs.readFile(uri)) } };
  } catch (error) {
    return unread(`not read: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
}

async function readMeta(uri: vscode.Uri): Promise<string | undefined> {
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
