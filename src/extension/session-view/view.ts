/**
 * Builds the session view's snapshot from an engine report (checked with
 * `keepRewrites`): the conversation in file order — the last window's
 * messages and the history rewrites dropped before it — with every rewrite
 * step at the place it happened, tool calls linked to their results, and
 * every finding at its message. Pure (no `vscode`): unit-tested directly.
 */
import { CARRIED_FROM, pairStates, renderJson, toolPairs, type ContextWindow, type Finding, type JsonNode, type Message, type Report } from '../engine';
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

const keyOf = (message: Message): number | undefined => (message[CARRIED_FROM] ?? message).source?.start;

/** The last window's messages and those shrinking rewrites dropped, each once, in file order. */
export function timelineMessages(report: Report): Entry[] {
  const final = report.finalWindow?.messages ?? [];
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
  final.forEach((m, i) => add(m, false, i));
  for (const step of report.steps) {
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

function messageRow(entry: Entry, findings: RowFinding[]): TimelineRow {
  const m = entry.message;
  const text = m.blocks.map((b) => (b.kind === 'text' ? b.text : '')).filter((t) => t !== '').join('\n\n');
  const opaque = m.blocks.flatMap((b) => (b.kind === 'opaque' ? [b.type] : []));
  return {
    kind: 'message',
    role: m.role,
    text: cap(text, TEXT_CAP),
    size: text.length,
    tools: [],
    opaque,
    elision: m.elision === true,
    dropped: entry.dropped,
    findings,
    ...(m.source && { range: m.source }),
  };
}

/** Where each row starts in the file, for placing steps and findings. */
function rowStart(row: TimelineRow): number {
  return row.range?.start ?? -1;
}

/** The session view of a report. `textual`: the file can be shown as text (not a zip). */
export function sessionView(report: Report, textual: boolean): SessionView {
  const entries = timelineMessages(report);
  const rows: TimelineRow[] = entries.map((e) => messageRow(e, []));
  const steps: TimelineRow[] = report.steps.map((s) => ({
    kind: 'step',
    index: s.index,
    decision: s.decision,
    source: s.source,
    rules: s.rules,
    findings: report.findings.filter((f) => f.step === s.index).map(rowFinding),
    ...(s.range && { range: s.range }),
  }));
  const ordered = mergeByStart(rows, steps);
  linkTools(ordered, entries, report.finalWindow);
  placeFindings(ordered, report.findings.filter((f) => f.step === undefined));
  const tools = new Set<string>();
  for (const row of ordered) if (row.kind === 'message') for (const t of row.tools) tools.add(t.name);
  return {
    protocol: SESSION_PROTOCOL_VERSION,
    file: report.file,
    summary: report.session ?? emptySummary(report),
    problems: report.findings.filter((f) => f.severity !== 'info').length,
    rows: ordered,
    tools: [...tools].sort(),
    textual,
  };
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

/** Fills each message row's tools, with pair states and partner rows over the whole timeline. */
function linkTools(rows: TimelineRow[], entries: readonly Entry[], final: ContextWindow | undefined): void {
  const window: ContextWindow = { format: final?.format ?? 'native', tools: [], messages: entries.map((e) => e.message), boundary: entries.length, live: final?.live ?? false };
  const pairs = toolPairs(window);
  const states = pairStates(window, pairs);
  const rowOfMessage: number[] = [];
  rows.forEach((row, i) => row.kind === 'message' && rowOfMessage.push(i));
  const tools: RowTool[][] = rows.map(() => []);
  for (const [key, pair] of pairs) {
    const state = states.get(key) ?? 'paired';
    const callRow = pair.call ? rowOfMessage[pair.call.message] : undefined;
    const resultRow = pair.results[0] ? rowOfMessage[pair.results[0].message] : undefined;
    if (pair.call && callRow !== undefined) {
      const input = textOf(pair.call.value.input);
      tools[callRow]!.push({ role: 'call', id: pair.id, name: pair.call.value.name, text: cap(input, TOOL_CAP), size: input.length, state, ...(resultRow !== undefined && { partner: resultRow }) });
    }
    for (const result of pair.results) {
      const row = rowOfMessage[result.message];
      if (row === undefined) continue;
      const content = textOf(result.value.content);
      const name = pair.call?.value.name ?? result.value.name ?? '';
      tools[row]!.push({ role: 'result', id: pair.id, name, text: cap(content, TOOL_CAP), size: content.length, state, ...(callRow !== undefined && { partner: callRow }), ...(result.value.isError && { isError: true }) });
    }
  }
  rows.forEach((row, i) => {
    if (row.kind === 'message' && tools[i]!.length > 0) rows[i] = { ...row, tools: tools[i]! };
  });
}

/** Each window-level finding at the last row starting at or before it. */
function placeFindings(rows: TimelineRow[], findings: readonly Finding[]): void {
  const starts = rows.map(rowStart);
  const extra: RowFinding[][] = rows.map(() => []);
  for (const f of findings) {
    let at = -1;
    for (let i = 0; i < starts.length; i++) if (starts[i]! >= 0 && starts[i]! <= f.range.start) at = i;
    extra[Math.max(0, at)]?.push(rowFinding(f));
  }
  rows.forEach((row, i) => {
    if (extra[i]!.length > 0) rows[i] = { ...row, findings: [...row.findings, ...extra[i]!] };
  });
}
