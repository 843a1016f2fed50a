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
import type { ThreadInfo, TranscriptInput } from './transcript';

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
 * it). A file that is not a Claude Code session keeps its report as is. Each
 * file is read once: what links it is noted from the lines its check reads.
 */
export function checkSession(main: CheckInput, sources: readonly SubAgentSource[], options: CheckOptions = {}): Report {
  if (sources.length === 0) return checkTranscript(main, options);
  const scan = new LinkScan();
  const report = checkTranscript(scan.of(toInput(main)), options);
  if (report.format !== 'claude-code') return report;
  const checked = sources.map((source) => checkSubAgentFile(source, options));
  return { ...report, subAgents: linkSubAgents(scan.facts, checked, firstThreadOf(report)) };
}

/** The thread id of a session's first sub-agent: after the session's own threads. */
export function firstThreadOf(report: Report): number {
  return (report.session?.threads?.length ?? 1) + 1;
}

/** What the lines of a session say about which call started which agent (its sub-agents are linked by them). */
export function scanLinks(main: CheckInput): readonly LinkFact[] {
  const scan = new LinkScan();
  try {
    for (const line of toInput(main).lines()) scan.line(line.text);
  } catch {
    // A file that stops being readable: what was read links what it can.
  }
  return scan.facts;
}

/** A sub-agent file checked on its own, with what its lines say about links: plain data (it crosses to a worker thread). */
export interface CheckedSubAgent {
  readonly agentId: string;
  readonly file: string;
  readonly meta?: string;
  /** Absent when the file was not read (`unread` says why) or its check failed. */
  readonly report?: Report;
  readonly unread?: string;
  readonly facts: readonly LinkFact[];
  /** Its first user text: the prompt its call gave it. */
  readonly prompt?: string;
}

/** Checks one sub-agent file on its own, as a Claude Code session, reading it once (never throws: a bad file gives findings). */
export function checkSubAgentFile(source: SubAgentSource, options: CheckOptions): CheckedSubAgent {
  const { input, ...rest } = source;
  if (!input) return { ...rest, facts: [] };
  const scan = new LinkScan(PROMPT_LINES);
  let report: Report | undefined;
  try {
    report = checkTranscript(scan.of(toInput(input)), { ...options, format: 'claude-code' });
  } catch {
    report = undefined;
  }
  return { ...rest, ...(report && { report }), facts: scan.facts, ...(scan.prompt !== undefined && { prompt: scan.prompt }) };
}

