/**
 * How the real-VS-Code scenarios hand their times to `npm run bench`
 * (bench/vscode.ts): a test that measures something calls `recordTimes`, which
 * prints the times as the suites always did and, when the bench started the
 * suite (`PREFIX_LENS_BENCH_OUT` names a file), appends them to that file as
 * one JSON line. The extension host and the UI runner inherit the variable
 * through code-server's environment.
 */
import { appendFileSync } from 'node:fs';

export const BENCH_OUT_VARIABLE = 'PREFIX_LENS_BENCH_OUT';

/** One scenario's measurements, in milliseconds (a list where several keys were timed). */
export type Times = Readonly<Record<string, number | readonly number[]>>;

export interface TimesRecord {
  readonly scenario: string;
  readonly times: Times;
}

/** Prints `summary` and, under the bench, writes `times` for `scenario`. */
export function recordTimes(scenario: string, times: Times, summary: string): void {
  console.log(summary);
  const out = process.env[BENCH_OUT_VARIABLE];
  if (out) appendFileSync(out, `${JSON.stringify({ scenario, times } satisfies TimesRecord)}\n`);
}
