/**
 * The byte reader's texts' chain, measured in a process of its own run with
 * `--jitless` (`chainPeakOf`): the heap in use (once full GCs free no more,
 * over the heap before the read) while a file's lines are read one by one,
 * each held until the next, after a warm-up read that keeps nothing.
 *
 * Why a process of its own, interpreted: in a process that compiles, which
 * values a suspended generator's frame keeps depends on the tier its code
 * runs in, and when a background compile lands depends on the machine's
 * load. The same read then measured 214 KB on a quiet machine and up to
 * 360 KB on a loaded one (the chain's bound is 250 KB), with V8's code
 * spaces left out: a bound on what the reader keeps could not tell the
 * reader from the compiler. Interpreted, it measures 220 KB every run.
 */
import { execFileSync } from 'node:child_process';
import { linesFromBytes } from '../../src/core/byte-lines';
import { lineLength } from '../../src/core/text';
import { settledHeap } from './settled-heap';

/** Words, different for every `seed`, so no two texts are one string. */
export function prose(seed: number, chars: number): string {
  const words: string[] = [];
  let size = 0;
  for (let i = 0; size < chars; i++) {
    const word = `w${((seed * 7919 + i * 104729) % 1000003).toString(36)}`;
    words.push(word);
    size += word.length + 1;
  }
  return words.join(' ');
}

export type ChainScenario = 'long-ends' | 're-written-ends';

/** The scenarios' lines (their comments in request-log-memory.test.ts). */
export function chainLines(scenario: ChainScenario): string[] {
  if (scenario === 'long-ends') return Array.from({ length: 12 }, (_, k) => `${'h'.repeat(40_000 * k)}${prose(k, 200_000)}`);
  const lines: string[] = [];
  for (let k = 0, line = ''; k < 100; k++) lines.push((line = `${line.slice(0, Math.max(0, line.length - 1000))}${prose(k, 3000).slice(0, 3000)}`));
  return lines;
}

export interface ChainPeak {
  readonly peak: number;
  readonly largest: number;
  /** Whether the last line read has the last line's text. */
  readonly lastRead: boolean;
}

function measure(scenario: ChainScenario): ChainPeak {
  const lines = chainLines(scenario);
  const chunks = lines.map((line) => Buffer.from(`${line}\n`));
  for (const line of linesFromBytes(chunks)) void line;
  const base = settledHeap();
  let peak = 0;
  let largest = 0;
  let last;
  for (const line of linesFromBytes(chunks)) {
    largest = Math.max(largest, lineLength(line));
    last = line;
    peak = Math.max(peak, settledHeap() - base);
  }
  return { peak, largest, lastRead: last?.text === lines.at(-1) };
}

/** `scenario` measured in a child process run with `--jitless`. */
export function chainPeakOf(scenario: ChainScenario): ChainPeak {
  const out = execFileSync(process.execPath, ['--jitless', '--expose-gc', '--import', 'tsx', __filename, scenario], { encoding: 'utf8' });
  return JSON.parse(out) as ChainPeak;
}

if (require.main === module) {
  const scenario = process.argv[2];
  if (scenario !== 'long-ends' && scenario !== 're-written-ends') throw new Error(`unknown scenario ${String(scenario)}`);
  process.stdout.write(JSON.stringify(measure(scenario)));
}
