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
import { CARRIED_FROM, pairStates, renderJson, toolPairs, type ContextWindow, type Finding, type JsonNode, type Message, type Report, type StepReport, type ThreadWindow } from '../engine';
import { requestOrder } from './request-order';
import { partitionPoint } from '../../shared/search';
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

function rowFinding(f: Finding): RowFinding {
  return { rule: f.rule, severity: f.severity, message: f.message, range: f.range };
}

function messageRow(entry: Entry, thread: number | undefined): TimelineRow {
  const m = entry.message;
  const text = m.blocks.map((b) => (b.kind === 'text' ? b.text : '')).filter((t) => t !== '').join('\n\n');
  const opaque = m.blocks.flatMap((b) => (b.kind === 'opaque' ? [b.type] : []));
  return {
    kind: 'message',
    ...(thread !== undefined && { thread }),
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
type StepFindings = ReadonlyMap<number, readonly RowFinding[]>;

function findingsByStep(findings: readonly Finding[]): StepFindings {
  const byStep = new Map<number, RowFinding[]>();
  for (const f of findings) if (f.step !== undefined) (byStep.get(f.step) ?? byStep.set(f.step, []).get(f.step)!).push(rowFinding(f));
  return byStep;
}

function stepRow(s: StepReport, byStep: StepFindings, thread: number | undefined): TimelineRow {
  return {
    kind: 'step',
    ...(thread !== undefined && { thread }),
    index: s.index,
    decision: s.decision,
    source: s.source,
    rules: s.rules,
    findings: byStep.get(s.index) ?? [],
    ...(s.range && { range: s.range }),
  };
}

/** Where each row starts in the file, for placing steps and findings. */
function rowStart(row: TimelineRow): number {
  return row.range?.start ?? -1;
}

/** One conversation's rows (messages and steps in file order) and what linking its pairs needs. */
interface Block {
  readonly rows: TimelineRow[];
  readonly entries: readonly Entry[];
  readonly final: ContextWindow | undefined;
}

function blockOf(byStep: StepFindings, final: ContextWindow | undefined, steps: readonly StepReport[], thread: number | undefined): Block {
  if (final?.live === false || steps.some((s) => s.source === 'request')) return requestBlock(byStep, final, steps, thread);
  const entries = timelineMessages(final, steps);
  const rows = mergeByStart(
    entries.map((e) => messageRow(e, thread)),
    steps.map((s) => stepRow(s, byStep, thread)),
  );
  return { rows, entries, final };
}

/** A request body or a log of requests: the last window in its own order, each step before the messages its request added (request-order.ts). */
function requestBlock(byStep: StepFindings, final: ContextWindow | undefined, steps: readonly StepReport[], thread: number | undefined): Block {
  const entries: Entry[] = [];
  const rows = requestOrder(final, steps).map((item) => {
    if (item.kind === 'step') return stepRow(item.step, byStep, thread);
    const entry = { message: item.message, dropped: item.dropped, at: entries.length };
    entries.push(entry);
    return messageRow(entry, thread);
  });
  return { rows, entries, final };
}

/** The session view of a report. `textual`: the file can be shown as text (not a zip). */
export function sessionView(report: Report, textual: boolean): SessionView {
  const threads = report.threadWindows && report.threadWindows.length > 1 ? report.threadWindows : undefined;
  const byStep = findingsByStep(report.findings);
  const single = () => {
    const block = blockOf(byStep, report.finalWindow, report.steps, undefined);
    return linked([{ block, rows: block.rows }]);
  };
  const rows = threads ? threadedRows(report, byStep, threads) : single();
  placeFindings(rows, report.findings.filter((f) => f.step === undefined));
  placeUsage(rows, report.session?.cache ?? []);
  const tools = new Set<string>();
  for (const row of rows) if (row.kind === 'message') for (const t of row.tools) tools.add(t.name);
  return {
    protocol: SESSION_PROTOCOL_VERSION,
    file: report.file,
    summary: report.session ?? emptySummary(report),
    problems: report.findings.filter((f) => f.severity !== 'info').length,
    rows,
    tools: [...tools].sort(),
    threads: threads ? threads.map((t) => ({ id: t.thread.id, label: t.thread.label })) : [],
    textual,
  };
}

/**
 * The main conversation's rows with every other thread nested in them: its
 * header and rows right after the row holding the call that started it, or
 * else after the last main row starting before it in the file.
 */
function threadedRows(report: Report, byStep: StepFindings, threads: readonly ThreadWindow[]): TimelineRow[] {
  const stepsOf = (id: number) => report.steps.filter((s) => (s.thread ?? 1) === id);
  const [main, ...others] = threads;
  const mainBlock = blockOf(byStep, main!.window, stepsOf(main!.thread.id), undefined);
  const nested = new Map<number, Piece[]>();
  const parentCalls = new Map<number, string>();
  for (const { thread, window } of others) {
    const block = blockOf(byStep, window, stepsOf(thread.id), thread.id);
    const counts = report.session?.threads?.find((t) => t.id === thread.id);
    const header: TimelineRow = {
      kind: 'thread',
      thread: thread.id,
      threadKind: thread.kind,
      label: thread.label,
      messages: block.entries.length,
      turns: counts?.turns ?? 0,
      pairs: counts?.pairs ?? { paired: 0, pending: 0, orphaned: 0 },
      findings: [],
      ...(block.rows[0]?.range && { range: block.rows[0].range }),
    };
    if (thread.parentCall) parentCalls.set(thread.id, thread.parentCall);
    const at = anchorOf(mainBlock, thread.parentCall, rowStart(block.rows[0] ?? header));
    nested.set(at, [...(nested.get(at) ?? []), { block, rows: [header, ...block.rows] }]);
  }
  const order: Piece[] = [...(nested.get(-1) ?? [])];
  mainBlock.rows.forEach((row, i) => order.push({ block: mainBlock, rows: [row] }, ...(nested.get(i) ?? [])));
  return linked(order, parentCalls);
}

/** Rows of one block, placed together. */
interface Piece {
  readonly block: Block;
  readonly rows: readonly TimelineRow[];
}

/** The main row a nested thread follows: the row of its parent call, else the last row starting before it (-1: before all). */
function anchorOf(main: Block, parentCall: string | undefined, start: number): number {
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
function linked(order: readonly Piece[], parentCalls: ReadonlyMap<number, string> = new Map()): TimelineRow[] {
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
function linkThreads(rows: TimelineRow[], parentCalls: ReadonlyMap<number, string>): void {
  rows.forEach((header, at) => {
    const id = header.kind === 'thread' ? parentCalls.get(header.thread) : undefined;
    if (header.kind !== 'thread' || id === undefined) return;
    const callRow = rows.findIndex((r) => r.kind === 'message' && r.thread === undefined && r.tools.some((t) => t.role === 'call' && t.id === id));
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

/**
 * Each request's usage at the row of the record that reports it: the step of
 * that request (a request log's line, a model event, a generation), else the
 * message written on that line (a Claude Code or Gemini CLI answer).
 */
function placeUsage(rows: TimelineRow[], cache: NonNullable<Report['session']>['cache']): void {
  if (cache.length === 0) return;
  const byStart = (kind: TimelineRow['kind']) =>
    rows.flatMap((r, i) => (r.kind === kind && r.range && r.range.end > r.range.start ? [{ i, start: r.range.start, end: r.range.end }] : [])).sort((x, y) => x.start - y.start);
  const steps = byStart('step');
  const messages = byStart('message');
  const taken = new Set<number>();
  const find = (list: readonly { i: number; start: number; end: number }[], offset: number) => {
    const lo = partitionPoint(list.length, (k) => list[k]!.start <= offset);
    // The rows starting at or before the offset, nearest first (a few: ranges barely nest).
    for (let k = lo - 1; k >= 0 && k >= lo - 8; k--) if (offset < list[k]!.end && !taken.has(list[k]!.i)) return list[k]!.i;
    return -1;
  };
  for (const c of cache) {
    const step = find(steps, c.offset);
    const at = step >= 0 ? step : find(messages, c.offset);
    const row = rows[at];
    if (!row || row.kind === 'thread') continue;
    taken.add(at);
    rows[at] = { ...row, cache: c.index };
  }
}

/** Each window-level finding at the row starting closest before it (the last such row on a tie). */
function placeFindings(rows: TimelineRow[], findings: readonly Finding[]): void {
  const starts = rows.map(rowStart);
  const extra: RowFinding[][] = rows.map(() => []);
  for (const f of findings) {
    let at = -1;
    for (let i = 0; i < starts.length; i++) if (starts[i]! >= 0 && starts[i]! <= f.range.start && (at < 0 || starts[i]! >= starts[at]!)) at = i;
    extra[Math.max(0, at)]?.push(rowFinding(f));
  }
  rows.forEach((row, i) => {
    if (extra[i]!.length > 0) rows[i] = { ...row, findings: [...row.findings, ...extra[i]!] };
  });
}
