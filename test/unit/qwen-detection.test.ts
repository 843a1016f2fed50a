/**
 * Qwen Code sessions (a Claude-Code-like envelope around Gemini-style `parts`)
 * were sniffed as Claude Code, whose reader sees none of their
 * functionCall/functionResponse parts: a vacuous, clean-looking check. No real
 * Qwen Code session is published that we could build a reader from, so such a
 * file is refused by name; read as Claude Code on request, it says what it
 * cannot see. The fixture is ours, reproducing the shape.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { recognise } from '../../src/cli/files';
import { checkTranscript, UnknownFormatError } from '../../src/core/check';
import { claudeCodeAdapter } from '../../src/core/formats/claude-code';
import { detectFormat, unreadFormat } from '../../src/core/formats/registry';
import { inputFromFile } from '../../src/core/io';
import { fileText, fixture } from './wild-helpers';

const QWEN = fixture('qwen', 'gemini-parts-envelope.jsonl');

describe('qwen: a Claude-Code-like envelope around Gemini parts', () => {
  it('is not sniffed as Claude Code (nor as any other format)', () => {
    const head = fileText(QWEN);
    assert.equal(claudeCodeAdapter.sniff(head), false);
    assert.equal(detectFormat(head), undefined);
  });

  it('is refused by name: the engine and the CLI say it looks like Qwen Code', () => {
    assert.match(unreadFormat(fileText(QWEN)) ?? '', /^Qwen Code session JSONL/);
    assert.throws(
      () => checkTranscript(inputFromFile(QWEN), { tokens: false }),
      (error: unknown) => error instanceof UnknownFormatError && /looks like Qwen Code session JSONL/.test(error.message),
    );
    const recognition = recognise(QWEN);
    assert.equal(recognition.kind, 'unknown');
    assert.match(recognition.kind === 'unknown' ? (recognition.unread ?? '') : '', /Qwen Code/);
  });

  it('read as Claude Code on request, it never looks clean: an info finding counts what the reader cannot see, at the first line', () => {
    const report = checkTranscript(inputFromFile(QWEN), { tokens: false, format: 'claude-code' });
    // One finding for one cause: the tool_result line (parts instead of content) is not said again as an unknown record type.
    assert.equal(report.findings.length, 1, JSON.stringify(report.findings));
    const unseen = report.findings[0]!;
    assert.match(unseen.message, /Gemini-style `parts`/);
    assert.equal(unseen.rule, 'record-skipped');
    assert.equal(unseen.severity, 'info');
    assert.match(unseen.message, /^4 message line\(s\) .*\(2 functionCall\/functionResponse part\(s\).*\(first at line 1\)$/);
    assert.equal(unseen.range.start, 0);
  });

  it('a Claude Code line whose tool input has a "parts" key is still Claude Code', () => {
    const line = JSON.stringify({
      parentUuid: null,
      sessionId: 's',
      type: 'assistant',
      uuid: 'a',
      message: { id: 'msg_1', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'edit', input: { parts: ['a'] } }] },
    });
    assert.equal(detectFormat(line)?.id, 'claude-code');
    const report = checkTranscript({ file: 'cc.jsonl', text: line }, { tokens: false });
    assert.ok(!report.findings.some((f) => /Gemini-style/.test(f.message)));
  });
});
