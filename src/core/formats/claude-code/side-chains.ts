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
  const groups = new Map<string, CcRecord[]>();
  const keyOf = rootKeys(records);
  for (const record of records) {
    if (!record.sidechain) continue;
    const key = keyOf(record);
    const group = groups.get(key);
    if (group) group.push(record);
    else groups.set(key, [record]);
  }
  const calls = new TaskCalls();
  for (const record of main) calls.add(record);
  const sideChains: SideChain[] = [];
  for (const [key, group] of groups) {
    if (!group.some((r) => r.kind === 'message')) continue;
    sideChains.push({ thread: threadOf(sideChains.length + 2, key, group, calls), records: group });
  }
  return { main, sideChains };
}

/** The group key of a side-chain line: its `agentId`, else the uuid of the root of its chain among side-chain lines. */
function rootKeys(records: readonly CcRecord[]): (record: CcRecord) => string {
  const byUuid = new Map<string, CcRecord>();
  for (const r of records) if (r.sidechain && r.uuid) byUuid.set(r.uuid, r);
  const memo = new Map<CcRecord, string>();
  return (record) => {
    const agent = agentIdOf(record);
    if (agent) return `agent:${agent}`;
    const path: CcRecord[] = [];
    let at: CcRecord | undefined = record;
    while (at && !memo.has(at) && !path.includes(at) && path.length < MAX_CHAIN) {
      path.push(at);
      at = typeof at.parentUuid === 'string' ? byUuid.get(at.parentUuid) : undefined;
    }
    const key = (at && memo.get(at)) ?? `root:${path[path.length - 1]?.uuid ?? record.index}`;
    for (const r of path) memo.set(r, key);
    return key;
  };
}

/**
 * The group key of each side-chain line as the lines come (a followed file),
 * the key `rootKeys` gives over the whole file as long as every line names a
 * parent written before it. `exact` turns false when one does not (a parent
 * written later, a uuid written twice, a chain deeper than `rootKeys` walks).
 */
export class SideChainKeys {
  private readonly roots = new Map<string, { readonly root: string; readonly depth: number }>();
  private readonly dangling = new Set<string>();
  exact = true;

  key(record: CcRecord): string {
    if (record.uuid && (this.dangling.has(record.uuid) || this.roots.has(record.uuid))) this.exact = false;
    const parent = typeof record.parentUuid === 'string' ? record.parentUuid : undefined;
    const above = parent === undefined ? undefined : this.roots.get(parent);
    if (parent !== undefined && !above) this.dangling.add(parent);
    const own = { root: above?.root ?? `root:${record.uuid ?? record.index}`, depth: (above?.depth ?? 0) + 1 };
    if (own.depth >= MAX_CHAIN) this.exact = false;
    if (record.uuid) this.roots.set(record.uuid, own);
    const agent = agentIdOf(record);
    return agent ? `agent:${agent}` : own.root;
  }
}

/** The longest parent chain `rootKeys` walks. */
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
