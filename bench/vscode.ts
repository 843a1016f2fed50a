/**
 * The 20 MB request log in the real VS Code (issue 14), as `vscode.*` entries
 * of `npm run bench`, each against a baseline measured in the same run:
 *
 * - open → first diagnostics, against the CLI's check of the same file + 1 s;
 * - each re-check after an edit (the last line, line 200, Enter pressed in
 *   line 200, the line break removed: its change event in the extension host
 *   → its report), against a full check of the same text in the same host
 *   (least of two): the re-check costs what the edit changed; and the same
 *   from asking VS Code for the edit (`edit-to-report`: VS Code applying a
 *   change to a 20 MB document and telling the host is in it);
 * - keystroke → painted while the log is checked (3 rounds of 20 keys),
 *   against the same keys in the same log in the same VS Code without the
 *   extension, in turn with it (median and max), and against the 50 ms
 *   target itself; and with the extension's CodeLens off, in turn too (what
 *   of a key's time is VS Code's work for the lenses).
 *
 * The times come from the suites that assert what these scenarios do
 * (test/vscode/suite/big-log.test.ts in code-server's extension host,
 * test/vscode/ui/run.ts's typing scenario in the workbench page), run alone
 * with `PREFIX_LENS_BENCH_OUT` set (bench/vscode-record.ts): the bench times
 * exactly what the tests check; a scenario that fails gives no entries, and the bench says why.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildExtensionTests } from '../scripts/vscode/buildTests';
import { result, type BenchResult } from './results';
import { BENCH_OUT_VARIABLE, type Times, type TimesRecord, TYPING_VARIABLES } from './vscode-record';

const ROOT = path.resolve(__dirname, '..');
/** The keystroke target. */
const KEYSTROKE_MS = 50;
/** Keys typed in each file by the typing scenario, and its rounds of VS Code alone and with the extension in turn (12 keys, 1 round in the suite). */
const [KEYS, ROUNDS] = [20, 3];
/** How much later than the CLI's check the first diagnostics may come. */
const FIRST_DIAGNOSTICS_SLACK_MS = 1000;

/** Runs `command` in the repository with the bench's output file named; throws with its exit code if it fails. */
function run(what: string, command: string, args: readonly string[], out: string): void {
  const env = { ...process.env, [BENCH_OUT_VARIABLE]: out, [TYPING_VARIABLES.keys]: String(KEYS), [TYPING_VARIABLES.rounds]: String(ROUNDS) };
  const done = spawnSync(command, args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'], env });
  if (done.status !== 0) throw new Error(`${what} failed (exit ${done.status ?? done.signal})`);
}

function readRecords(out: string): Map<string, Times> {
  const lines = fs.existsSync(out) ? fs.readFileSync(out, 'utf8').split('\n').filter(Boolean) : [];
  return new Map(lines.map((line) => JSON.parse(line) as TimesRecord).map((r) => [r.scenario, r.times]));
}

const one = (times: Times, key: string): number => {
  const value = times[key];
  if (typeof value !== 'number') throw new Error(`the scenario recorded no ${key}`);
  return value;
};

const list = (times: Times, key: string): readonly number[] => {
  const value = times[key];
  if (!Array.isArray(value) || value.length === 0) throw new Error(`the scenario recorded no ${key}`);
  return value;
};

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? NaN;
const max = (xs: readonly number[]) => Math.max(...xs);

/** The entries of the extension host's scenario: the open, then the four edits. */
export function openAndEditResults(times: Times): BenchResult[] {
  const edits = ['lastLine', 'line200', 'enter', 'lineBreakRemoved'];
  return [
    result('vscode.20mb.first-diagnostics', one(times, 'firstDiagnostics'), 'ms', one(times, 'cli') + FIRST_DIAGNOSTICS_SLACK_MS),
    ...edits.flatMap((edit) => [
      result(`vscode.20mb.recheck.${edit}`, one(times, `${edit}.recheck`), 'ms', one(times, `${edit}.full`)),
      result(`vscode.20mb.edit-to-report.${edit}`, one(times, `${edit}.roundTrip`), 'ms', one(times, `${edit}.full`)),
    ]),
  ];
}

/**
 * The entries of the typing scenario: with the extension against VS Code alone, and against the target; and
 * the same keys with the extension's CodeLens off, against VS Code alone (the extension's own work per key
 * and the check's) and as the baseline of the keys with it (VS Code's work per key for ~300 lenses: it lays
 * out every lens's view zone again at each change of the text, and the minimap is drawn again whole).
 */
export function keystrokeResults(times: Times): BenchResult[] {
  const [withExtension, withoutLenses, alone] = [list(times, 'withExtension'), list(times, 'withoutCodeLens'), list(times, 'withoutExtension')];
  return [
    result('vscode.20mb.keystroke.median', median(withExtension), 'ms', median(alone)),
    result('vscode.20mb.keystroke.without-codelens.median', median(withoutLenses), 'ms', median(alone)),
    result('vscode.20mb.keystroke.codelens.median', median(withExtension), 'ms', median(withoutLenses)),
    result('vscode.20mb.keystroke.max', max(withExtension), 'ms', max(alone)),
    result('vscode.20mb.keystroke.median-vs-target', median(withExtension), 'ms', KEYSTROKE_MS),
    result('vscode.20mb.keystroke.max-vs-target', max(withExtension), 'ms', KEYSTROKE_MS),
    result('vscode.20mb.keystroke.without-extension.max-vs-target', max(alone), 'ms', KEYSTROKE_MS),
  ];
}

/** Runs both scenarios in code-server (the extension and its tests built first) and gives their entries. */
export async function benchVscode(): Promise<BenchResult[]> {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'prefix-lens-bench-vscode-')), 'times.jsonl');
  await buildExtensionTests();
  run('the 20 MB log suite', path.join(ROOT, 'node_modules', '.bin', 'vscode-test'), ['--grep', 'open, then edits at its last and middle lines'], out);
  run('the typing scenario', process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-name-pattern', 'typing in a 20 MB request log', path.join('test', 'vscode', 'ui', 'run.ts')], out);
  const records = readRecords(out);
  fs.rmSync(path.dirname(out), { recursive: true, force: true });
  const scenario = (name: string) => {
    const times = records.get(name);
    if (!times) throw new Error(`the scenario ${name} recorded nothing`);
    return times;
  };
  return [...openAndEditResults(scenario('big-log.open-and-edits')), ...keystrokeResults(scenario('big-log.keystrokes'))];
}
