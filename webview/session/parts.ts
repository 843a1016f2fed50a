/**
 * The session view's pieces: the header, one timeline row, and the selected
 * row in full (text with its real line breaks, each tool call's input folded
 * behind its size, its result beside it, the pair linked both ways).
 */
import { cacheOf, type FileTag, type RowFinding, type RowTool, type SessionView, type SessionWebviewMessage, type TimelineRow } from '../../src/shared/session-protocol';
import { isClean, pairsText } from '../../src/shared/session-text';
import { el } from '../dom';
import { isProblem, sizeText } from './navigate';

const number = (n: number) => n.toLocaleString('en-US');
const plural = (n: number, word: string) => `${number(n)} ${word}${n === 1 ? '' : 's'}`;

function chip(text: string, className: string, title?: string): HTMLElement {
  return el('span', { className: `sv-chip ${className}`, text, ...(title ? { title } : {}) });
}

export function headerOf(view: SessionView): HTMLElement[] {
  const s = view.summary;
  const d = s.decisions;
  const facts = [
    s.format,
    ...(s.models.length > 0 ? [s.models.join(', ')] : []),
    ...(s.firstTime && s.lastTime ? [`${s.firstTime.replace('T', ' ').slice(0, 19)} – ${s.lastTime.replace('T', ' ').slice(0, 19)}`] : []),
    plural(s.turns, 'turn'),
    plural(s.messages, 'message'),
    pairsText(s.pairs),
    plural(s.compactions, 'compaction'),
    `steps: ${d.patch} patch · ${d.defer} defer · ${d.abort} abort`,
  ];
  const title = el('h1', { text: view.file.split(/[\\/]/).pop() ?? view.file, title: view.file });
  const verdict = isClean(s, view.problems) ? chip('clean ✓', 'sv-pass') : chip(plural(view.problems, 'problem'), 'sv-error');
  const out: HTMLElement[] = [el('div', { className: 'sv-title' }, title, verdict), el('div', { className: 'sv-facts', text: facts.join(' · ') }), ...subAgentFacts(view)];
  if (s.usage) {
    const u = s.usage;
    const drops = s.cache.filter((c) => c.agreement === 'drop');
    const writes = u.cacheWrite === undefined ? '' : ` · ${number(u.cacheWrite)} written`;
    out.push(el('div', { className: 'sv-facts', text: `log: ${plural(u.requests, 'request')} · ${number(u.promptTokens)} input tokens · ${number(u.cacheRead)} cache read${writes} · ${number(u.outputTokens)} output · ${plural(drops.length, 'cache drop')}` }));
    if (drops.length > 0) {
      const list = el('ul', { className: 'sv-drops' }, ...drops.map((c) => el('li', { text: `request ${c.index}: read ${number(c.cacheRead)} of ${number(c.expectedRead ?? 0)} left cached · ${c.reason ?? ''}: ${c.detail ?? ''}` })));
      out.push(el('details', {}, el('summary', { text: 'Cache drops the log reports, and why' }), list));
    }
    const shown = s.cache.slice(0, CACHE_ROWS);
    const more = s.cache.length > CACHE_ROWS ? [el('li', { text: `… ${number(s.cache.length - CACHE_ROWS)} more requests (the CLI's --json lists them all)` })] : [];
    out.push(el('details', { className: 'sv-cache-rows' }, el('summary', { text: 'Cache per request: what the log says beside what we predict' }), el('ul', { className: 'sv-drops' }, ...shown.map((c) => el('li', { text: cacheText(c) })), ...more)));
  }
  return out;
}

/** `sub-agent files: 3 · 1 with problems · 1 not read` (Claude Code 2.x writes each sub-agent to a file of its own). */
function subAgentFacts(view: SessionView): HTMLElement[] {
  if (view.files.length === 0) return [];
  const headers = view.rows.filter((r): r is Extract<TimelineRow, { kind: 'thread' }> => r.kind === 'thread' && r.file !== undefined);
  const withProblems = headers.filter((r) => (r.problems ?? 0) > 0).length;
  const unread = headers.filter((r) => r.unread !== undefined).length;
  return [el('div', { className: 'sv-facts', text: `sub-agent files: ${number(view.files.length)} · ${number(withProblems)} with problems · ${number(unread)} not read` })];
}

