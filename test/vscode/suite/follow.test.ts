/// <reference types="mocha" />
/**
 * Following a transcript that grows on disk while it is open (an agent
 * appending to its session file): the diagnostics follow each append, and a
 * file replaced on disk is checked again from the start.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { closeAll, codeOf, diagnosticsOf, openTranscript, repoPath, waitFor } from './helpers';

suite('follow a growing file', () => {
  teardown(closeAll);

  test('an append on disk to an open transcript brings its diagnostic; a replaced file is checked again', async () => {
    const lines = fs.readFileSync(repoPath('examples', 'seed-incident.trace.jsonl'), 'utf8').split(/(?<=\n)/);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prefix-lens-follow-'));
    const file = path.join(dir, 'growing.trace.jsonl');
    fs.writeFileSync(file, lines.slice(0, 2).join(''));
    const { session } = await openTranscript(file);
    const uri = session.document.uri;
    assert.equal(diagnosticsOf(uri).filter((d) => codeOf(d).value === 'tool-result-orphaned').length, 0, 'nothing wrong before the rewrite');

    fs.appendFileSync(file, lines.slice(2).join(''));
    const orphan = await waitFor('the orphaned result after the append', () => diagnosticsOf(uri).find((d) => codeOf(d).value === 'tool-result-orphaned'));
    assert.equal(orphan.range.start.line, 4, 'on the appended line');

    fs.writeFileSync(file, fs.readFileSync(repoPath('examples', 'whole-pair-compaction.trace.jsonl'), 'utf8'));
    await waitFor('the replaced file checked from the start', () => {
      const codes = diagnosticsOf(uri).map((d) => codeOf(d).value);
      return codes.includes('prefix-mutated') && !codes.includes('tool-result-orphaned');
    });
  });
});
