/**
 * Lines handed on one by one, each shown to `observe` first: an iterator of
 * its own rather than a generator. A suspended generator keeps its whole
 * register file, and a register the optimised code no longer writes keeps a
 * line it held some lines before (with that line's text chain: byte-lines.ts)
 * alive for as long as the check runs on; this holds only the lines' iterator.
 */
import type { SourceLine } from './text';

/** `lines()` is called when the first line is asked for, as a generator's body would call it. */
export function observedLines(lines: () => Iterable<SourceLine>, observe: (line: SourceLine) => void): IterableIterator<SourceLine> {
  let inner: Iterator<SourceLine> | undefined;
  /** Done, closed or failed: no line after (as a generator that has returned). */
  let over = false;
  const close = (): void => {
    const open = inner;
    inner = undefined;
    over = true;
    open?.return?.();
  };
  const done: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });
  return {
    [Symbol.iterator]() {
      return this;
    },
    next(): IteratorResult<SourceLine> {
      if (over) return done;
      // Started on the first line asked for, as a generator's body is.
      inner ??= lines()[Symbol.iterator]();
      let step: IteratorResult<SourceLine>;
      try {
        step = inner.next();
      } catch (error) {
        inner = undefined;
        over = true;
        throw error;
      }
      if (step.done === true) {
        inner = undefined;
        over = true;
        return done;
      }
      try {
        observe(step.value);
      } catch (error) {
        close();
        throw error;
      }
      return step;
    },
    return(): IteratorResult<SourceLine> {
      if (!over) close();
      return done;
    },
  };
}
