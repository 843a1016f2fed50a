/**
 * The bench's memory probe, one home for `bench/measure.ts memory` and the
 * unit test that bounds a request log's live heap (request-log-memory.test.ts);
 * its settled heap (`inUse`) is the memory tests' too (test/unit/settled-heap.ts).
 */
import * as fs from 'node:fs';
import * as v8 from 'node:v8';
import { checkTranscript, resolveAdapter } from '../src/core/check';
import { inputFromFile } from '../src/core/io';
import { observedLines } from '../src/core/observed-lines';
import type { CheckOptions, Report } from '../src/core/results';
import { createTokenCounter } from '../src/core/tokens';
import type { TranscriptInput } from '../src/core/transcript';

/** Checks of the warm-up log before the heap in use is taken (a few, so that the hot functions are optimised, as they are a few hundred lines into a log). */
export const WARM_UP_CHECKS = 3;

/** Full GCs at most per sample (`inUse`). */
const MAX_GCS = 4;

/** What the probe measured on one file. */
export interface LiveHeap {
  /** The largest growth of the heap in use over its value after the warm-up (the constant is not in it). */
  readonly peakHeap: number;
  /** The largest growth of the ArrayBuffers' backing stores (outside the V8 heap) over their value at the first line. */
  readonly peakExternal: number;
  /** The constant: the heap the warm-up left in use (compiled code, the modules' state) over the heap before it. */
  readonly constantHeap: number;
  /** The largest line of the file, in bytes. */
  readonly largestLine: number;
  readonly rssBefore: number;
  readonly report: Report;
}

/** `%FinalizeOptimization()`: waits for V8's optimising compiles in flight and installs their code. */
const finishCompiles = nativeCall('FinalizeOptimization');

/** A function calling V8's runtime function `name`: natives syntax allowed while it is compiled, and only then (the flag is read as code is parsed). */
function nativeCall(name: string): () => void {
  v8.setFlagsFromString('--allow-natives-syntax');
  try {
    return new Function(`%${name}()`) as () => void;
  } finally {
    v8.setFlagsFromString('--no-allow-natives-syntax');
  }
}

/**
 * Memory in use after full GCs (until one frees less than 1 KB): the V8 heap's (`heapUsed`) and, apart, the
 * ArrayBuffers' backing stores, which `heapUsed` does not count (Buffers and
 * typed arrays of more than 64 bytes: the reader's chunk and line slot, a
 * line's character marks, a request log's carried spans).
 *
 * V8's optimising compiles still running on its helper threads are finished
 * and installed first (`finishCompiles`): a compile job holds what it was
 * started on (its function's feedback, the objects it specialises on) until
 * its code is installed, a few milliseconds later, and a GC run meanwhile
 * counts all of it as live. On the bench's Chat log that was a one-line jump
 * of 0.2-0.5 MB (up to 1.7x the largest line) at whichever lines a job was
 * in flight, so that two runs of the same check peaked at 1.9x and 3.8x. With
 * the jobs finished the heap grows smoothly from line to line (as with
 * `--no-concurrent-recompilation`, where V8 compiles on the main thread and
 * no job is ever in flight at a sample, and two runs read the same heap at
 * every line); runs still differ a little (2.41x and 2.65x on that log) with
 * which functions are optimised by then.
 */
export function inUse(gc: () => void): { heap: number; external: number } {
  finishCompiles();
  // Until a GC frees no more (at most MAX_GCS): with nothing run in between, what a further GC frees was not live.
  // At some lines of a bench log one GC left 0.2-0.4 MB that a second freed, and at others two left ~150 KB of
  // code space that a third freed (dead optimised code: `v8.getHeapSpaceStatistics`); the peak was often such a line.
  gc();
  let { heapUsed, arrayBuffers } = process.memoryUsage();
  for (let k = 1; k < MAX_GCS; k++) {
    gc();
    const after = process.memoryUsage();
    const freed = heapUsed - after.heapUsed;
    ({ heapUsed, arrayBuffers } = after);
    if (freed < 1024) break;
  }
  return { heap: heapUsed, external: arrayBuffers };
}