/** Links each checked sub-agent file to the call that started it, by what the session's lines (`main`) and theirs say. */
export function linkSubAgents(main: readonly LinkFact[], checked: readonly CheckedSubAgent[], firstThread: number): SubAgent[] {
  const links = new Links();
  links.add(main, undefined);
  for (const c of checked) links.add(c.facts, c.agentId);
  return checked.map((c, i) => {
    const meta = metaOf(c.meta);
    const call = links.callOf(c.agentId, meta.toolUseId, c.prompt);
    const type = meta.agentType ?? call?.type;
    const label = `sub-agent ${type ? `${type.slice(0, 80)} ` : ''}(${c.agentId.slice(0, 80)})`;
    const thread: ThreadInfo = { id: firstThread + i, kind: 'side-chain', label, ...(call && { parentCall: call.id }) };
    return {
      agentId: c.agentId,
      file: c.file,
      thread,
      ...(call?.agent !== undefined && call.agent !== c.agentId && { parentAgent: call.agent }),
      ...(c.report ? { report: c.report } : { unread: c.unread ?? 'not read' }),
    };
  });
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

/**
 * One thing a line says about links, in file order: a call with a prompt (it
 * can start a sub-agent), a result naming the agent its call started, a
 * progress line of a running agent naming its call.
 */
export type LinkFact =
  | { readonly kind: 'call'; readonly id: string; readonly prompt: string; readonly type?: string }
  | { readonly kind: 'named' | 'running'; readonly agent: string; readonly call: string };

/** Calls noted per file, and linked in all. */
const MAX_CALLS = 100_000;

/** Notes the link facts (and, within its first `promptLinesLeft` lines, the first prompt) of the lines a check reads. */
class LinkScan {
  readonly facts: LinkFact[] = [];
  prompt: string | undefined;
  private calls = 0;
  private seen = -1;

  constructor(private promptLinesLeft = 0) {}

  /** The input, noting each line the first time a reader reads it. */
  of(input: TranscriptInput): TranscriptInput {
    const lines = function* (scan: LinkScan) {
      for (const line of input.lines()) {
        if (line.index > scan.seen) {
          scan.seen = line.index;
          scan.line(line.text);
        }
        yield line;
      }
    };
    return { ...input, lines: () => lines(this) };
  }

  /** Parses only the lines that can name an agent, hold a call with a prompt, or hold the first prompt. */
  line(text: string): void {
    const names = text.includes('"agentId"');
    const calls = text.includes('"tool_use"') && text.includes('"prompt"');
    const prompt = this.prompt === undefined && this.promptLinesLeft-- > 0 && text.includes('"user"');
    if (!names && !calls && !prompt) return;
    const record = parse(text);
    const blocks = blocksOf(record);
    if (calls) this.noteCalls(blocks);
    if (names) this.noteNames(record, blocks);
    if (prompt) this.prompt = promptOf(record);
  }

  private noteCalls(blocks: readonly unknown[]): void {
    for (const block of blocks) {
      if (stringAt(block, 'type') !== 'tool_use') continue;
      const id = stringAt(block, 'id');
      const input = at(block, 'input');
      const prompt = stringAt(input, 'prompt');
      if (!id || !prompt || this.calls >= MAX_CALLS) continue;
      this.calls++;
      const type = stringAt(input, 'subagent_type');
      this.facts.push({ kind: 'call', id, prompt, ...(type && { type }) });
    }
  }

  /** The result of the call names its agent; a progress line of the running agent names its call. */
  private noteNames(record: unknown, blocks: readonly unknown[]): void {
    const named = stringAt(at(record, 'toolUseResult'), 'agentId');
    const result = blocks.find((b) => stringAt(b, 'type') === 'tool_result');
    const resultOf = stringAt(result, 'tool_use_id');
    if (named && resultOf) this.facts.push({ kind: 'named', agent: named, call: resultOf });
    const running = stringAt(at(record, 'data'), 'agentId');
    const parent = stringAt(record, 'parentToolUseID');
    if (running && parent) this.facts.push({ kind: 'running', agent: running, call: parent });
  }
}

function blocksOf(record: unknown): readonly unknown[] {
  const content = at(at(record, 'message'), 'content');
  return Array.isArray(content) ? content : [];
}

/** A user line's text (not a meta line): a sub-agent's first one is the prompt its call gave it. */
function promptOf(record: unknown): string | undefined {
  if (stringAt(record, 'type') !== 'user' || at(record, 'isMeta') === true) return undefined;
  const content = at(at(record, 'message'), 'content');
  if (typeof content === 'string') return content;
  const text = Array.isArray(content) ? content.find((b) => stringAt(b, 'type') === 'text') : undefined;
  return stringAt(text, 'text');
}

/** A call that can start a sub-agent, and the file holding it (a sub-agent's id; undefined: the session). */
interface Call {
  readonly id: string;
  readonly agent: string | undefined;
  readonly type?: string;
}

/** The link facts of the session and of its sub-agent files, taken in that order. */
class Links {
  private readonly calls = new Map<string, Call>();
  private readonly byAgent = new Map<string, string>();
  private readonly byPrompt = new Map<string, string>();

  add(facts: readonly LinkFact[], agent: string | undefined): void {
    for (const fact of facts) {
      if (fact.kind === 'call') {
        if (this.calls.size >= MAX_CALLS) continue;
        this.calls.set(fact.id, { id: fact.id, agent, ...(fact.type && { type: fact.type }) });
        if (!this.byPrompt.has(fact.prompt)) this.byPrompt.set(fact.prompt, fact.id);
      } else if (fact.kind === 'named' || !this.byAgent.has(fact.agent)) {
        this.byAgent.set(fact.agent, fact.call);
      }
    }
  }

  /** The call that started an agent: by its meta file, by a line naming it, by its first prompt. */
  callOf(agentId: string, toolUseId: string | undefined, prompt: string | undefined): Call | undefined {
    const id = toolUseId ?? this.byAgent.get(agentId) ?? (prompt === undefined ? undefined : this.byPrompt.get(prompt));
    if (id === undefined) return undefined;
    return this.calls.get(id) ?? { id, agent: undefined };
  }
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
