/**
 * Builds the session view's snapshot from an engine report (checked with
 * `keepRewrites`): each conversation in file order — the last window's
 * messages and the history rewrites dropped before it — with every rewrite
 * step at the place it happened, tool calls linked to their results, and
 * every finding at its message. A file with several conversations (sub-agent
 * side-chains, a request log's threads: `Report.threadWindows`) shows the main
 * one, each other nested under a header row where it started. Pure (no
 * `vscode`): unit-tested directly.
 */
import { CARRIED_FROM, pairStates, renderJson, toolPairs, type ContextWindow, type Finding, type JsonNode, type Message, type Report, type StepReport, type ThreadInfo, type ThreadSummary, type ThreadWindow } from '../engine';
import { placeFindings, placeUsage, rowFinding, rowsByFile, rowStart } from './place';
import { requestOrder } from './request-order';
import { subAgentPieces } from './sub-agent-rows';
import { problemsOf } from '../../shared/session-text';
import { SESSION_PROTOCOL_VERSION, type RowFinding, type RowTool, type SessionView, type TimelineRow } from '../../shared/session-protocol';

/** Characters of a message's text sent to the webview (the size badge says the rest). */
export const TEXT_CAP = 20_000;
/** Characters of a tool input / result sent to the webview. */
export const TOOL_CAP = 4_000;

interface Entry {
  readonly message: Message;
  readonly dropped: boolean;
  readonly at: number;
}

/** Where a message first is in the file; an empty range is no place (inside a `.eval` every range is {0, 0}). */
const keyOf = (message: Message): number | undefined => {
  const source = (message[CARRIED_FROM] ?? message).source;
  return source && source.end > source.start ? source.start : undefined;
};

/** A conversation's last window's messages and those its shrinking rewrites dropped, each once, in file order. */
export function timelineMessages(final: ContextWindow | undefined, steps: readonly StepReport[]): Entry[] {
  const seen = new Set<number>();
  const seenObjects = new Set<Message>();
  const entries: Entry[] = [];
  const add = (message: Message, dropped: boolean, fallback: number) => {
    const key = keyOf(message);
    const root = message[CARRIED_FROM] ?? message;
    if ((key !== undefined && seen.has(key)) || seenObjects.has(root)) return;
    seenObjects.add(root);
    if (key !== undefined) seen.add(key);
    entries.push({ message, dropped, at: key ?? fallback });
  };
  (final?.messages ?? []).forEach((m, i) => add(m, false, i));
  for (const step of steps) {
    const rewrite = step.rewrite;
    if (!rewrite || rewrite.after.messages.length >= rewrite.before.messages.length) continue;
    for (const m of rewrite.before.messages) add(m, true, step.range?.start ?? 0);
  }
  return entries.sort((a, b) => a.at - b.at);
}

const textOf = (node: JsonNode | undefined): string => (node?.type === 'string' ? node.value : renderJson(node));
const cap = (text: string, n: number) => (text.length > n ? text.slice(0, n) : text);


/** Whose a row is: a conversation other than the session's main one (`thread`), a sub-agent's own file (`file`). */
export interface RowTag {
  readonly thread?: number;
  readonly file?: number;
}

function messageRow(entry: Entry, tag: RowTag): TimelineRow {
  const m = entry.message;
  const text = m.blocks.map((b) => (b.kind === 'text' ? b.text : '')).filter((t) => t !== '').join('\n\n');
  const opaque = m.blocks.flatMap((b) => (b.kind === 'opaque' ? [b.type] : []));
  return {
    kind: 'message',
    ...tag,
    role: m.role,
    text: cap(text, TEXT_CAP),
    size: text.length,
    tools: [],
    opaque,
    elision: m.elision === true,
    dropped: entry.dropped,
    findings: [],
    ...(m.source && { range: m.source }),
  };
}

/** A report's step findings grouped by step, in report order (one pass, not one per step). */
export type StepFindings = ReadonlyMap<number, readonly RowFinding[]>;

