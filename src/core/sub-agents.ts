/**
 * Claude Code 2.x writes each sub-agent's conversation to a file of its own
 * beside the session: `<dir>/<session-id>/subagents/agent-<agent-id>.jsonl`,
 * with `agent-<agent-id>.meta.json` in newer versions (`agentType`,
 * `description`, `toolUseId`: the call that started it). Older versions wrote
 * the sub-agent's lines into the session itself (formats/claude-code/side-chains.ts).
 *
 * `checkSession` checks the session and each sub-agent file on its own (a file
 * of side-chain lines is read as its own main conversation), and links each
 * sub-agent to the call that started it, by, in order:
 *  1. the meta file's `toolUseId`;
 *  2. the line that names the agent beside a call id: the call's result
 *     (`toolUseResult.agentId`), or a progress line of the running agent
 *     (`data.agentId` with `parentToolUseID`); found in the session or in another
 *     sub-agent's file (a sub-agent's own sub-agents sit in the same folder);
 *  3. the call whose `input.prompt` is the sub-agent's first user text.
 *
 * Untrusted: a sub-agent file that is missing, not a regular file, too large or
 * beyond the count limit is not read and says why (`unread`); a malformed one is
 * checked like any file (its findings say what is wrong). Nothing here throws.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkTranscript, toInput, type CheckInput } from './check';
import { inputFromFile } from './io';
import { formatBytes, resolveLimits, type Limits } from './limits';
import type { CheckOptions, Report } from './results';
import type { ThreadInfo } from './transcript';

/** Sub-agent files read beside one session; the rest are listed as not read. */
export const MAX_SUB_AGENTS = 200;
/** Largest `.meta.json` read. */
export const MAX_META_BYTES = 64 * 1024;
/** Lines of a sub-agent file searched for its first prompt. */
const PROMPT_LINES = 200;

/** A sub-agent file as found beside a session. */
export interface SubAgentSource {
  readonly agentId: string;
  readonly file: string;
  /** Its content; absent when it was not read (`unread` says why). */
  readonly input?: CheckInput;
  /** The text of its `agent-<id>.meta.json`, when there is one. */
  readonly meta?: string;
  readonly unread?: string;
}

/** A sub-agent of a session: its own check, and the call that started it. */
export interface SubAgent {
  readonly agentId: string;
  readonly file: string;
  /** Kind `side-chain`; `parentCall` is the call that started it, when found. Ids follow the session's own threads. */
  readonly thread: ThreadInfo;
  /** The sub-agent whose file holds that call (a sub-agent's own sub-agent); absent when the session holds it. */
  readonly parentAgent?: string;
  /** Its file checked on its own; absent when the file was not read. */
  readonly report?: Report;
  /** Why the file was not read. */
  readonly unread?: string;
}

/** `<dir>/<session-id>/subagents` for `<dir>/<session-id>.jsonl`. */
export function subAgentDir(sessionFile: string): string {
  const base = path.basename(sessionFile).replace(/\.jsonl$/i, '');
  return path.join(path.dirname(sessionFile), base, 'subagents');
}

/** The agent id of a sub-agent file name (`agent-<id>.jsonl`), else undefined. */
export function agentIdOfFile(name: string): string | undefined {
  const match = /^agent-(.{1,200})\.jsonl$/.exec(name);
  return match?.[1];
}

/** The sub-agent file names of a folder listing, in name order, the first `MAX_SUB_AGENTS` of them. */
export function subAgentNames(names: readonly string[]): { readonly read: string[]; readonly over: string[] } {
  const all = names.filter((n) => agentIdOfFile(n) !== undefined).sort();
  return { read: all.slice(0, MAX_SUB_AGENTS), over: all.slice(MAX_SUB_AGENTS) };
}

/** Why a sub-agent file beyond the count limit is not read. */
export const OVER_COUNT = `not read: more than ${MAX_SUB_AGENTS} sub-agent files beside the session`;

