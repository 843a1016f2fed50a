/**
 * The heap in use as the memory tests read it: full GCs until one frees less
 * than 1 KB (at most MAX_GCS), as bench/memory-probe.ts samples it. One or two
 * GCs can leave what was allocated while an incremental marking ran (floating
 * garbage) or dead optimised code, which a further GC with nothing run in
 * between frees: not live, but on a loaded machine enough to fail a bound.
 */
import * as v8 from 'node:v8';
import * as vm from 'node:vm';

v8.setFlagsFromString('--expose-gc');
export const gc = vm.runInNewContext('gc') as () => void;

const MAX_GCS = 6;

/** `heapUsed` (with the ArrayBuffers' backing stores when `external`) once GCs free no more. */
export function settledHeap(external = false): number {
  const used = () => {
    const { heapUsed, arrayBuffers } = process.memoryUsage();
    return heapUsed + (external ? arrayBuffers : 0);
  };
  gc();
  let now = used();
  for (let k = 1; k < MAX_GCS; k++) {
    gc();
    const after = used();
    const freed = now - after;
    now = after;
    if (freed < 1024) break;
  }
  return now;
}
