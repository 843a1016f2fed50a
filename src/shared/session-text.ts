/**
 * One-line texts about a session, shared by the status bar, the Rewrites view
 * and the session view's header. Pure (no `vscode`, no DOM).
 */
import type { Report } from '../core/results';
import type { PairCounts, SessionSummary } from '../core/session';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `6 pairs ✓`, `5 pairs · 1 pending`, `4 pairs · 2 orphaned`. */
export function pairsText(pairs: PairCounts): string {
  const extra = [...(pairs.pending > 0 ? [`${pairs.pending} pending`] : []), ...(pairs.orphaned > 0 ? [`${pairs.orphaned} orphaned`] : [])];
  return extra.length === 0 ? `${plural(pairs.paired, 'pair')} ✓` : [plural(pairs.paired, 'pair'), ...extra].join(' · ');
}

/** `claude-code · 0 rewrites · 6 pairs ✓`; aborts and defers are counted after the rewrites. */
export function statusText(summary: SessionSummary): string {
  const d = summary.decisions;
  const rewrites = d.patch + d.defer + d.abort;
  const notable = [...(d.abort > 0 ? [`${d.abort} abort`] : []), ...(d.defer > 0 ? [`${d.defer} defer`] : [])];
  const steps = `${plural(rewrites, 'rewrite')}${notable.length > 0 ? ` (${notable.join(', ')})` : ''}`;
  return `${summary.format} · ${steps} · ${pairsText(summary.pairs)}`;
}

/** ` (thread 2)` after a step of a file holding several conversations (its thread shown), else nothing. */
export function threadSuffix(thread: number | undefined): string {
  return thread === undefined ? '' : ` (thread ${thread})`;
}

/** True when nothing in the session needs a look: no abort or defer, no orphaned pair, no error or warning. */
export function isClean(summary: SessionSummary, problems: number): boolean {
  return summary.decisions.abort === 0 && summary.decisions.defer === 0 && summary.pairs.orphaned === 0 && problems === 0;
}

/** Errors and warnings of a report. */
export function problemsOf(report: Report): number {
  return report.findings.filter((f) => f.severity !== 'info').length;
}
