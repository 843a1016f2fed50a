/**
 * Gemini CLI chat sessions: the real recordings in ../shared/corpus/gemini-cli
 * (read in place) and our own fixtures reproducing the shapes around them
 * (a call still running, a lost result, id-less calls, an error result).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { checkTranscript } from '../../src/core/check';
import { geminiCliAdapter } from '../../src/core/formats/gemini-cli';
import { detectFormat } from '../../src/core/formats/registry';
import { headOf, inputFromFile } from '../../src/core/io';
import { POSITIONAL_ID, toolPairs, type ToolCall, type ToolResult } from '../../src/core/model';
import { fixture, readWith, textAt, textOf, unpaired } from './wild-helpers';
import { CORPUS } from '../support/corpus';

const REAL = path.join(CORPUS, 'gemini-cli', 'codemie_session-2025-12-01T21-45-5b959dae.json');
const REAL_OPS = path.join(CORPUS, 'gemini-cli', 'codemie_session-2026-01-16T11-01-file-ops-37b7abef.json');
const PENDING = fixture('gemini-cli', 'pending-call.json');
const LOST = fixture('gemini-cli', 'lost-result.json');
const IDLESS = fixture('gemini-cli', 'idless-and-error.json');

const calls = (file: string) => readWith(geminiCliAdapter, file).final.messages.flatMap((m) => m.blocks.filter((b): b is ToolCall => b.kind === 'tool_call'));
const results = (file: string) => readWith(geminiCliAdapter, file).final.messages.flatMap((m) => m.blocks.filter((b): b is ToolResult => b.kind === 'tool_result'));

describe('gemini-cli: the real recordings', () => {
  for (const [file, count] of [[REAL, 10], [REAL_OPS, 14]] as const) {
    const name = path.basename(file);
    it(`${name}: detected by content, ${count} calls each answered, clean`, () => {
      assert.equal(detectFormat(headOf(inputFromFile(file)))?.id, 'gemini-cli');
      const { final } = readWith(geminiCliAdapter, file);
      assert.equal(final.format, 'gemini-cli');
      assert.equal(final.live, true);
      assert.equal(calls(file).length, count);
      assert.deepEqual(unpaired(final), { calls: [], results: [] });
      const report = checkTranscript(inputFromFile(file), { tokens: false });
      assert.deepEqual(report.findings, []);
      assert.deepEqual(report.steps, []);
    });
  }

  it('rebuilds the turns as Gemini CLI resumes them: model turn with the calls, then one user turn with every response', () => {
    const { final } = readWith(geminiCliAdapter, REAL);
    // 3 user + 11 gemini records; the 8 gemini records with calls each add a user turn of responses.
    assert.equal(final.messages.length, 3 + 11 + 8);
    const three = final.messages.findIndex((m) => m.blocks.filter((b) => b.kind === 'tool_call').length === 3);
    assert.ok(three > 0);
    const next = final.messages[three + 1]!;
    assert.equal(next.role, 'user');
    assert.deepEqual(
      next.blocks.map((b) => (b.kind === 'tool_result' ? b.callId : '')),
      final.messages[three]!.blocks.flatMap((b) => (b.kind === 'tool_call' ? [b.id] : [])),
    );
    assert.equal(textOf(final.messages[0]), 'hi');
    assert.equal(final.boundary, final.messages.length, 'the session ends on a model answer: everything consumed');
  });

  it('points at the exact bytes: the call id, the response id, the call object', () => {
    const call = calls(REAL)[0]!;
    assert.equal(textAt(REAL, call.idSource), '"list_directory-1764625554423-6b5d2c6179cc4"');
    assert.ok(textAt(REAL, call.source).startsWith('{\n          "id": "list_directory-'));
    const result = results(REAL)[0]!;
    assert.equal(textAt(REAL, result.idSource), '"list_directory-1764625554423-6b5d2c6179cc4"');
    assert.ok(result.idSource!.start > call.idSource!.end, 'the functionResponse id, not the call id');
    assert.ok(textAt(REAL, result.source).includes('"functionResponse"'));
  });

  it('the 9-call message of the file-ops session is one model turn answered by one turn of 9 responses', () => {
    const { final } = readWith(geminiCliAdapter, REAL_OPS);
    const nine = final.messages.findIndex((m) => m.blocks.filter((b) => b.kind === 'tool_call').length === 9);
    assert.ok(nine > 0);
    assert.equal(final.messages[nine + 1]!.blocks.filter((b) => b.kind === 'tool_result').length, 9);
  });
});

describe('gemini-cli: shapes around the real files (our fixtures)', () => {
  it('a call still running at the end of the session is pending, not an orphan; commands and info lines are not context', () => {
    const { final, findings } = readWith(geminiCliAdapter, PENDING);
    assert.deepEqual(findings, []);
    assert.deepEqual(unpaired(final).calls, ['read_file-1767348010000-c3d4']);
    assert.ok(!final.messages.some((m) => textOf(m).startsWith('/model') || textOf(m).includes('Model set')));
    assert.equal(textOf(final.messages[0]), 'List the repo');
    const report = checkTranscript(inputFromFile(PENDING), { tokens: false });
    assert.deepEqual(report.findings, []);
  });

  it('a call that never got its result while the session went on is an error orphan, located at its id; an unknown record is skipped as info', () => {
    const report = checkTranscript(inputFromFile(LOST), { tokens: false });
    const orphan = report.findings.find((f) => f.rule === 'tool-use-orphaned');
    assert.equal(orphan?.severity, 'error');
    assert.equal(orphan?.toolCallId, 'read_file-1767348005001-bbbb');
    assert.equal(textAt(LOST, orphan!.range), '"read_file-1767348005001-bbbb"');
    const mismatch = report.findings.find((f) => f.rule === 'tool-result-misplaced');
    assert.match(mismatch?.message ?? '', /^messages\[1\] makes 2 functionCall part\(s\) but messages\[1\]\.toolCalls\[\]\.result answers with 1 functionResponse/);
    const skippedRecord = report.findings.find((f) => f.rule === 'record-skipped');
    assert.equal(skippedRecord?.severity, 'info');
    assert.match(textAt(LOST, skippedRecord!.range), /"type": "compression"/);
  });

  it('id-less calls get their position as id (never ""), and the response recorded under a call answers it; an error status stays an error result', () => {
    const window = readWith(geminiCliAdapter, IDLESS).final;
    assert.deepEqual(
      calls(IDLESS).map((c) => c.id),
      [`${POSITIONAL_ID}messages[1].toolCalls[0]`, `${POSITIONAL_ID}messages[1].toolCalls[1]`],
    );
    assert.deepEqual(
      results(IDLESS).map((r) => [r.callId, r.isError === true]),
      [
        [`${POSITIONAL_ID}messages[1].toolCalls[0]`, true],
        [`${POSITIONAL_ID}messages[1].toolCalls[1]`, false],
      ],
    );
    assert.deepEqual(unpaired(window), { calls: [], results: [] });
    assert.equal(toolPairs(window).size, 2);
    assert.deepEqual(checkTranscript(inputFromFile(IDLESS), { tokens: false }).findings, []);
  });

  it('a damaged session is an invalid-json finding, never a crash', () => {
    const text = fs.readFileSync(REAL, 'utf8').slice(0, 5000);
    const report = checkTranscript({ file: 'cut.json', text }, { tokens: false, format: 'gemini-cli' });
    assert.deepEqual(report.findings.map((f) => f.rule), ['invalid-json']);
  });

  it('the sniff takes Gemini CLI sessions only', () => {
    assert.equal(geminiCliAdapter.sniff('{"sessionId":"s","projectHash":"p","messages":[{"id":"a","type":"user","content":"hi"}]}'), true);
    assert.equal(geminiCliAdapter.sniff('{"messages":[{"role":"user","content":"hi"}]}'), false);
    assert.equal(geminiCliAdapter.sniff('{"sessionId":"s","messages":[{"type":"user","content":"hi"}]}'), false);
  });
});
