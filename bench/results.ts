/**
 * `bench/results.json`: a list of `{"name","value","unit","baseline","ratio"}`.
 * Every benchmark (the engine's, the inspector's) adds its entries with
 * `addResult`; an entry replaces the one of the same name and keeps the others.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface BenchResult {
  /** Stable, descriptive id, e.g. `request-log.check-time`. */
  readonly name: string;
  /** The measured value. */
  readonly value: number;
  /** Unit of `value` and `baseline`: `ms`, `MB`, `bytes`, `x` … */
  readonly unit: string;
  /** What `value` is compared against (same unit), or null. */
  readonly baseline: number | null;
  /** `value / baseline`, or null without a baseline. */
  readonly ratio: number | null;
}

export const RESULTS_FILE = path.join(__dirname, 'results.json');

/** Builds an entry, computing the ratio (rounded to 3 decimals). */
export function result(name: string, value: number, unit: string, baseline: number | null = null): BenchResult {
  const ratio = baseline === null || baseline === 0 ? null : round(value / baseline, 3);
  return { name, value: round(value, 3), unit, baseline: baseline === null ? null : round(baseline, 3), ratio };
}

export function readResults(file: string = RESULTS_FILE): BenchResult[] {
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    return Array.isArray(parsed) ? (parsed as BenchResult[]) : [];
  } catch {
    return [];
  }
}

/** Adds (or replaces, by name) entries in the results file, keeping everyone else's. */
export function addResult(entries: BenchResult | readonly BenchResult[], file: string = RESULTS_FILE): BenchResult[] {
  const added = Array.isArray(entries) ? (entries as readonly BenchResult[]) : [entries as BenchResult];
  const names = new Set(added.map((e) => e.name));
  const merged = [...readResults(file).filter((e) => !names.has(e.name)), ...added];
  fs.writeFileSync(file, `${JSON.stringify(merged, null, 2)}\n`);
  return merged;
}

/** Removes the entries whose names start with one of `prefixes` (a benchmark's own, before it re-adds them). */
export function removeResults(prefixes: readonly string[], file: string = RESULTS_FILE): BenchResult[] {
  const kept = readResults(file).filter((e) => !prefixes.some((p) => e.name.startsWith(p)));
  fs.writeFileSync(file, `${JSON.stringify(kept, null, 2)}\n`);
  return kept;
}

/** A fixed-width table of entries, for the terminal and the README. */
export function formatTable(entries: readonly BenchResult[]): string {
  const rows = entries.map((e) => [
    e.name,
    `${formatValue(e.value)} ${e.unit}`,
    e.baseline === null ? '' : `${formatValue(e.baseline)} ${e.unit}`,
    e.ratio === null ? '' : `${e.ratio.toFixed(2)}×`,
  ]);
  const header = ['name', 'value', 'baseline', 'ratio'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

function formatValue(v: number): string {
  return Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2);
}

function round(v: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

// `node --import tsx bench/results.ts` prints the table of bench/results.json (for the README).
if (require.main === module) process.stdout.write(`${formatTable(readResults())}\n`);
