/**
 * The cache rows of a followed file's summaries (core/session.ts `SummaryMemo`):
 * a summary that goes on from the last one's records and steps takes its rows
 * as they were and makes only the new ones, and the rows with a step again;
 * a new step between earlier records makes them all again. Each summary
 * equals one made without the memo.
 */
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { finding, type Finding } from '../../src/core/findings';
import type { StepReport } from '../../src/core/results';
import { MessageTally, sessionSummary, SummaryMemo, type SessionSummary } from '../../src/core/session';
import type { UsageRecord } from '../../src/core/usage';

/** Request `i` on line `i` (100 characters a line), its cache read dropping at the third. */
const usage: UsageRecord[] = [0, 1, 2, 3, 4].map((i) => ({
  offset: i * 100,
  end: i * 100 + 99,
  thread: 'main',
  style: 'anthropic',
  promptTokens: 5000 + i * 100,
  cacheRead: i === 2 ? 0 : 4000 + i * 100,
  cacheWrite: 100,
}));

/** A compaction on line `line`, which consumed and invalidated the cached prefix. */
const step = (index: number, line: number) =>
  ({ index, decision: 'patch', source: 'compaction', applied: true, rules: [], range: { start: line * 100 + 10, end: line * 100 + 20 }, cacheImpact: { consumedTokens: 4000, invalidatedTokens: 4000 } }) as unknown as StepReport;

function summary(records: readonly UsageRecord[], steps: readonly StepReport[], memo?: SummaryMemo, findings: readonly Finding[] = []): SessionSummary {
  return sessionSummary({ format: 'claude-code', threads: [], tally: new MessageTally(), steps, findings, facts: { usage: records }, ...(memo && { memo }) });
}

describe('the cache rows of a followed file', () => {
  it('go on from the last summary: only the new rows are made, each summary as one made whole', () => {
    const memo = new SummaryMemo();
    const lookups = mock.method(memo.rows, 'get');
    const steps = [step(1, 2)];
    const first = summary(usage.slice(0, 3), steps, memo);
    assert.deepEqual(first, summary(usage.slice(0, 3), steps));
    assert.equal(first.cache[2]!.predicted.step, 1, 'the step explains the third row');
    lookups.mock.resetCalls();
    // A finding of the step came since: the row it explains says it.
    const findings = [{ ...finding('prefix-mutated', { start: 215, end: 218 }, 'split'), step: 1 }];
    const next = summary(usage.slice(0, 5), steps, memo, findings);
    assert.deepEqual(next, summary(usage.slice(0, 5), steps, undefined, findings));
    assert.equal(next.cache[2]!.rule, 'prefix-mutated');
    assert.equal(lookups.mock.callCount(), 2, 'the two new rows only');
    assert.ok(next.cache[0] === first.cache[0] && next.cache[1] === first.cache[1], 'rows without a step taken as they were');
  });

  it('a new step between earlier records makes every row again', () => {
    const memo = new SummaryMemo();
    summary(usage.slice(0, 4), [], memo);
    const lookups = mock.method(memo.rows, 'get');
    const steps = [step(1, 2)];
    const next = summary(usage.slice(0, 5), steps, memo);
    assert.deepEqual(next, summary(usage.slice(0, 5), steps));
    assert.equal(next.cache[2]!.predicted.step, 1);
    assert.equal(lookups.mock.callCount(), 5);
  });
});
