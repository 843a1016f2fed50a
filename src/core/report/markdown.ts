/**
 * A Markdown report of one checked file: a summary, the steps with their
 * decisions and cache impact, and every finding at its line/column. Pure: the
 * extension's "Export Report" writes it.
 */
import type { Report, StepReport } from '../results';
import { RULES } from '../findings';
import { LineIndex } from '../text';
import { toJsonReport, type JsonFinding } from './json';

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
  const rows = steps.map((s) => {
    const where = s.range ? String(lines.position(s.range.start).line) : '';
    const rules = s.rules.map((r) => ruleLink(r, options)).join(', ');
    const cache = s.cacheImpact.invalidatedTokens > 0 ? `−${formatNumber(s.cacheImpact.invalidatedTokens)} tokens` : '';
    const applied = s.applied ? '' : ' (not applied)';
    return row([String(s.index), where, `**${s.decision}**${applied}`, s.source, rules, cache]);
  });
  return [row(['step', 'line', 'decision', 'source', 'rules', 'cache impact']), row(['---:', '---:', '---', '---', '---', '---:']), ...rows];
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
