/**
 * A log an agent is still writing ends in a half-written line with no line
 * end. Every JSONL reader reports such a last line as incomplete (info), never
 * an `invalid-json` error, and reads it once it completes; a broken line that
 * does have its line end stays an error. Read both from memory and streamed
 * from a file (the chunked line splitter).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { checkTranscript } from '../../src/core/check';
import { inputFromFile, inputFromText } from '../../src/core/io';
import { corpus, fileText, fixture } from './wild-helpers';

const OPTIONS = { tokens: false } as const;
const SAMPLES = [
  { format: 'native', file: path.join(__dirname, '..', 'fixtures', 'cli', 'clean.trace.jsonl') },
  { format: 'claude-code', file: corpus('claude-code', 'spotter_tool_heavy.jsonl') },
  { format: 'codex', file: corpus('codex', 'localpush_rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl') },
  { format: 'anthropic', file: corpus('anthropic-messages', 'pydanticai_test_anthropic_mixed_strict_tool_run.requests.jsonl') },
  { format: 'gemini', file: fixture('gemini', 'parallel-calls.requests.jsonl') },
];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prefix-lens-incomplete-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The file with its last line cut in half and no line end after it. */
function halfWritten(text: string): { text: string; lastLine: number } {
  const lines = text.replace(/\n+$/, '').split('\n');
  const last = lines[lines.length - 1]!;
  return { text: [...lines.slice(0, -1), last.slice(0, Math.floor(last.length / 2))].join('\n'), lastLine: lines.length };
}

describe('a half-written last line', () => {
  for (const { format, file } of SAMPLES) {
    it(`${format}: is info "incomplete" on that line, never an error, in memory and streamed from a file`, () => {
      const { text, lastLine } = halfWritten(fileText(file));
      const streamed = path.join(dir, `${format}.jsonl`);
      fs.writeFileSync(streamed, text);
      for (const input of [inputFromText(`${format}.jsonl`, text), inputFromFile(streamed)]) {
        const report = checkTranscript(input, { ...OPTIONS, format: format as never });
        const invalid = report.findings.filter((f) => f.rule === 'invalid-json');
        assert.equal(invalid.length, 1, JSON.stringify(report.findings.map((f) => f.message)));
        assert.equal(invalid[0]!.severity, 'info');
        assert.match(invalid[0]!.message, new RegExp(`^Line ${lastLine} is incomplete: the last line has no line end yet`));
        assert.equal(text.slice(0, invalid[0]!.range.start).split('\n').length, lastLine);
        assert.ok(!report.findings.some((f) => f.severity === 'error'), 'no error');
      }
    });

    it(`${format}: the same broken line followed by a line end is an invalid-json error`, () => {
      const { text } = halfWritten(fileText(file));
      const report = checkTranscript(inputFromText(`${format}.jsonl`, `${text}\n`), { ...OPTIONS, format: format as never });
      assert.deepEqual(report.findings.filter((f) => f.rule === 'invalid-json').map((f) => f.severity), ['error']);
    });
  }

  it('once the line completes it is read: the finished file has no invalid-json at all', () => {
    for (const { format, file } of SAMPLES) {
      const report = checkTranscript(inputFromText(`${format}.jsonl`, fileText(file).replace(/\n+$/, '')), { ...OPTIONS, format: format as never });
      assert.ok(!report.findings.some((f) => f.rule === 'invalid-json'), format);
    }
  });
});
