/**
 * A Claude Code session's sub-agent files (core/sub-agents.ts) in the session
 * view: each sub-agent's conversation, checked on its own (its steps and
 * findings are in its own file: its rows carry that file's index), under a
 * header nested after the row of the call that started it, in the session or in
 * another sub-agent's file. A sub-agent whose call is not found follows the
 * rows of the file that should hold it; one not read is its header alone, saying why.
 */
import type { SubAgent } from '../engine';
import { problemsOf } from '../../shared/session-text';
import { anchorOf, blockOf, findingsByStep, threadHeader, type Block, type Nesting, type ParentCall } from './view';

export function subAgentPieces(agents: readonly SubAgent[], main: Block, nested: Nesting, parentCalls: Map<number, ParentCall>): void {
  const blocks = agents.map((agent, file) => {
    const report = agent.report;
    const block = blockOf(findingsByStep(report?.findings ?? []), report?.finalWindow, report?.steps ?? [], { thread: agent.thread.id, file });
    const header = threadHeader(agent.thread, block, report?.session, { file, ...(agent.unread !== undefined && { unread: agent.unread }), ...(report && { problems: problemsOf(report) }), ...(report?.session?.usage && { usage: report.session.usage }) });
    return { block, header };
  });
  const parentOf = parentFiles(agents);
  agents.forEach((agent, file) => {
    const { block, header } = blocks[file]!;
    const parentFile = parentOf[file];
    const parent = parentFile === undefined ? main : blocks[parentFile]!.block;
    const call = agent.thread.parentCall;
    if (call !== undefined) parentCalls.set(agent.thread.id, { call, ...(parentFile !== undefined && { file: parentFile }) });
    const at = call === undefined ? -1 : anchorOf(parent, call, -1);
    nested.add(parent, at >= 0 ? at : parent.rows.length - 1, { block, rows: [header, ...block.rows] });
  });
}

/** The file index of each sub-agent's parent sub-agent (undefined: the session), with any cycle cut at the session. */
function parentFiles(agents: readonly SubAgent[]): (number | undefined)[] {
  const index = new Map(agents.map((a, i) => [a.agentId, i]));
  const direct = agents.map((a) => (a.parentAgent === undefined ? undefined : index.get(a.parentAgent)));
  return direct.map((parent, file) => {
    const seen = new Set([file]);
    for (let at = parent; at !== undefined; at = direct[at]) {
      if (seen.has(at)) return undefined;
      seen.add(at);
    }
    return parent;
  });
}
