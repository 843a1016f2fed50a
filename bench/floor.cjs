/**
 * The request-log floor (issue 12): stream a file with readline and
 * `JSON.parse` every line, nothing else. `node bench/floor.cjs FILE`.
 */
const fs = require('node:fs');
const readline = require('node:readline');

const lines = readline.createInterface({ input: fs.createReadStream(process.argv[2] ?? ''), crlfDelay: Infinity });
let parsed = 0;
lines.on('line', (line) => {
  if (line.length > 0) {
    JSON.parse(line);
    parsed++;
  }
});
lines.on('close', () => process.stdout.write(`${JSON.stringify({ parsed })}\n`));
