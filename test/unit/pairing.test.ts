/**
 * Pair states and related locations come from the engine (src/core/pairing.ts),
 * the one binary search is src/shared/search.ts, and the extension reaches the
 * engine only through src/extension/engine.ts.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { checkTranscript, pairStates, relatedLocations } from '../../src/core';
import { partitionPoint } from '../../src/shared/search';
import { call, msg, result, text, win } from '../fixtures/inspector/reports';

const ROOT = join(__dirname, '..', '..');

test('pair states: paired, pending at a live frontier, orphaned call, orphaned result', () => {
  const messages = [
    msg('user', text('go')),
    msg('assistant', call('a', 'query')),
    msg('tool', result('a', 'ok'), result('ghost', 'no call')),
    msg('assistant', call('lost', 'query')),
    msg('user', text('and?')),
    msg('assistant', call('waiting', 'query')),
  ];
  const live = pairStates(win([], messages, 0));
  assert.deepEqual(Object.fromEntries(live), { a: 'paired', ghost: 'orphan-result', lost: 'orphan-call', waiting: 'pending' });
  const request = pairStates(win([], messages, 0, false));
  assert.equal(request.get('waiting'), 'orphan-call', 'a request body is not live: nothing is pending');
  const empty = pairStates(win([], [msg('assistant', call('', 'query')), msg('tool', result('', 'ok')), msg('assistant', text('moved on'))], 0));
  assert.deepEqual([...empty.values()], ['orphan-call', 'orphan-result'], 'an empty id pairs with nothing');
});

test('the orphan rules report exactly the orphaned states', () => {
  const file = join(ROOT, 'examples', 'seed-incident.trace.jsonl');
  const report = checkTranscript({ file, text: readFileSync(file, 'utf8') }, { keepRewrites: true });
  const orphan = report.findings.find((f) => f.rule === 'tool-result-orphaned');
  assert.ok(orphan?.toolCallId);
  assert.equal(pairStates(report.steps[0]!.rewrite!.after).get(orphan.toolCallId), 'orphan-result');
  const related = relatedLocations(orphan, report);
  const partner = related.find((r) => r.message === 'the call, before the rewrite dropped it');
  assert.ok(partner, 'the dropped call, as it was before the rewrite');
  const callId = readFileSync(file, 'utf8').slice(partner.range.start, partner.range.end);
  assert.equal(callId, '"toolu_01"');
  assert.deepEqual(relatedLocations({ ...orphan, step: undefined }, report), [...(orphan.related ?? [])], 'window-level: own locations only');
});

test('partitionPoint: the first index where the predicate fails', () => {
  const sorted = [0, 10, 10, 20, 30];
  assert.equal(partitionPoint(sorted.length, (i) => sorted[i]! < 10), 1);
  assert.equal(partitionPoint(sorted.length, (i) => sorted[i]! <= 10), 3);
  assert.equal(partitionPoint(sorted.length, (i) => sorted[i]! <= 99), 5);
  assert.equal(partitionPoint(0, () => true), 0);
});

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

test('the extension reaches the engine only through extension/engine.ts', () => {
  const offenders = sources(join(ROOT, 'src', 'extension'))
    .filter((f) => !f.endsWith(join('extension', 'engine.ts')))
    .filter((f) => /from '(\.\.\/)+core[/']/.test(readFileSync(f, 'utf8')))
    .map((f) => relative(ROOT, f));
  assert.deepEqual(offenders, []);
});