/** Requests listed in the header (the rest are counted). */
const CACHE_ROWS = 500;

/** One request's cache figures beside our prediction: `request 3 (claude-opus-4-6): 25,798 read of 25,798 left cached · 1,204 written · predicted: prefix intact · agrees`. */
export function cacheText(c: CacheRow): string {
  const model = c.model ? ` (${c.model})` : '';
  const expected = c.expectedRead === undefined ? ' (first request of its thread)' : ` of ${number(c.expectedRead)} left cached`;
  const written = c.cacheWrite === undefined ? '' : ` · ${number(c.cacheWrite)} written`;
  const p = c.predicted;
  const predicted = p.intact ? 'prefix intact' : `break at step ${p.step}${p.keptTokens !== undefined && p.consumedTokens !== undefined ? ` (${number(p.keptTokens)} of ${number(p.consumedTokens)} consumed tokens kept)` : ''}`;
  const verdict = c.agreement === 'agrees' ? 'agrees' : `${c.agreement}: ${c.reason ?? ''}${c.detail ? ` (${c.detail})` : ''}`;
  return `request ${c.index}${model}: ${number(c.promptTokens)} input · ${number(c.cacheRead)} read${expected}${written} · predicted: ${predicted} · ${verdict}`;
}

type CacheRow = SessionView['summary']['cache'][number];

/** The usage of the request this row reports, as a chip (its full text on hover). */
function cacheChip(c: CacheRow | undefined): HTMLElement[] {
  if (!c) return [];
  const written = c.cacheWrite ? ` · ${number(c.cacheWrite)} written` : '';
  return [chip(`cache ${number(c.cacheRead)} read${written}`, `sv-cache${c.agreement === 'drop' ? ' sv-warning' : ''}`, cacheText(c))];
}

const ROLE_LABEL = { user: 'user', assistant: 'assistant', tool: 'tool', system: 'system' } as const;

function findingChips(findings: readonly RowFinding[]): HTMLElement[] {
  return findings.map((f) => chip(f.rule, `sv-${f.severity}`, f.message));
}

function toolChip(tool: RowTool, onPartner: (row: number) => void): HTMLElement {
  const state = tool.state === 'paired' ? '' : ` · ${tool.state}`;
  const label = `${tool.role === 'call' ? '→' : '←'} ${tool.name || tool.id} · ${sizeText(tool.size)}${state}${tool.threadRow === undefined ? '' : ' · sub-agent ⤵'}`;
  const c = el('button', { className: `sv-chip sv-tool sv-${tool.state}${tool.isError ? ' sv-error' : ''}`, text: label, title: `${tool.role} ${tool.id}`, attrs: { 'data-call': tool.id, 'data-role': tool.role } });
  c.addEventListener('click', (e) => {
    e.stopPropagation();
    if (tool.partner !== undefined) onPartner(tool.partner);
  });
  return c;
}

/** `sub-agent Explore · 4 messages · 2 pairs ✓` */
function threadText(row: Extract<TimelineRow, { kind: 'thread' }>): string {
  if (row.unread !== undefined) return `${row.label} · ${row.unread}`;
  const problems = row.problems === undefined ? '' : ` · ${row.problems === 0 ? 'no problems' : plural(row.problems, 'problem')}`;
  const u = row.usage;
  const usage = u ? ` · log: ${plural(u.requests, 'request')}, ${number(u.cacheRead)} cache read${u.cacheWrite === undefined ? '' : `, ${number(u.cacheWrite)} written`}` : '';
  return `${row.label} · ${plural(row.messages, 'message')} · ${pairsText(row.pairs)}${problems}${usage}`;
}

