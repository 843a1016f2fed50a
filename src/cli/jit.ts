/**
 * V8's tuning for the CLI, a batch process that runs for a second or less:
 * no inlining in optimised code. TurboFan compiles the hot functions on
 * helper threads, and with inlining each compile takes in the functions
 * they call, recursively (the token count's loop takes the whole merge, the
 * step judge the renderer): the checks of the bench's request logs spent
 * ~100 ms of CPU on those threads, a quarter of the whole process, for code
 * that ran a few hundred milliseconds. Without inlining each function is
 * compiled once, small, and the check is 10-20% cheaper in CPU even on a
 * 340 MB log (bench/README.md "Where the CLI's time goes").
 *
 * Imported first by main.ts, so it runs before any other module of the
 * bundle (esbuild evaluates modules in import order) and before anything is
 * optimised. The flag is read each time TurboFan plans a compile; V8 reads
 * no other state from it. The library and the extension keep V8's defaults:
 * they run long, in a host that is not theirs to tune.
 */
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--no-turbo-inlining');