export function findingsByStep(findings: readonly Finding[]): StepFindings {
  const byStep = new Map<number, RowFinding[]>();
  for (const f of findings) if (f.step !== undefined) (byStep.get(f.step) ?? byStep.set(f.step, []).get(f.step)!).push(rowFinding(f));
  return byStep;
}

function stepRow(s: StepReport, byStep: StepFindings, tag: RowTag): TimelineRow {
  return {
    kind: 'step',
    ...tag,
    index: s.index,
    decision: s.decision,
    source: s.source,
    rules: s.rules,
    findings: byStep.get(s.index) ?? [],
    ...(s.range && { range: s.range }),
  };
}


/** One conversation's rows (messages and steps in file order) and what linking its pairs needs. */
export interface Block {
  readonly rows: TimelineRow[];
  readonly entries: readonly Entry[];
  readonly final: ContextWindow | undefined;
}

export function blockOf(byStep: StepFindings, final: ContextWindow | undefined, steps: readonly StepReport[], tag: RowTag): Block {
  if (final?.live === false || steps.some((s) => s.source === 'request')) return requestBlock(byStep, final, steps, tag);
  const entries = timelineMessages(final, steps);
  const rows = mergeByStart(
    entries.map((e) => messageRow(e, tag)),
    steps.map((s) => stepRow(s, byStep, tag)),
  );
  return { rows, entries, final };
}

/** A request body or a log of requests: the last window in its own order, each step before the messages its request added (request-order.ts). */
function requestBlock(byStep: StepFindings, final: ContextWindow | undefined, steps: readonly StepReport[], tag: RowTag): Block {
  const entries: Entry[] = [];
  const rows = requestOrder(final, steps).map((item) => {
    if (item.kind === 'step') return stepRow(item.step, byStep, tag);
    const entry = { message: item.message, dropped: item.dropped, at: entries.length };
    entries.push(entry);
    return messageRow(entry, tag);
  });
  return { rows, entries, final };
}

/** The session view of a report. `textual`: the file can be shown as text (not a zip); `generation`: which snapshot of the host's it is. */
export function sessionView(report: Report, textual: boolean, generation = 0): SessionView {
  const threads = report.threadWindows && report.threadWindows.length > 1 ? report.threadWindows : undefined;
  const agents = report.subAgents ?? [];
  const rows = assembledRows(report, threads);
  const byFile = rowsByFile(rows);
  placeFindings(rows, report.findings.filter((f) => f.step === undefined), byFile.get(undefined) ?? []);
  placeUsage(rows, report.session?.cache ?? [], byFile.get(undefined) ?? []);
  agents.forEach((agent, file) => {
    placeFindings(rows, agent.report?.findings.filter((f) => f.step === undefined) ?? [], byFile.get(file) ?? []);
    placeUsage(rows, agent.report?.session?.cache ?? [], byFile.get(file) ?? []);
  });
  const tools = new Set<string>();
  for (const row of rows) if (row.kind === 'message') for (const t of row.tools) tools.add(t.name);
  const listed = [...(threads ?? (agents.length > 0 ? [{ thread: { id: 1, label: 'main' } }] : [])).map((t) => t.thread), ...agents.map((a) => a.thread)];
  return {
    protocol: SESSION_PROTOCOL_VERSION,
    file: report.file,
    summary: report.session ?? emptySummary(report),
    problems: problemsOf(report) + agents.reduce((n, a) => n + (a.report ? problemsOf(a.report) : 1), 0),
    rows,
    tools: [...tools].sort(),
    threads: listed.map((t) => ({ id: t.id, label: t.label })),
    textual,
    files: agents.map((a) => a.file),
    fileCache: agents.map((a) => a.report?.session?.cache ?? []),
    generation,
  };
}

/**
 * The main conversation's rows with every other one nested in them: a thread of
 * the file (its header and rows right after the row holding the call that
 * started it, or else after the last main row starting before it in the file),
 * and each sub-agent file (after the row of its call, see sub-agent-rows.ts).
 */
