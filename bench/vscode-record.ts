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
/** How many keys the typing scenario types per file, and its rounds of VS Code alone and with the extension in turn. */
export const TYPING_VARIABLES = { keys: 'PREFIX_LENS_BENCH_KEYS', rounds: 'PREFIX_LENS_BENCH_ROUNDS' } as const;

/** The typing scenario's keys and rounds: the bench's when it set them, else the suite's `fallback`. */
export function typingCounts(fallback: { readonly keys: number; readonly rounds: number }): { keys: number; rounds: number } {
  const read = (name: string, value: number) => Number(process.env[name] ?? value);
  return { keys: read(TYPING_VARIABLES.keys, fallback.keys), rounds: read(TYPING_VARIABLES.rounds, fallback.rounds) };
}

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
