/** bench/vscode.ts and bench/vscode-record.ts: what the real-VS-Code scenarios hand the bench, and the entries made of it. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { keystrokeResults, openAndEditResults } from '../../bench/vscode';
import { BENCH_OUT_VARIABLE, recordTimes, typingCounts, TYPING_VARIABLES } from '../../bench/vscode-record';

/** Runs `body` with the bench's variable set to `value` (or unset), console.log silenced. */
function withOut(value: string | undefined, body: () => void): void {
  const [saved, log] = [process.env[BENCH_OUT_VARIABLE], console.log];
  if (value === undefined) delete process.env[BENCH_OUT_VARIABLE];
  else process.env[BENCH_OUT_VARIABLE] = value;
  console.log = () => undefined;
  try {
    body();
  } finally {
    console.log = log;
    if (saved === undefined) delete process.env[BENCH_OUT_VARIABLE];
    else process.env[BENCH_OUT_VARIABLE] = saved;
  }
}

describe('bench/vscode', () => {
  it('a scenario writes its times as one JSON line only when the bench started it', () => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pl-bench-vscode-')), 'times.jsonl');
    withOut(undefined, () => recordTimes('a', { cli: 1 }, 'printed'));
    assert.equal(fs.existsSync(out), false);
    withOut(out, () => {
      recordTimes('a', { cli: 1 }, 'printed');
      recordTimes('b', { withExtension: [3, 4] }, 'printed');
    });
    assert.deepEqual(fs.readFileSync(out, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)), [
      { scenario: 'a', times: { cli: 1 } },
      { scenario: 'b', times: { withExtension: [3, 4] } },
    ]);
  });

  it("the typing scenario types the suite's keys and rounds unless the bench names others", () => {
    const saved = { ...process.env };
    try {
      delete process.env[TYPING_VARIABLES.keys];
      delete process.env[TYPING_VARIABLES.rounds];
      assert.deepEqual(typingCounts({ keys: 12, rounds: 1 }), { keys: 12, rounds: 1 });
      Object.assign(process.env, { [TYPING_VARIABLES.keys]: '20', [TYPING_VARIABLES.rounds]: '3' });
      assert.deepEqual(typingCounts({ keys: 12, rounds: 1 }), { keys: 20, rounds: 3 });
    } finally {
      for (const name of Object.values(TYPING_VARIABLES)) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
    }
  });

  it('the open is compared with the CLI + 1 s, each re-check with a full check of its text', () => {
    const edits = ['lastLine', 'line200', 'enter', 'lineBreakRemoved'];
    const times = { cli: 500, firstDiagnostics: 1200, ...Object.fromEntries(edits.flatMap((e, i) => [[`${e}.recheck`, 10 * (i + 1)], [`${e}.roundTrip`, 100 * (i + 1)], [`${e}.full`, 400]])) };
    const entries = openAndEditResults(times);
    assert.deepEqual(entries[0], { name: 'vscode.20mb.first-diagnostics', value: 1200, unit: 'ms', baseline: 1500, ratio: 0.8 });
    assert.deepEqual(
      entries.slice(1).map((e) => [e.name, e.value, e.baseline]),
      edits.flatMap((e, i) => [[`vscode.20mb.recheck.${e}`, 10 * (i + 1), 400], [`vscode.20mb.edit-to-report.${e}`, 100 * (i + 1), 400]]),
    );
    assert.throws(() => openAndEditResults({ cli: 500 }), /recorded no firstDiagnostics/);
  });

  it('keystrokes: the median and max with the extension against VS Code alone, and against 50 ms; the CodeLens\'s part', () => {
    const entries = keystrokeResults({ withExtension: [30, 10, 20, 90], withoutCodeLens: [12, 22, 8], withoutExtension: [25, 15, 60] });
    const byName = Object.fromEntries(entries.map((e) => [e.name, [e.value, e.baseline]]));
    assert.deepEqual(byName, {
      'vscode.20mb.keystroke.median': [30, 25],
      'vscode.20mb.keystroke.without-codelens.median': [12, 25],
      'vscode.20mb.keystroke.codelens.median': [30, 12],
      'vscode.20mb.keystroke.max': [90, 60],
      'vscode.20mb.keystroke.median-vs-target': [30, 50],
      'vscode.20mb.keystroke.max-vs-target': [90, 50],
      'vscode.20mb.keystroke.without-extension.max-vs-target': [60, 50],
    });
    assert.throws(() => keystrokeResults({ withExtension: [], withoutCodeLens: [1], withoutExtension: [1] }), /recorded no withExtension/);
    assert.throws(() => keystrokeResults({ withExtension: [1], withoutExtension: [1] }), /recorded no withoutCodeLens/);
  });
});
