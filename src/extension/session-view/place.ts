/**
 * Where the session view puts what the log and the check say about a row:
 * each request's usage at its row, each window-level finding at its message.
 * Both are located by offset, so each only among the rows of its own file.
 */
import type { Finding, Report } from '../engine';
import { partitionPoint } from '../../shared/search';
import type { RowFinding, TimelineRow } from '../../shared/session-protocol';

/**
 * Each request's usage at the row of the record that reports it: the step of
 * that request (a request log's line, a model event, a generation), else the
 * message written on that line (a Claude Code or Gemini CLI answer); among
 * the rows of one file (the session's, or a sub-agent's: `file`).
 */
export function placeUsage(rows: TimelineRow[], cache: NonNullable<Report['session']>['cache'], file: number | undefined): void {
  if (cache.length === 0) return;
  const byStart = (kind: TimelineRow['kind']) =>
    rows.flatMap((r, i) => (r.kind === kind && r.file === file && r.range && r.range.end > r.range.start ? [{ i, start: r.range.start, end: r.range.end }] : [])).sort((x, y) => x.start - y.start);
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

/**
 * Each window-level finding of one file (the session's, or a sub-agent's: `file`) at
 * that file's row starting closest before it (the last such row on a tie; else its first row).
 */
export function placeFindings(rows: TimelineRow[], findings: readonly Finding[], file: number | undefined): void {
  if (findings.length === 0) return;
  const own = rows.flatMap((r, i) => (r.file === file ? [i] : []));
  const starts = rows.map(rowStart);
  const extra: RowFinding[][] = rows.map(() => []);
  for (const f of findings) {
    let at = own[0] ?? 0;
    let best = -1;
    for (const i of own) if (starts[i]! >= 0 && starts[i]! <= f.range.start && starts[i]! >= best) [at, best] = [i, starts[i]!];
    extra[at]?.push(rowFinding(f));
  }
  rows.forEach((row, i) => {
    if (extra[i]!.length > 0) rows[i] = { ...row, findings: [...row.findings, ...extra[i]!] };
  });
}

export function rowFinding(f: Finding): RowFinding {
  return { rule: f.rule, severity: f.severity, message: f.message, range: f.range };
}

/** Where each row starts in the file, for placing steps and findings. */
export function rowStart(row: TimelineRow): number {
  return row.range?.start ?? -1;
}
