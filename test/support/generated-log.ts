/**
 * The lines of a bench-like request log (bench/generate.ts), for tests that
 * edit or read them as text: generated to a file of their own, read back,
 * the file removed.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { generateLog, type LogFormat } from '../../bench/generate';

/** `requests` requests of `format`, ~40 characters of text a turn, from `seed`. */
export function generatedLogLines(format: LogFormat, requests: number, seed: number): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prefix-lens-log-'));
  try {
    const file = path.join(dir, 'log.jsonl');
    generateLog(file, { format, requests, bytesPerTurn: 40, seed });
    return fs.readFileSync(file, 'utf8').trim().split('\n');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
