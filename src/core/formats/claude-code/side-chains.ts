/**
 * Side-chains of a Claude Code session: a sub-agent's conversation (a Task
 * call) written into the session file as `isSidechain: true` lines (older
 * versions; newer ones write `subagents/agent-<id>.jsonl`, a file that is a
 * side-chain throughout and is read as its own session). Each side-chain is a
 * conversation of its own, with its own context: grouped by `agentId`, or
 * else by the root of its `parentUuid` chain, in order of first appearance.
 *
 * The Task call that started it is found by the tool result naming its agent
 * (`toolUseResult.agentId`), or else by its prompt (the side-chain's first
 * user text is the call's `input.prompt`).
 */
import type { JsonNode } from '../../json/parse';
import { asArray, asString, prop, propString } from '../../json/nodes';
import type { ThreadInfo } from '../../transcript';
import type { CcRecord } from './records';

export interface SideChain {
  readonly thread: ThreadInfo;
  readonly records: readonly CcRecord[];
}

/** The main conversation's records and the side-chains; a file of side-chain lines only is its own main conversation. */
export function splitSideChains(records: readonly CcRecord[]): { main: readonly CcRecord[]; sideChains: SideChain[] } {
  if (!records.some((r) => r.kind === 'message' && !r.sidechain)) return { main: records, sideChains: [] };
  const main = records.filter((r) => !r.sidechain);
  const calls = new TaskCalls();
  for (const record of main) calls.add(record);
  const sideChains: SideChain[] = [];
  for (const [key, group] of groupSideChains(records).groups) {
    if (!group.some((r) => r.kind === 'message')) continue;
    sideChains.push({ thread: threadOf(sideChains.length + 2, key, group, calls), records: group });
  }
  return { main, sideChains };
}

/** The side-chain lines grouped by key, in order of first appearance, and the keys as the last line leaves them (a followed file goes on with them). */
export function groupSideChains(records: readonly CcRecord[]): { readonly groups: Map<string, CcRecord[]>; readonly keys: SideChainKeys } {
  const side = records.filter((r) => r.sidechain);
  const keys = SideChainKeys.whole(side);
  const groups = new Map<string, CcRecord[]>();
  for (const [i, record] of side.entries()) {
    const key = keys.of[i] as string;
    const group = groups.get(key);
    if (group) group.push(record);
    else groups.set(key, [record]);
  }
  return { groups, keys: keys.keys };
}

/**
 * The group key of a side-chain line: its `agentId`, else the uuid of the
 * root of its chain among side-chain lines (a uuid written twice stands for
 * its last line). A whole file's lines are all named before any is keyed
 * (`whole`); a followed file's lines are named and keyed as they come
 * (`key`), which gives the whole file's keys as long as no line comes with a
 * uuid an earlier line named as its parent (a parent written after its
 * child, a parent written again after a child): when one does, `exact` turns
 * false.
 */
export class SideChainKeys {
  private readonly byUuid = new Map<string, CcRecord>();
  private readonly parents = new Set<string>();
  private readonly memo = new Map<CcRecord, string>();
  exact = true;

  /** The keys of `side` (a whole file's side-chain lines, in order), and the keys to go on with (`exact` from there). */
  static whole(side: readonly CcRecord[]): { readonly keys: SideChainKeys; readonly of: string[] } {
    const keys = new SideChainKeys();
    for (const record of side) keys.name(record);
    const of = side.map((record) => keys.keyOf(record));
    keys.exact = true;
    return { keys, of };
  }

  /** The key of the next side-chain line of a followed file. */
  key(record: CcRecord): string {
    this.name(record);
    return this.keyOf(record);
  }

  private name(record: CcRecord): void {
    if (record.uuid) {
      // Only a line that named this uuid as its parent walked through it (or past where it now points).
      if (this.parents.has(record.uuid)) this.exact = false;
      this.byUuid.set(record.uuid, record);
    }
    if (typeof record.parentUuid === 'string') this.parents.add(record.parentUuid);
  }

  private keyOf(record: CcRecord): string {
    const agent = agentIdOf(record);
    if (agent) return `agent:${agent}`;
    const path: CcRecord[] = [];
    let at: CcRecord | undefined = record;
    while (at && !this.memo.has(at) && !path.includes(at) && path.length < MAX_CHAIN) {
      path.push(at);
      at = typeof at.parentUuid === 'string' ? this.byUuid.get(at.parentUuid) : undefined;
    }
    const key = (at && this.memo.get(at)) ?? `root:${path[path.length - 1]?.uuid ?? record.index}`;
    for (const r of path) this.memo.set(r, key);
    return key;
  }
}

/** The longest parent chain a key walks. */
const MAX_CHAIN = 10_000;

function agentIdOf(record: CcRecord): string | undefined {
  const id = propString(record.node, 'agentId');
  return id && id.length < 200 ? id : undefined;
}

interface TaskCall {
  readonly id: string;
  readonly prompt?: string;
  readonly type?: string;
}

/** The main conversation's sub-agent calls, by the agent their result names and by prompt (given its records in order). */
export class TaskCalls {
  private readonly byId = new Map<string, TaskCall>();
  readonly byAgent = new Map<string, TaskCall>();
  readonly byPrompt = new Map<string, TaskCall>();

  add(record: CcRecord): void {
    for (const block of asArray(record.content)?.items ?? []) {
      const type = propString(block, 'type');
      if (type === 'tool_use') {
        const input = prop(block, 'input');
        const call = { id: propString(block, 'id') ?? '', prompt: propString(input, 'prompt'), type: propString(input, 'subagent_type') };
        if (!call.id || !call.prompt) continue;
        this.byId.set(call.id, call);
        this.byPrompt.set(call.prompt, call);
      } else if (type === 'tool_result') {
        const agent = propString(prop(record.node, 'toolUseResult'), 'agentId');
        const call = this.byId.get(propString(block, 'tool_use_id') ?? '');
        if (agent && call) this.byAgent.set(agent, call);
      }
    }
  }
}

/** The thread of side-chain `id` (2, 3, … in order of first appearance), named by the call that started it. */
export function threadOf(id: number, key: string, group: readonly CcRecord[], calls: TaskCalls): ThreadInfo {
  const agent = key.startsWith('agent:') ? key.slice('agent:'.length) : undefined;
  const call = (agent && calls.byAgent.get(agent)) || calls.byPrompt.get(firstPrompt(group) ?? '\u0000');
  const what = [call?.type?.slice(0, 80), agent && `(${agent})`].filter(Boolean).join(' ');
  return { id, kind: 'side-chain', label: what ? `sub-agent ${what}` : `side-chain ${id - 1}`, ...(call && { parentCall: call.id }) };
}

/** The first user text of a side-chain: the prompt its Task call gave it. */
function firstPrompt(group: readonly CcRecord[]): string | undefined {
  const first = group.find((r) => r.kind === 'message' && r.role === 'user' && !r.meta);
  const content: JsonNode | undefined = first?.content;
  const text = asString(content) ?? asString(prop(asArray(content)?.items.find((b) => propString(b, 'type') === 'text'), 'text'));
  return text?.value;
}