/** One row of the timeline (fixed height: the text is a preview; the detail pane shows it all). Rows of a nested thread are indented. */
export function rowElement(row: TimelineRow, index: number, selected: boolean, onPartner: (row: number) => void, cache?: CacheRow): HTMLElement {
  const attrs = { role: 'option', 'aria-selected': String(selected), 'data-index': String(index), 'data-kind': row.kind, 'data-thread': String(row.thread ?? 1) };
  const nested = row.thread !== undefined ? ' sv-nested' : '';
  if (row.kind === 'thread') {
    const from = row.parentRow === undefined ? [] : [el('span', { className: 'sv-muted', text: `started by the call at row ${row.parentRow + 1}` })];
    const problem = row.unread !== undefined || (row.problems ?? 0) > 0 ? ' sv-problem' : '';
    return el('div', { className: `sv-row sv-thread${nested}${problem}${selected ? ' sv-selected' : ''}`, attrs }, el('div', { className: 'sv-line' }, chip(row.threadKind === 'side-chain' ? 'sub-agent' : 'thread', 'sv-thread-chip'), el('span', { text: threadText(row) }), ...from));
  }
  if (row.kind === 'step') {
    return el(
      'div',
      { className: `sv-row sv-step sv-${row.decision}${nested}${selected ? ' sv-selected' : ''}`, attrs },
      chip(row.decision.toUpperCase(), `sv-decision sv-${row.decision}`),
      el('span', { className: 'sv-preview', text: `Step ${row.index} · ${row.source}${row.rules.length > 0 ? ` · ${row.rules.join(', ')}` : ''}` }),
      ...cacheChip(cache),
      ...findingChips(row.findings.slice(0, 3)),
    );
  }
  const marker = row.elision ? chip('compaction', 'sv-elision') : undefined;
  const problem = isProblem(row) ? ' sv-problem' : '';
  const head = el('div', { className: 'sv-line' }, chip(ROLE_LABEL[row.role], `sv-role sv-${row.role}`), ...(marker ? [marker] : []), ...(row.dropped ? [chip('dropped by a rewrite', 'sv-muted')] : []), ...row.tools.slice(0, 6).map((t) => toolChip(t, onPartner)), ...cacheChip(cache), ...findingChips(row.findings.slice(0, 3)));
  const preview = row.text || row.tools.map((t) => t.text.slice(0, 200)).join(' · ') || row.opaque.map((t) => `[${t}]`).join(' ');
  return el('div', { className: `sv-row sv-message${problem}${nested}${selected ? ' sv-selected' : ''}`, attrs }, head, el('div', { className: 'sv-preview', text: preview.slice(0, 400) }));
}

interface DetailActions {
  select(row: number): void;
  post(message: SessionWebviewMessage): void;
  /** Sets the one-thread filter. */
  onlyThread(thread: number): void;
}

/** What a row's messages to the host name as its file: a sub-agent file's index in this snapshot, or nothing (the session). */
export function fileTag(view: SessionView, row: TimelineRow): FileTag {
  return row.file === undefined ? {} : { file: row.file, generation: view.generation };
}

function findingList(findings: readonly RowFinding[], view: SessionView, row: TimelineRow, actions: DetailActions): HTMLElement[] {
  return findings.map((f) => {
    const item = el('button', { className: `sv-finding sv-${f.severity}`, text: `${f.severity} · ${f.rule}: ${f.message}`, title: view.textual ? 'Show the exact bytes in the text editor' : '' });
    item.addEventListener('click', () => view.textual && actions.post({ type: 'reveal', range: f.range, ...fileTag(view, row) }));
    return item;
  });
}

function partnerOf(view: SessionView, tool: RowTool): RowTool | undefined {
  const row = tool.partner === undefined ? undefined : view.rows[tool.partner];
  return row?.kind === 'message' ? row.tools.find((t) => t.id === tool.id && t.role !== tool.role) : undefined;
}