function assembledRows(report: Report, threads: readonly ThreadWindow[] | undefined): TimelineRow[] {
  const byStep = findingsByStep(report.findings);
  const stepsOf = (id: number) => report.steps.filter((s) => (s.thread ?? 1) === id);
  const [main, ...others] = threads ?? [];
  const mainBlock = blockOf(byStep, main ? main.window : report.finalWindow, main ? stepsOf(main.thread.id) : report.steps, {});
  const nested = new Nesting();
  const parentCalls = new Map<number, ParentCall>();
  for (const { thread, window } of others) {
    const block = blockOf(byStep, window, stepsOf(thread.id), { thread: thread.id });
    const counts = report.session?.threads?.find((t) => t.id === thread.id);
    const header = threadHeader(thread, block, counts, {});
    if (thread.parentCall) parentCalls.set(thread.id, { call: thread.parentCall });
    nested.add(mainBlock, anchorOf(mainBlock, thread.parentCall, rowStart(block.rows[0] ?? header)), { block, rows: [header, ...block.rows] });
  }
  subAgentPieces(report.subAgents ?? [], mainBlock, nested, parentCalls);
  return linked(nested.order(mainBlock), parentCalls);
}

/** A thread's header row: who it is and its counts. */
export function threadHeader(thread: ThreadInfo, block: Block, counts: Pick<ThreadSummary, 'turns' | 'pairs'> | undefined, tag: RowTag & Pick<Extract<TimelineRow, { kind: 'thread' }>, 'unread' | 'problems' | 'usage'>): TimelineRow {
  return {
    kind: 'thread',
    ...tag,
    thread: thread.id,
    threadKind: thread.kind,
    label: thread.label,
    messages: block.entries.length,
    turns: counts?.turns ?? 0,
    pairs: counts?.pairs ?? { paired: 0, pending: 0, orphaned: 0 },
    findings: [],
    ...(block.rows[0]?.range && { range: block.rows[0].range }),
  };
}

/** The call that started a thread, and the file holding it (a sub-agent's index; absent: the session). */
export interface ParentCall {
  readonly call: string;
  readonly file?: number;
}

/** Pieces nested after rows of their blocks (-1: before all), then placed in order. */
export class Nesting {
  private readonly after = new Map<Block, Map<number, Piece[]>>();

  add(block: Block, row: number, piece: Piece): void {
    const rows = this.after.get(block) ?? this.after.set(block, new Map()).get(block)!;
    rows.set(row, [...(rows.get(row) ?? []), piece]);
  }

  /** A block's rows with what is nested after each of them (and after those, recursively). */
  order(block: Block): Piece[] {
    const rows = this.after.get(block) ?? new Map<number, Piece[]>();
    const out: Piece[] = [...this.expand(rows.get(-1))];
    block.rows.forEach((row, i) => out.push({ block, rows: [row] }, ...this.expand(rows.get(i))));
    return out;
  }

  private expand(pieces: readonly Piece[] | undefined): Piece[] {
    return (pieces ?? []).flatMap((piece) => (this.after.has(piece.block) && piece.rows[0]?.kind === 'thread' ? [{ block: piece.block, rows: [piece.rows[0]] }, ...this.order(piece.block)] : [piece]));
  }
}

/** Rows of one block, placed together. */
export interface Piece {
  readonly block: Block;
  readonly rows: readonly TimelineRow[];
}

/** The main row a nested thread follows: the row of its parent call, else the last row starting before it (-1: before all). */
export function anchorOf(main: Block, parentCall: string | undefined, start: number): number {
  const source = parentCall ? main.entries.find((e) => e.message.blocks.some((b) => b.kind === 'tool_call' && b.id === parentCall))?.message.source : undefined;
  const row = source ? main.rows.findIndex((r) => r.kind === 'message' && r.range === source) : -1;
  if (row >= 0) return row;
  let at = -1;
  main.rows.forEach((r, i) => {
    if (rowStart(r) >= 0 && rowStart(r) <= start) at = i;
  });
  return at;
}

