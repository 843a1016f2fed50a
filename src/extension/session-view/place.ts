/**
 * Where the session view puts what the log and the check say about a row:
 * each request's usage at its row, each window-level finding at its message.
 * Both are located by offset, so each only among the rows of its own file.
 */
import type { Finding, Report } from '../engine';
import { partitionPoint } from '../../shared/search';
import type { RowFinding, TimelineRow } from '../../shared/session-protocol';

/** Each file's rows (the session's under `undefined`, a sub-agent's under its index), as row indexes in row order: one pass over the rows. */
export function rowsByFile(rows: readonly TimelineRow[]): Map<number | undefined, number[]> {
  const byFile = new Map<number | undefined, number[]>();
  rows.forEach((r, i) => (byFile.get(r.file) ?? byFile.set(r.file, []).get(r.file)!).push(i));
  return byFile;
}

/** Rows of one file with a range (of `kind`, when given), by where they start (ties in row order). */
function byStart(rows: readonly TimelineRow[], own: readonly number[], kind?: TimelineRow['kind']): { i: number; start: number; end: number }[] {
  return own.flatMap((i) => {
    const r = rows[i]!;
    return (kind === undefined || r.kind === kind) && r.range ? [{ i, start: r.range.start, end: r.range.end }] : [];
  }).sort((x, y) => x.start - y.start || x.i - y.i);
}

/**
 * Each request's usage at the row of the record that reports it: the step of
 * that request (a request log's line, a model event, a generation), else the
 * message written on that line (a Claude Code or Gemini CLI answer); among
 * the rows of one file (`own`: the session's, or a sub-agent's, see `rowsByFile`).
 */
export function placeUsage(rows: TimelineRow[], cache: NonNullable<Report['session']>['cache'], own: readonly number[]): void {
  if (cache.length === 0) return;
  const nonEmpty = (kind: TimelineRow['kind']) => byStart(rows, own, kind).filter((r) => r.end > r.start);
  const steps = nonEmpty('step');
  const messages = nonEmpty('message');
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
 * Each window-level finding of one file (`own`: the session's rows, or a sub-agent's) at
 * that file's row starting closest before it (the last such row on a tie; else its first row).
 */
export function placeFindings(rows: TimelineRow[], findings: readonly Finding[], own: readonly number[]): void {
  if (findings.length === 0) return;
  const starts = byStart(rows, own).filter((r) => r.start >= 0);
  const extra = new Map<number, RowFinding[]>();
  for (const f of findings) {
    const k = partitionPoint(starts.length, (j) => starts[j]!.start <= f.range.start) - 1;
    const at = k >= 0 ? starts[k]!.i : (own[0] ?? 0);
    (extra.get(at) ?? extra.set(at, []).get(at)!).push(rowFinding(f));
  }
  for (const [i, more] of extra) {
    const row = rows[i];
    if (row) rows[i] = { ...row, findings: [...row.findings, ...more] };
  }
}

export function rowFinding(f: Finding): RowFinding {
  return { rule: f.rule, severity: f.severity, message: f.message, range: f.range };
}

/** Where each row starts in the file, for placing steps and findings. */
export function rowStart(row: TimelineRow): number {
  return row.range?.start ?? -1;
}