/** Why a file over the size limit is not read. */
export function tooLarge(bytes: number, limits: Limits): string {
  return `not read: ${formatBytes(bytes)}, over the limit of ${formatBytes(limits.maxFileBytes)} (maxFileBytes, docs/limits.md)`;
}

/** The sub-agent files beside a session on disk (plain Node: the CLI and the library). None when there is no such folder. */
export function readSubAgents(sessionFile: string, overrides?: Partial<Limits>): SubAgentSource[] {
  const dir = subAgentDir(sessionFile);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const limits = resolveLimits(overrides);
  const { read, over } = subAgentNames(names);
  const sources = read.map((name) => readOne(path.join(dir, name), agentIdOfFile(name)!, limits));
  return [...sources, ...over.map((name) => ({ agentId: agentIdOfFile(name)!, file: path.join(dir, name), unread: OVER_COUNT }))];
}

function readOne(file: string, agentId: string, limits: Limits): SubAgentSource {
  const meta = readMeta(file.replace(/\.jsonl$/, '.meta.json'));
  const base = { agentId, file, ...(meta !== undefined && { meta }) };
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) return { ...base, unread: 'not read: not a regular file' };
    if (stat.size > limits.maxFileBytes) return { ...base, unread: tooLarge(stat.size, limits) };
    return { ...base, input: inputFromFile(file, limits) };
  } catch (error) {
    return { ...base, unread: `not read: ${reasonOf(error)}` };
  }
}

