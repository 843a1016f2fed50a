/**
 * Preloaded (`node --require bench/exit-usage.cjs …`) into a process the bench
 * measures as a whole (the CLI, the readline + JSON.parse floor): at exit it
 * writes the process's CPU time and peak RSS, as JSON, to $PL_BENCH_USAGE.
 */
const fs = require('node:fs');

process.on('exit', () => {
  const file = process.env.PL_BENCH_USAGE;
  if (!file) return;
  const used = process.resourceUsage();
  fs.writeFileSync(file, JSON.stringify({ cpuMs: (used.userCPUTime + used.systemCPUTime) / 1000, peakRss: used.maxRSS * 1024 }));
});