function toolDetail(view: SessionView, tool: RowTool, actions: DetailActions): HTMLElement {
  const partner = partnerOf(view, tool);
  const link = el('button', { className: 'sv-link', text: tool.partner === undefined ? `no ${tool.role === 'call' ? 'result' : 'call'} (${tool.state})` : `${tool.role === 'call' ? 'result' : 'call'} at row ${tool.partner + 1} ↗`, attrs: { 'data-partner': String(tool.partner ?? '') } });
  link.addEventListener('click', () => tool.partner !== undefined && actions.select(tool.partner));
  const body = el('details', {}, el('summary', { text: `${tool.role === 'call' ? 'input' : 'content'} · ${sizeText(tool.size)}` }), el('pre', { text: tool.text + (tool.size > tool.text.length ? '\n…' : '') }));
  const beside = partner && tool.role === 'call' ? [el('div', { className: 'sv-beside' }, el('div', { className: 'sv-muted', text: `result · ${sizeText(partner.size)}` }), el('pre', { text: partner.text.slice(0, 2000) }))] : [];
  const sub = tool.threadRow === undefined ? [] : [el('button', { className: 'sv-link', text: `its sub-agent’s conversation, at row ${tool.threadRow + 1} ⤵`, attrs: { 'data-thread-row': String(tool.threadRow) } })];
  sub[0]?.addEventListener('click', () => tool.threadRow !== undefined && actions.select(tool.threadRow));
  return el('div', { className: `sv-tool-detail sv-${tool.state}` }, el('div', { className: 'sv-line' }, el('strong', { text: `${tool.role} ${tool.name}` }), el('code', { text: tool.id }), link), ...sub, body, ...beside);
}

/** The usage the log reports for this row's request, beside our prediction. */
function cacheLine(view: SessionView, row: TimelineRow): HTMLElement[] {
  const c = cacheOf(view, row);
  return c ? [el('div', { className: `sv-cache-line${c.agreement === 'drop' ? ' sv-warning' : ''}`, text: `Cache: ${cacheText(c)}` })] : [];
}

/** A thread's header in full: what it is, where it started, and a way to see only it. */
function threadDetail(view: SessionView, row: Extract<TimelineRow, { kind: 'thread' }>, actions: DetailActions): HTMLElement[] {
  const only = el('button', { className: 'sv-link', text: 'Show only this conversation', attrs: { 'data-only-thread': String(row.thread) } });
  only.addEventListener('click', () => actions.onlyThread(row.thread));
  const from = el('button', { className: 'sv-link', text: `The call that started it, at row ${(row.parentRow ?? 0) + 1} ↗`, attrs: { 'data-partner': String(row.parentRow ?? '') } });
  from.addEventListener('click', () => row.parentRow !== undefined && actions.select(row.parentRow));
  const kind = row.file !== undefined ? 'A sub-agent’s conversation, in a file of its own beside the session, checked on its own' : row.threadKind === 'side-chain' ? 'A sub-agent’s conversation (a side-chain of the session), with its own context' : 'A conversation of its own in this file';
  const file = row.file === undefined ? [] : [el('div', { className: 'sv-muted', text: view.files[row.file] ?? '' })];
  return [el('h2', { text: row.label }), el('div', { text: `${kind}: ${threadText(row)}` }), ...file, ...(row.parentRow === undefined ? [] : [from]), only];
}

/** The selected row in full. */
export function detailOf(view: SessionView, row: TimelineRow, index: number, actions: DetailActions): HTMLElement[] {
  if (row.kind === 'thread') return threadDetail(view, row, actions);
  if (row.kind === 'step') {
    const open = el('button', { className: 'sv-link', text: view.textual ? 'Open this step in the inspector ↗' : 'The inspector needs the file as text (not a zip)' });
    open.addEventListener('click', () => view.textual && actions.post({ type: 'openStep', step: row.index, ...fileTag(view, row) }));
    return [el('h2', { text: `Step ${row.index} · ${row.decision.toUpperCase()} · ${row.source}` }), open, ...cacheLine(view, row), ...findingList(row.findings, view, row, actions)];
  }
  const title = el('h2', { text: `${row.role} · row ${index + 1}${row.elision ? ' · compaction summary' : ''}${row.dropped ? ' · dropped by a rewrite' : ''}` });
  const text = el('pre', { className: 'sv-text', text: row.text + (row.size > row.text.length ? `\n… (${sizeText(row.size)} in all)` : '') });
  const reveal = el('button', { className: 'sv-link', text: 'Show in the file ↗' });
  reveal.addEventListener('click', () => row.range && view.textual && actions.post({ type: 'reveal', range: row.range, ...fileTag(view, row) }));
  return [title, ...(view.textual && row.range ? [reveal] : []), ...cacheLine(view, row), ...findingList(row.findings, view, row, actions), text, ...row.opaque.map((t) => el('div', { className: 'sv-muted', text: `[${t}]` })), ...row.tools.map((t) => toolDetail(view, t, actions))];
}