/** The rows of the pieces in order, each block's pairs linked within it, each thread linked to the call that started it. */
function linked(order: readonly Piece[], parentCalls: ReadonlyMap<number, ParentCall>): TimelineRow[] {
  const rows: TimelineRow[] = [];
  const messageRows = new Map<Block, number[]>();
  for (const piece of order) {
    const list = messageRows.get(piece.block) ?? [];
    messageRows.set(piece.block, list);
    for (const row of piece.rows) {
      if (row.kind === 'message') list.push(rows.length);
      rows.push(row);
    }
  }
  for (const [block, list] of messageRows) linkTools(rows, block, list);
  linkThreads(rows, parentCalls);
  return rows;
}

/** A thread's header links to the main row of the call that started it, and that call to the header. */
function linkThreads(rows: TimelineRow[], parentCalls: ReadonlyMap<number, ParentCall>): void {
  rows.forEach((header, at) => {
    const parent = header.kind === 'thread' ? parentCalls.get(header.thread) : undefined;
    if (header.kind !== 'thread' || parent === undefined) return;
    const id = parent.call;
    const ownRow = (r: TimelineRow) => r.file === parent.file && (parent.file !== undefined || r.thread === undefined);
    const callRow = rows.findIndex((r) => r.kind === 'message' && ownRow(r) && r.tools.some((t) => t.role === 'call' && t.id === id));
    const caller = rows[callRow];
    if (caller?.kind !== 'message') return;
    rows[at] = { ...header, parentRow: callRow };
    rows[callRow] = { ...caller, tools: caller.tools.map((t) => (t.role === 'call' && t.id === id ? { ...t, threadRow: at } : t)) };
  });
}

function emptySummary(report: Report): NonNullable<Report['session']> {
  return { format: report.format, models: [], messages: 0, turns: 0, pairs: { paired: 0, pending: 0, orphaned: 0 }, compactions: 0, decisions: { patch: 0, defer: 0, abort: 0 }, cache: [] };
}

/** Messages in order, each step before the first message that starts after it. */
function mergeByStart(messages: TimelineRow[], steps: TimelineRow[]): TimelineRow[] {
  const out: TimelineRow[] = [];
  let s = 0;
  for (const row of messages) {
    while (s < steps.length && rowStart(steps[s]!) <= rowStart(row) && rowStart(row) >= 0) out.push(steps[s++]!);
    out.push(row);
  }
  while (s < steps.length) out.push(steps[s++]!);
  return out;
}

/** Fills the message rows of one conversation with its tools, pair states and partner rows (`rowOfMessage`: its entries' rows). */
function linkTools(rows: TimelineRow[], block: Block, rowOfMessage: readonly number[]): void {
  const { entries, final } = block;
  const window: ContextWindow = { format: final?.format ?? 'native', tools: [], messages: entries.map((e) => e.message), boundary: entries.length, live: final?.live ?? false };
  const pairs = toolPairs(window);
  const states = pairStates(window, pairs);
  const tools = new Map<number, RowTool[]>();
  const push = (row: number, tool: RowTool) => (tools.get(row) ?? tools.set(row, []).get(row)!).push(tool);
  for (const [key, pair] of pairs) {
    const state = states.get(key) ?? 'paired';
    const callRow = pair.call ? rowOfMessage[pair.call.message] : undefined;
    const resultRow = pair.results[0] ? rowOfMessage[pair.results[0].message] : undefined;
    if (pair.call && callRow !== undefined) {
      const input = textOf(pair.call.value.input);
      push(callRow, { role: 'call', id: pair.id, name: pair.call.value.name, text: cap(input, TOOL_CAP), size: input.length, state, ...(resultRow !== undefined && { partner: resultRow }) });
    }
    for (const result of pair.results) {
      const row = rowOfMessage[result.message];
      if (row === undefined) continue;
      const content = textOf(result.value.content);
      const name = pair.call?.value.name ?? result.value.name ?? '';
      push(row, { role: 'result', id: pair.id, name, text: cap(content, TOOL_CAP), size: content.length, state, ...(callRow !== undefined && { partner: callRow }), ...(result.value.isError && { isError: true }) });
    }
  }
  for (const [i, list] of tools) {
    const row = rows[i];
    if (row?.kind === 'message') rows[i] = { ...row, tools: list };
  }
}