function readMeta(file: string): string | undefined {
  try {
    const stat = fs.statSync(file);
    return stat.isFile() && stat.size <= MAX_META_BYTES ? fs.readFileSync(file, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}

function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.message.split('\n')[0]! : String(error);
}

/**
 * Checks a Claude Code session with its sub-agent files: the session's report,
 * with `subAgents` (each checked on its own, linked to the call that started
 * it). A file that is not a Claude Code session keeps its report as is.
 */
export function checkSession(main: CheckInput, sources: readonly SubAgentSource[], options: CheckOptions = {}): Report {
  const report = checkTranscript(main, options);
  if (report.format !== 'claude-code' || sources.length === 0) return report;
  return { ...report, subAgents: checkSubAgents(report, main, sources, options) };
}

function checkSubAgents(report: Report, main: CheckInput, sources: readonly SubAgentSource[], options: CheckOptions): SubAgent[] {
  const links = new Links();
  links.scan(main, undefined);
  const reports = sources.map((source) => {
    if (!source.input) return undefined;
    links.scan(source.input, source.agentId);
    return checkOne(source.input, options);
  });
  const first = (report.session?.threads?.length ?? 1) + 1;
  return sources.map((source, i) => {
    const meta = metaOf(source.meta);
    const prompt = source.input ? firstPrompt(source.input) : undefined;
    const call = links.callOf(source.agentId, meta.toolUseId, prompt);
    const type = meta.agentType ?? call?.type;
    const label = `sub-agent ${type ? `${type.slice(0, 80)} ` : ''}(${source.agentId.slice(0, 80)})`;
    const thread: ThreadInfo = { id: first + i, kind: 'side-chain', label, ...(call && { parentCall: call.id }) };
    const r = reports[i];
    return {
      agentId: source.agentId,
      file: source.file,
      thread,
      ...(call?.agent !== undefined && call.agent !== source.agentId && { parentAgent: call.agent }),
      ...(r ? { report: r } : { unread: source.unread ?? 'not read' }),
    };
  });
}

/** A sub-agent file checked on its own, as a Claude Code session (never throws: a bad file gives findings). */
function checkOne(input: CheckInput, options: CheckOptions): Report | undefined {
  try {
    return checkTranscript(input, { ...options, format: 'claude-code' });
  } catch {
    return undefined;
  }
}

interface Meta {
  readonly toolUseId?: string;
  readonly agentType?: string;
}

function metaOf(text: string | undefined): Meta {
  const value = parse(text ?? '');
  const toolUseId = stringAt(value, 'toolUseId');
  const agentType = stringAt(value, 'agentType');
  return { ...(toolUseId && { toolUseId }), ...(agentType && { agentType }) };
}

/** A call that can start a sub-agent, and the file holding it (a sub-agent's id; undefined: the session). */
interface Call {
  readonly id: string;
  readonly agent: string | undefined;
  readonly type?: string;
}

/** What the lines of the session and of its sub-agents say about which call started which agent. */
class Links {
  private readonly calls = new Map<string, Call>();
  private readonly byAgent = new Map<string, string>();
  private readonly byPrompt = new Map<string, string>();

  /** Reads the lines that can name an agent or hold a call with a prompt (the rest are not parsed). */
  scan(input: CheckInput, agent: string | undefined): void {
    try {
      for (const line of toInput(input).lines()) {
        const text = line.text;
        const names = text.includes('"agentId"');
        const calls = text.includes('"tool_use"') && text.includes('"prompt"');
        if (names || calls) this.read(parse(text), agent, names, calls);
      }
    } catch {
      // A file that stops being readable: what was read links what it can.
    }
  }

  private read(record: unknown, agent: string | undefined, names: boolean, calls: boolean): void {
    const content = at(at(record, 'message'), 'content');
    const blocks = Array.isArray(content) ? content : [];
    if (calls) {
      for (const block of blocks) {
        if (stringAt(block, 'type') !== 'tool_use') continue;
        const id = stringAt(block, 'id');
        const input = at(block, 'input');
        const prompt = stringAt(input, 'prompt');
        if (!id || !prompt || this.calls.size >= 100_000) continue;
        const type = stringAt(input, 'subagent_type');
        this.calls.set(id, { id, agent, ...(type && { type }) });
        if (!this.byPrompt.has(prompt)) this.byPrompt.set(prompt, id);
      }
    }
    if (!names) return;
    // The result of the call names its agent; a progress line of the running agent names its call.
    const named = stringAt(at(record, 'toolUseResult'), 'agentId');
    const result = blocks.find((b) => stringAt(b, 'type') === 'tool_result');
    const resultOf = stringAt(result, 'tool_use_id');
    if (named && resultOf) this.byAgent.set(named, resultOf);
    const running = stringAt(at(record, 'data'), 'agentId');
    const parent = stringAt(record, 'parentToolUseID');
    if (running && parent && !this.byAgent.has(running)) this.byAgent.set(running, parent);
  }

  /** The call that started an agent: by its meta file, by a line naming it, by its first prompt. */
  callOf(agentId: string, toolUseId: string | undefined, prompt: string | undefined): Call | undefined {
    const id = toolUseId ?? this.byAgent.get(agentId) ?? (prompt === undefined ? undefined : this.byPrompt.get(prompt));
    if (id === undefined) return undefined;
    return this.calls.get(id) ?? { id, agent: undefined };
  }
}

/** The first user text of a sub-agent's file: the prompt its call gave it. */
function firstPrompt(input: CheckInput): string | undefined {
  try {
    let n = 0;
    for (const line of toInput(input).lines()) {
      if (++n > PROMPT_LINES) return undefined;
      if (!line.text.includes('"user"')) continue;
      const record = parse(line.text);
      if (stringAt(record, 'type') !== 'user' || at(record, 'isMeta') === true) continue;
      const content = at(at(record, 'message'), 'content');
      if (typeof content === 'string') return content;
      const text = Array.isArray(content) ? content.find((b) => stringAt(b, 'type') === 'text') : undefined;
      const value = stringAt(text, 'text');
      if (value !== undefined) return value;
    }
  } catch {
    // Not readable: no prompt to link by.
  }
  return undefined;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function at(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
}

function stringAt(value: unknown, key: string): string | undefined {
  const v = at(value, key);
  return typeof v === 'string' && v.length > 0 && v.length <= 100_000 ? v : undefined;
}
