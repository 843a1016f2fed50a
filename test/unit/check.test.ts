import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { checkAgainst, checkTranscript, UnknownFormatError } from '../../src/core/check';
import { inputFromFile } from '../../src/core/io';
import { splitLines } from '../../src/core/text';
import { assistant, call, check, result, rewrite, system, tool, trace, user, windowEvent, type Json } from '../support/trace';

const tools = [tool('search')];
const history: Json[] = [system('s'), user('q'), assistant('looking', call('c1', 'search', { q: 'x' })), result('c1', 'r'), assistant('done')];

test('a text and a streamed file give the same report, with line starts of the file', () => {
  const file = 'examples/seed-incident.trace.jsonl';
  const text = fs.readFileSync(file, 'utf8');
  const fromText = checkTranscript({ file, text }, { tokens: false });
  const fromFile = checkTranscript(inputFromFile(file), { tokens: false });
  assert.deepEqual({ ...fromFile, lineStarts: [] }, { ...fromText, lineStarts: [] });
  const starts = [...splitLines(text)].map((line) => line.offset);
  assert.deepEqual(fromFile.lineStarts, starts);
  assert.deepEqual(fromText.lineStarts.slice(0, starts.length), starts);
  assert.equal(fromText.format, 'native');
});

test('an orphan that persists across windows is reported once; one a step introduces belongs to that step', () => {
  const broken = [...history, result('ghost', '?')];
  const report = check(
    trace(
      windowEvent(tools, broken),
      rewrite('runtime', { messages: [...broken, user('more')] }),
      rewrite('compaction', { messages: [...broken.slice(0, 2), ...broken.slice(3), user('more')] }),
    ),
  );
  const orphans = report.findings.filter((f) => f.rule === 'tool-result-orphaned');
  assert.deepEqual(orphans.map((f) => [f.toolCallId, f.step]), [['ghost', undefined], ['c1', 2]]);
  assert.deepEqual(report.steps.map((s) => s.decision), ['patch', 'abort']);
  assert.ok(report.findings.every((f, i, all) => i === 0 || (all[i - 1]?.range.start ?? 0) <= f.range.start), 'sorted by position');
});

test('step reports carry the boundary, source, applied flag and range', () => {
  const text = trace(windowEvent(tools, history), rewrite('policy', { tools: [], applied: false }));
  const report = check(text, { keepRewrites: true });
  const step = report.steps[0];
  assert.equal(step?.index, 1);
  assert.equal(step?.source, 'policy');
  assert.equal(step?.applied, false);
  assert.equal(step?.decision, 'defer');
  assert.equal(step?.boundary.messages, 5);
  assert.equal(step?.range?.start, text.indexOf('{"type":"rewrite"'));
  assert.ok(step?.rewrite, 'kept with keepRewrites');
  assert.equal(report.finalWindow?.tools.length, 1, 'the unapplied rewrite did not change the final state');
});

test('tokens: the boundary in tokens, the encoding named as an approximation; false skips counting', () => {
  const text = trace(windowEvent(tools, history), rewrite('compaction', { messages: history.slice(0, 4) }));
  const counted = checkTranscript({ file: 't.jsonl', text }, { tokens: 'cl100k_base' });
  assert.deepEqual(counted.tokenizer, { encoding: 'cl100k_base', approximate: true });
  assert.ok((counted.steps[0]?.boundary.tokens ?? 0) > 0);
  assert.ok((counted.steps[0]?.cacheImpact.invalidatedTokens ?? 0) > 0);
  const skipped = check(text);
  assert.equal(skipped.tokenizer, undefined);
  assert.equal(skipped.steps[0]?.boundary.tokens, 0);
});

test('an unrecognised file throws UnknownFormatError; --format forces a reader', () => {
  assert.throws(() => checkTranscript({ file: 'x.txt', text: 'hello' }), UnknownFormatError);
  const forced = checkTranscript({ file: 'x.jsonl', text: JSON.stringify(windowEvent(tools, history)) }, { format: 'native', tokens: false });
  assert.equal(forced.format, 'native');
  assert.deepEqual(forced.findings, []);
});

test('checkAgainst: a snapshot that drops a consumed call aborts, located in NEW with related in OLD', () => {
  const oldFile = 'test/fixtures/native/snapshot-old.trace.jsonl';
  const newFile = 'test/fixtures/native/snapshot-new-broken.trace.jsonl';
  const report = checkAgainst(inputFromFile(oldFile), inputFromFile(newFile), { tokens: false });
  assert.equal(report.file, newFile);
  const step = report.steps.at(-1);
  assert.equal(step?.source, 'snapshot');
  assert.equal(step?.decision, 'abort');
  const newText = fs.readFileSync(newFile, 'utf8');
  const oldText = fs.readFileSync(oldFile, 'utf8');
  const orphan = report.findings.find((f) => f.rule === 'tool-result-orphaned');
  assert.equal(newText.slice(orphan?.range.start, orphan?.range.end), '"s1"');
  const mutated = report.findings.find((f) => f.rule === 'prefix-mutated');
  const original = mutated?.related?.[0];
  assert.equal(original?.file, oldFile);
  assert.ok(oldText.slice(original?.range.start, original?.range.end).startsWith('{"id":"s1"'), 'the dropped call block');
});

test('checkAgainst: a snapshot that only appends is a patch', () => {
  const report = checkAgainst(inputFromFile('test/fixtures/native/snapshot-old.trace.jsonl'), inputFromFile('test/fixtures/native/snapshot-new-append.trace.jsonl'), { tokens: false });
  assert.equal(report.steps.at(-1)?.decision, 'patch');
  assert.deepEqual(report.findings, []);
});
