/**
 * A growing request log opens in the session view as a snapshot that grows
 * with what the log adds, not with the log: every request repeats the ones
 * before it, so the file grows with the square of its requests while the
 * timeline holds each message once (a 100 MB log of 850 requests gives
 * ~2,500 rows). The webview then shows only the rows in view (the 10k-message
 * tests in test/webview and the bench's scroll entries).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { generateLog } from '../../bench/generate';
import { checkTranscript } from '../../src/core/check';
import { inputFromFile } from '../../src/core/io';
import { sessionView } from '../../src/extension/session-view/view';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pl-view-scale-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

function viewOfLog(requests: number) {
  const file = path.join(dir, `log-${requests}.jsonl`);
  generateLog(file, { requests, bytesPerTurn: 40, seed: 7 });
  const view = sessionView(checkTranscript(inputFromFile(file), { keepRewrites: true, tokens: false }), true);
  return { view, fileBytes: fs.statSync(file).size, snapshotBytes: Buffer.byteLength(JSON.stringify(view)) };
}

describe('session view of a growing request log', () => {
  it('rows and snapshot grow with the requests, not with the file', () => {
    const small = viewOfLog(50);
    const large = viewOfLog(200);
    assert.ok(large.fileBytes > 10 * small.fileBytes, `the log grows faster than its requests (${small.fileBytes} -> ${large.fileBytes} bytes)`);
    const rowGrowth = large.view.rows.length / small.view.rows.length;
    assert.ok(rowGrowth > 3 && rowGrowth < 5, `four times the requests, about four times the rows (${small.view.rows.length} -> ${large.view.rows.length})`);
    const share = (v: { snapshotBytes: number; fileBytes: number }) => v.snapshotBytes / v.fileBytes;
    assert.ok(share(large) < share(small) / 2, `the snapshot is a shrinking share of the log (${share(small).toFixed(3)} -> ${share(large).toFixed(3)})`);
    assert.ok(large.snapshotBytes < large.fileBytes / 4, 'the large log is sent as a fraction of its bytes');
  });
});
