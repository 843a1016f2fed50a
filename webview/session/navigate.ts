/**
 * The session view's filters and keyboard targets over timeline rows. Pure
 * (no DOM): unit-tested in Node.
 */
import type { TimelineRow } from '../../src/shared/session-protocol';

export interface Filters {
  /** Only rows with an error or warning, and steps that are not a patch. */
  readonly problems: boolean;
  /** Only messages with a call or result of this tool. */
  readonly tool?: string;
  /** Only the rows of this conversation (`ViewThread.id`; 1 is the main one), its header included. */
  readonly thread?: number;
}

export function isProblem(row: TimelineRow): boolean {
  if (row.kind === 'step' && row.decision !== 'patch') return true;
  if (row.kind === 'thread' && row.unread !== undefined) return true;
  if (row.kind === 'message' && row.tools.some((t) => t.state === 'orphan-call' || t.state === 'orphan-result')) return true;
  return row.findings.some((f) => f.severity !== 'info');
}

/** Indexes of the rows the filters keep, in order. */
export function visibleRows(rows: readonly TimelineRow[], filters: Filters): number[] {
  const out: number[] = [];
  rows.forEach((row, i) => {
    if (filters.problems && !isProblem(row)) return;
    if (filters.tool !== undefined && !(row.kind === 'message' && row.tools.some((t) => t.name === filters.tool))) return;
    if (filters.thread !== undefined && (row.thread ?? 1) !== filters.thread) return;
    out.push(i);
  });
  return out;
}

export type Target = 'row' | 'turn' | 'step' | 'problem';

const MATCH: Readonly<Record<Target, (row: TimelineRow) => boolean>> = {
  row: () => true,
  turn: (row) => row.kind === 'message' && row.role === 'user' && row.text !== '',
  step: (row) => row.kind === 'step',
  problem: isProblem,
};

/**
 * The position (in `visible`) of the next (`direction` 1) or previous (-1)
 * visible row of a kind after `from`; `from` itself when there is none.
 */
export function nextPosition(rows: readonly TimelineRow[], visible: readonly number[], from: number, target: Target, direction: 1 | -1): number {
  for (let p = from + direction; p >= 0 && p < visible.length; p += direction) {
    if (MATCH[target](rows[visible[p]!]!)) return p;
  }
  return from;
}

/** Which key does what: `j`/`k` or arrows (row), `t`/`T` (turn), `s`/`S` (step), `e`/`E` (problem). */
export function keyTarget(key: string): { target: Target; direction: 1 | -1 } | undefined {
  switch (key) {
    case 'ArrowDown':
    case 'j':
      return { target: 'row', direction: 1 };
    case 'ArrowUp':
    case 'k':
      return { target: 'row', direction: -1 };
    case 't':
    case 'T':
    case 's':
    case 'S':
    case 'e':
    case 'E': {
      const target = ({ t: 'turn', s: 'step', e: 'problem' } as const)[key.toLowerCase() as 't' | 's' | 'e'];
      return { target, direction: key === key.toLowerCase() ? 1 : -1 };
    }
    default:
      return undefined;
  }
}

/** The first and last row positions to render for a scroll position (fixed row height, with overscan). */
export function windowOf(scrollTop: number, viewport: number, rowHeight: number, count: number, overscan = 8): { first: number; last: number } {
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(count - 1, Math.ceil((scrollTop + viewport) / rowHeight) + overscan);
  return { first, last };
}

/** `1.2 KB`, `830 B`. */
export function sizeText(chars: number): string {
  if (chars < 1000) return `${chars} B`;
  if (chars < 1_000_000) return `${(chars / 1000).toFixed(1)} KB`;
  return `${(chars / 1_000_000).toFixed(1)} MB`;
}