/**
 * Peak live heap while checking `file`, over the heap in use just before:
 * `input.lines()` is wrapped (`observedLines`) so that before each line is handed to the engine
 * full GCs run (`inUse`) and `process.memoryUsage().heapUsed` is sampled. It
 * therefore measures what the engine retains between lines (its state plus
 * the line it is given), not the garbage in flight. The ArrayBuffers' backing
 * stores are sampled too, apart (`peakExternal`), from their value at the
 * first line: the reader's own buffers (a 1 MiB chunk and a 64 KiB line slot,
 * allocated as the read starts, whatever the file) are in that value, the
 * slot's growth for a long line is not. Tokens are counted (the CLI's default).
 *
 * The constant of "3x the largest line plus a constant" is in the heap before
 * the check: the token encoder (built once per process whatever the file), and,
 * when `warmUp` names logs of the same format (never the file measured), what
 * checking each WARM_UP_CHECKS times leaves behind: the code V8 compiled (and
 * optimised: a function is optimised once it ran often enough; a loop over a
 * long window replaced on the stack) and the modules' state. `constantHeap` is
 * that part over the heap with the encoder only, so a "constant" that grows
 * shows. Code V8 still compiles or optimises while checking the file counts
 * against the file. The RSS just before the check is given too (`rssBefore`).
 */
export function peakLiveHeap(file: string, gc: () => void, options?: CheckOptions, warmUp?: string | readonly string[]): LiveHeap {
  createTokenCounter('o200k_base').count('the encoder, built once per process');
  const largestLine = largestLineBytes(file);
  // The warm-up logs read as the file's format: a log whose first line holds a long history is longer than what detection reads.
  const warmUpOptions = { ...options, format: options?.format ?? resolveAdapter(inputFromFile(file), options ?? {}).id };
  const encoderOnly = inUse(gc);
  for (const log of warmUp === undefined ? [] : typeof warmUp === 'string' ? [warmUp] : warmUp) {
    for (let i = 0; i < WARM_UP_CHECKS; i++) checkTranscript(inputFromFile(log), warmUpOptions);
  }
  const input = inputFromFile(file);
  const base = inUse(gc);
  const rssBefore = process.memoryUsage().rss;
  let peakHeap = 0;
  let peakExternal = 0;
  let firstExternal: number | undefined;
  const sample = (): void => {
    const now = inUse(gc);
    firstExternal ??= now.external;
    peakHeap = Math.max(peakHeap, now.heap - base.heap);
    peakExternal = Math.max(peakExternal, now.external - firstExternal);
  };
  const report = checkTranscript(sampledInput(input, sample), options);
  gc();
  return { peakHeap, peakExternal, constantHeap: base.heap - encoderOnly.heap, largestLine, rssBefore, report };
}

/**
 * `input` with `sample` run before each of its lines is handed on. An
 * iterator, not a generator: a suspended generator keeps its whole register
 * file, and at the Anthropic bench log's line 866 a register of the probe's
 * own generator held a line of some lines before, with its text chain down to
 * a whole text (0.25 MB, ~1x the largest line; heap snapshot), counted as the
 * check's. The CLI has no such wrapper.
 */
export function sampledInput(input: TranscriptInput, sample: () => void): TranscriptInput {
  return { file: input.file, text: () => input.text(), bytes: () => input.bytes(), lines: () => observedLines(() => input.lines(), sample) };
}

/**
 * The largest line of a file in bytes (its line end not counted), from its
 * bytes, before the check: asking each line the engine reads for its text
 * would make the reader build and keep every line's whole text, which a check
 * never asks for (byte-lines.ts), and so measure the probe.
 */
export function largestLineBytes(file: string): number {
  const chunk = Buffer.allocUnsafe(1024 * 1024);
  const fd = fs.openSync(file, 'r');
  let largest = 0;
  let line = 0;
  let lastByte = -1;
  try {
    for (let n = fs.readSync(fd, chunk); n > 0; n = fs.readSync(fd, chunk)) {
      for (let at = 0; at < n; ) {
        const nl = chunk.indexOf(10, at);
        const end = nl === -1 || nl >= n ? n : nl;
        line += end - at;
        if (end > at) lastByte = chunk[end - 1] as number;
        if (end === n) break;
        largest = Math.max(largest, line - (lastByte === 13 ? 1 : 0));
        line = 0;
        lastByte = -1;
        at = end + 1;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return Math.max(largest, line - (lastByte === 13 ? 1 : 0));
}

