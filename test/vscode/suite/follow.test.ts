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
import * as vscode from 'vscode';
import { api, closeAll, codeOf, diagnosticsOf, example, openTranscript, repoPath, setSetting, waitFor, waitForDisk } from './helpers';

suite('follow a growing file', () => {
  teardown(async () => {
    await setSetting('notifyOnAbort', undefined);
    await closeAll();
  });

  test('a new aborting step raises one warning naming the file, step and rule; not for aborts already there, not twice, not when turned off', async () => {
    const { abortNotifier, inspector } = await api();
    const from = abortNotifier.shown.length;
    const noticesFor = (uri: vscode.Uri) => abortNotifier.shown.slice(from).filter((n) => n.uri.toString() === uri.toString());
    const opened = await openTranscript(example('seed-incident.trace.jsonl'));
    assert.equal(opened.session.report?.steps[0]?.decision, 'abort');

    const lines = fs.readFileSync(repoPath('examples', 'seed-incident.trace.jsonl'), 'utf8').split(/(?<=\n)/);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'prefix-lens-abort-')), 'agent.trace.jsonl');
    fs.writeFileSync(file, lines.slice(0, 2).join(''));
    const { session } = await openTranscript(file);
    fs.appendFileSync(file, lines.slice(2).join(''));
    const notice = await waitForDisk(file, 'a warning for the new abort', () => noticesFor(session.uri)[0]);
    assert.equal(notice.step, 1);
    assert.ok(notice.rules.includes('tool-result-orphaned'), notice.rules.join());
    assert.match(notice.message, /agent\.trace\.jsonl step 1 aborts: .*tool-result-orphaned/);
    assert.deepEqual(noticesFor(opened.session.uri), [], 'no warning for a file that already aborted when opened');

    await abortNotifier.open(notice);
    await waitFor('the inspector at the aborting step', () => inspector.showing.file === session.uri.fsPath && inspector.showing.step === 1);

    const version = session.reportVersion;
    fs.appendFileSync(file, '\n');
    await waitForDisk(file, 'a re-check of the grown file', () => session.reportVersion > version && session.reportVersion === session.document.version);
    assert.equal(session.report?.steps[0]?.decision, 'abort');
    assert.equal(noticesFor(session.uri).length, 1, 'the same abort is not announced again');

    await setSetting('notifyOnAbort', false);
    fs.writeFileSync(file, lines.slice(0, 2).join(''));
    await waitForDisk(file, 'the abort gone with the truncation', () => session.report?.steps.length === 0 && session.reportVersion === session.document.version);
    fs.appendFileSync(file, lines.slice(2).join(''));
    await waitForDisk(file, 'the abort back', () => session.report?.steps[0]?.decision === 'abort' && session.reportVersion === session.document.version);
    assert.equal(noticesFor(session.uri).length, 1, 'prefixLens.notifyOnAbort: false shows no warning');
  });

  test('an append on disk to an open transcript brings its diagnostic; a replaced file is checked again', async () => {
    const lines = fs.readFileSync(repoPath('examples', 'seed-incident.trace.jsonl'), 'utf8').split(/(?<=\n)/);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prefix-lens-follow-'));
    const file = path.join(dir, 'growing.trace.jsonl');
    fs.writeFileSync(file, lines.slice(0, 2).join(''));
    const { session } = await openTranscript(file);
    const uri = session.document.uri;
    assert.equal(diagnosticsOf(uri).filter((d) => codeOf(d).value === 'tool-result-orphaned').length, 0, 'nothing wrong before the rewrite');

    fs.appendFileSync(file, lines.slice(2).join(''));
    const orphan = await waitForDisk(file, 'the orphaned result after the append', () => diagnosticsOf(uri).find((d) => codeOf(d).value === 'tool-result-orphaned'));
    assert.equal(orphan.range.start.line, 4, 'on the appended line');

    fs.writeFileSync(file, fs.readFileSync(repoPath('examples', 'whole-pair-compaction.trace.jsonl'), 'utf8'));
    await waitForDisk(file, 'the replaced file checked from the start', () => {
      const codes = diagnosticsOf(uri).map((d) => codeOf(d).value);
      return codes.includes('prefix-mutated') && !codes.includes('tool-result-orphaned');
    });
  });
});
