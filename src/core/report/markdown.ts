/**
 * A Markdown report of one checked file: a summary, the steps with their
 * decisions and cache impact, and every finding at its line/column. Pure: the
 * extension's "Export Report" writes it.
 */
import type { Report, StepReport } from '../results';
import { RULES } from '../findings';
import { LineIndex } from '../text';
import { shownThread, toJsonReport, type JsonFinding, type JsonSession } from './json';

export interface MarkdownOptions {
  /** Where docs/rules.md lives; rule ids link to `${rulesDocUri}#<rule-id>`. Omit for plain ids. */
  readonly rulesDocUri?: string;
}

/** Renders one report as a Markdown document. */
export function toMarkdown(report: Report, options: MarkdownOptions = {}): string {
  const json = toJsonReport(report);
  const lines = LineIndex.fromStarts(report.lineStarts);
  const out: string[] = [`# Prefix Lens report: \`${report.file}\``, '', summaryLine(report), ''];
  if (report.tokenizer) {
    out.push(`Token counts use \`${report.tokenizer.encoding}\`, an approximation of the provider's tokenizer.`, '');
  }
  if (json.session) out.push(...sessionSection(json.session));
  if (report.steps.length > 0) out.push('## Steps', '', ...stepTable(report.steps, lines, options), '');
  out.push('## Findings', '');
  if (json.findings.length === 0) out.push('No findings.');
  else out.push(...findingTable(json.findings, options));
  return `${out.join('\n')}\n`;
}

/** `Format anthropic · 12 steps: 10 patch, 1 defer, 1 abort · 3 errors, 1 warning, 0 info`. */
export function summaryLine(report: Report): string {
  const count = (d: string) => report.steps.filter((s) => s.decision === d).length;
  const sev = (s: string) => report.findings.filter((f) => f.severity === s).length;
  const steps =
    report.steps.length === 0
      ? 'no rewrite steps'
      : `${plural(report.steps.length, 'step')}: ${count('patch')} patch, ${count('defer')} defer, ${count('abort')} abort`;
  const findings = `${plural(sev('error'), 'error')}, ${plural(sev('warning'), 'warning')}, ${sev('info')} info`;
  return `Format \`${report.format}\` · ${steps} · ${findings}`;
}

function stepTable(steps: readonly StepReport[], lines: LineIndex, options: MarkdownOptions): string[] {
  const threaded = steps.some((s) => shownThread(steps, s) !== undefined);
  const rows = steps.map((s) => {
    const where = s.range ? String(lines.position(s.range.start).line) : '';
    const rules = s.rules.map((r) => ruleLink(r, options)).join(', ');
    const cache = s.cacheImpact.invalidatedTokens > 0 ? `−${formatNumber(s.cacheImpact.invalidatedTokens)} tokens` : '';
    const applied = s.applied ? '' : ' (not applied)';
    const thread = threaded ? [String(s.thread ?? '')] : [];
    return row([String(s.index), ...thread, where, `**${s.decision}**${applied}`, s.source, rules, cache]);
  });
  const head = threaded ? [['thread', '---:']] : [];
  return [
    row(['step', ...head.map((h) => h[0] as string), 'line', 'decision', 'source', 'rules', 'cache impact']),
    row(['---:', ...head.map((h) => h[1] as string), '---:', '---', '---', '---', '---:']),
    ...rows,
  ];
}

/** The session at a glance, then the cache figures the log reports beside our prediction. */
function sessionSection(session: JsonSession): string[] {
  const out = ['## Session', '', sessionLine(session), ''];
  if (session.usage) {
    const u = session.usage;
    const writes = u.cacheWrite === undefined ? '' : `, ${formatNumber(u.cacheWrite)} written`;
    out.push(`The log reports ${plural(u.requests, 'request')}: ${formatNumber(u.promptTokens)} input tokens, ${formatNumber(u.cacheRead)} read from the cache${writes}, ${formatNumber(u.outputTokens)} output.`, '');
  }
  const rows = session.cache.filter((c) => c.agreement !== 'agrees');
  if (rows.length === 0) return out;
  out.push('### Cache: drops the log reports, beside our prediction', '');
  out.push(row(['request', 'line', 'cache read', 'left cached before', 'we predicted', 'why']), row(['---:', '---:', '---:', '---:', '---', '---']));
  for (const c of rows) {
    const where = c.reasonLine === undefined ? '' : ` (line ${c.reasonLine})`;
    const p = c.predicted;
    const predicted = p.intact ? 'prefix intact' : `break at step ${p.step ?? '?'}: ${formatNumber(p.keptTokens ?? 0)} of ${formatNumber(p.consumedTokens ?? 0)} consumed tokens kept`;
    const why = `${c.reason ?? ''}: ${escapeCell(c.detail ?? '')}${where}`;
    out.push(row([String(c.index), String(c.line), formatNumber(c.cacheRead), formatNumber(c.expectedRead ?? 0), predicted, why]));
  }
  out.push('');
  return out;
}

/** `claude-code · claude-opus-4-6 · 2026-02-10 22:57 – 22:59 · 3 turns · 9 messages · 6 pairs ✓ · 0 compactions`. */
export function sessionLine(session: Omit<JsonSession, 'cache'>): string {
  const p = session.pairs;
  const pairs = `${plural(p.paired, 'pair')}${p.pending > 0 ? `, ${p.pending} pending` : ''}${p.orphaned > 0 ? `, ${p.orphaned} orphaned` : ''}`;
  const parts = [
    `\`${session.format}\``,
    ...(session.models.length > 0 ? [session.models.map((m) => `\`${escapeCell(m)}\``).join(', ')] : []),
    ...(session.firstTime && session.lastTime ? [`${session.firstTime} – ${session.lastTime}`] : []),
    plural(session.turns, 'turn'),
    plural(session.messages, 'message'),
    pairs,
    plural(session.compactions, 'compaction'),
  ];
  return parts.join(' · ');
}

function findingTable(findings: readonly JsonFinding[], options: MarkdownOptions): string[] {
  const rows = findings.map((f) =>
    row([
      `${f.line}:${f.column}`,
      f.step === null ? '' : String(f.step),
      f.severity,
      ruleLink(f.rule, options),
      escapeCell(f.message) + (f.toolCallId !== undefined ? ` (\`${escapeCell(f.toolCallId)}\`)` : ''),
    ]),
  );
  return [row(['line:col', 'step', 'severity', 'rule', 'message']), row(['---', '---:', '---', '---', '---']), ...rows];
}

function ruleLink(id: keyof typeof RULES, options: MarkdownOptions): string {
  return options.rulesDocUri ? `[\`${id}\`](${options.rulesDocUri}#${id})` : `\`${id}\``;
}

function row(cells: readonly string[]): string {
  return `| ${cells.join(' | ')} |`;
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** 48213 → `48,213`. */
export function formatNumber(n: number): string {
  return n.toLocaleString('en-US');
}
