/** bench/results.ts: entries merge by name, ratios are computed, a benchmark's stale entries are dropped. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { addResult, formatTable, readResults, removeResults, result } from '../../bench/results';

describe('bench/results', () => {
  it('adds entries, replacing by name and keeping the others', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pl-bench-')), 'results.json');
    addResult([result('request-log.check-time', 300, 'ms', 200), result('guard-10k.append', 5, 'ms', 4)], file);
    addResult(result('inspector.open', 120, 'ms'), file);
    addResult(result('request-log.check-time', 150, 'ms', 200), file);
    const entries = readResults(file);
    assert.deepEqual(
      entries.map((e) => e.name),
      ['guard-10k.append', 'inspector.open', 'request-log.check-time'],
    );
    assert.deepEqual(entries[2], { name: 'request-log.check-time', value: 150, unit: 'ms', baseline: 200, ratio: 0.75 });
    assert.deepEqual(entries[1], { name: 'inspector.open', value: 120, unit: 'ms', baseline: null, ratio: null });
    removeResults(['request-log.', 'guard-10k.'], file);
    assert.deepEqual(readResults(file).map((e) => e.name), ['inspector.open']);
    assert.match(formatTable(entries), /\| request-log\.check-time +\| 150 ms +\| 200 ms +\| 0\.75× \|/);
  });
});
