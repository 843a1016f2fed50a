/** The one-line session texts of the status bar, the Rewrites view and the session view header. */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { checkTranscript } from '../../src/core/check';
import { inputFromFile } from '../../src/core/io';
import { isClean, pairsText, statusText } from '../../src/shared/session-text';
import { CORPUS } from '../support/corpus';

const check = (file: string) => checkTranscript(inputFromFile(path.join(CORPUS, file)), { tokens: false });

describe('session texts', () => {
  it('a clean Claude Code session says it is clean', () => {
    const report = check('claude-code/spotter_tool_heavy.jsonl');
    assert.equal(statusText(report.session!), 'claude-code · 0 rewrites · 6 pairs ✓');
    assert.equal(isClean(report.session!, report.findings.filter((f) => f.severity !== 'info').length), true);
  });

  it('a compaction that breaks the prefix is counted, and the file is not clean', () => {
    const report = check('claude-code/spotter_4d5611e5-241a-462a-8d15-5122611a9569.excerpt-L742-L790.jsonl');
    assert.equal(statusText(report.session!), 'claude-code · 1 rewrite (1 defer) · 3 pairs ✓');
    assert.equal(isClean(report.session!, 1), false);
  });

  it('pending and orphaned pairs are named', () => {
    assert.equal(pairsText({ paired: 5, pending: 1, orphaned: 0 }), '5 pairs · 1 pending');
    assert.equal(pairsText({ paired: 1, pending: 0, orphaned: 2 }), '1 pair · 2 orphaned');
  });
});
