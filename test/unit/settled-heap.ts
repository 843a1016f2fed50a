/**
 * The heap in use as the memory tests read it: the memory probe's own reading
 * (bench/memory-probe.ts `inUse`: full GCs until one frees less than 1 KB).
 * One or two GCs can leave what was allocated while an incremental marking
 * ran (floating garbage) or dead optimised code, which a further GC with
 * nothing run in between frees: not live, but on a loaded machine enough to
 * fail a bound.
 */
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { inUse } from '../../bench/memory-probe';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** `heapUsed` once GCs free no more. */
export function settledHeap(): number {
  return inUse(gc).heap;
}

/** `heapUsed` and the ArrayBuffers' backing stores (`arrayBuffers`, outside the heap's count) once GCs free no more. */
export function settledMemory(): { heap: number; external: number } {
  return inUse(gc);
}
