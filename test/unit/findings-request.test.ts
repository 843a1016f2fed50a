/**
 * The first diagnostics of a large file come from a check of its findings
 * alone (extension/engine.ts `findingsRequest`, in a worker as its tab opens),
 * then the editor's check with the windows and the token counts replaces them:
 * both must show the same findings, or the diagnostics change (or are
 * published twice) as the document comes. The findings check counts no tokens:
 * the findings never depend on the counts.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { generateLog, type LogFormat } from '../../bench/generate';
import { checkRequest, findingsRequest, type Report } from '../../src/extension/engine';
import { CORPUS } from '../support/corpus';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prefix-lens-findings-request-'));

/** Every text file of the corpus (an Inspect `.eval` is a zip, checked by another request). */
function corpusFiles(): string[] {
  const walk = (d: string): string[] => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
  return walk(CORPUS).filter((f) => /\.(jsonl|json)$/.test(f));
}

/** A generated request log with one earlier answer changed, so it has findings. */
function changedLog(format: LogFormat): string {
  const file = path.join(dir, `${format}.jsonl`);
  generateLog(file, { requests: 40, bytesPerTurn: 200, seed: 7, format });
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  lines[20] = lines[20]!.replace(/"text":"(\w)/, (_, c: string) => `"text":"${c.toUpperCase() === c ? c.toLowerCase() : c.toUpperCase()}`);
  fs.writeFileSync(file, lines.join('\n'));
  return file;
}

const findingsOf = (report: Report) => report.findings.map((f) => JSON.stringify(f));

describe('the findings check of a file (the first diagnostics of a large one)', () => {
  it('counts no tokens and keeps no windows', () => {
    const request = findingsRequest('/x.jsonl', 10, {});
    assert.equal(request.tokens, false);
    assert.equal(request.keepRewrites, false);
  });

  it('gives exactly the findings of the editor\'s check with token counts, on the corpus and on request logs of each provider', () => {
    const files = [...corpusFiles(), ...(['anthropic', 'openai-chat', 'openai-responses'] as const).map(changedLog)];
    let withFindings = 0;
    for (const file of files) {
      const text = fs.readFileSync(file, 'utf8');
      if (text.includes('\uFFFD')) continue;
      const first = checkRequest(findingsRequest(file, Buffer.byteLength(text), {}));
      const editor = checkRequest({ kind: 'transcript', file, text, tokens: 'o200k_base', limits: {} });
      assert.deepEqual(findingsOf(first), findingsOf(editor), file);
      if (editor.findings.length > 0) withFindings++;
    }
    assert.ok(files.length > 20 && withFindings >= 10, `${files.length} files, ${withFindings} with findings`);
  });
});
