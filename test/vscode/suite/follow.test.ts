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

    fs.appendFileSync(file, lines.slice(2, 4).join(''));
    await waitForDisk(file, 'the first append checked', () => session.document.lineCount > 4 && session.reportVersion === session.document.version);
    // One line appended: its finding is placed on it (by the report's line starts while the document has not reloaded yet).
    fs.appendFileSync(file, lines[4]!);
    const orphan = await waitForDisk(file, 'the orphaned result after the append', () => diagnosticsOf(uri).find((d) => codeOf(d).value === 'tool-result-orphaned'));
    assert.deepEqual([orphan.range.start.line, orphan.range.start.character], [4, 444], 'on the appended line, at the result');

    fs.writeFileSync(file, fs.readFileSync(repoPath('examples', 'whole-pair-compaction.trace.jsonl'), 'utf8'));
    await waitForDisk(file, 'the replaced file checked from the start', () => {
      const codes = diagnosticsOf(uri).map((d) => codeOf(d).value);
      return codes.includes('prefix-mutated') && !codes.includes('tool-result-orphaned');
    });
  });

  test('a real Claude Code session growing line by line: each append read on its own (only the new lines, from the file before the editor reloads it), the diagnostics those of a full check', async () => {
    const { checker, sessions } = await api();
    // A session with a finding (a compaction's prefix-mutated), so "the diagnostics of a full check" is not an empty list.
    const real = path.join(repoPath(), '..', 'shared', 'corpus', 'claude-code', 'spotter_258c7280-ae70-4798-800f-63464d01a85d.excerpt-L1236-L1278.jsonl');
    const lines = fs.readFileSync(real, 'utf8').split(/(?<=\n)/);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'prefix-lens-grow-')), 'session.jsonl');
    fs.writeFileSync(file, lines.slice(0, 10).join(''));
    const { session } = await openTranscript(file);
    // The first append may wait for VS Code's watcher of the file (waitForDisk); the next ones are timed.
    fs.appendFileSync(file, lines.slice(10, 12).join(''));
    await waitForDisk(file, 'the first append checked', () => session.document.lineCount > 12 && session.reportVersion === session.document.version);
    // Per append: the diagnostics of the new lines published (the report read from the file), VS Code's reload of the document seen, its check done.
    const latencies: { diagnosed: number; seen: number; checked: number }[] = [];
    for (let n = 12; n < lines.length; n++) {
      const followed = checker.stats.followed;
      const version = session.document.version;
      const start = performance.now();
      let [seen, diagnosed] = [0, 0];
      const listeners = [
        vscode.workspace.onDidChangeTextDocument((e) => e.document === session.document && (seen ||= performance.now())),
        sessions.onDidUpdate((s) => s === session && (s.report?.lineStarts.length ?? 0) >= n + 1 && (diagnosed ||= performance.now())),
      ];
      fs.appendFileSync(file, lines[n]!);
      await waitForDisk(file, `line ${n + 1} checked`, () => session.document.version > version && session.reportVersion === session.document.version && Buffer.byteLength(session.document.getText()) === fs.statSync(file).size);
      listeners.forEach((l) => l.dispose());
      latencies.push({ diagnosed: diagnosed - start, seen: seen - start, checked: performance.now() - start });
      assert.ok(diagnosed > 0, `the report of line ${n + 1} was published`);
      assert.ok(checker.stats.followed > followed, `the append of line ${n + 1} was read on its own`);
    }
    assert.ok(latencies.some((l) => l.diagnosed < l.seen), `appends are read from the file before VS Code reloads the document: ${JSON.stringify(latencies.map((l) => [Math.round(l.diagnosed), Math.round(l.seen)]))}`);
    const grown = diagnosticsOf(session.uri).map((d) => `${codeOf(d).value}@${d.range.start.line}:${d.range.start.character}`).sort();
    assert.ok(grown.some((d) => d.startsWith('prefix-mutated@')), `the compaction's finding is there after the appends: ${grown.join(', ')}`);
    await closeAll();
    const fresh = await openTranscript(file);
    assert.deepEqual(diagnosticsOf(fresh.session.uri).map((d) => `${codeOf(d).value}@${d.range.start.line}:${d.range.start.character}`).sort(), grown, 'as a full check of the same file');
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? NaN;
    const stat = (of: (l: (typeof latencies)[number]) => number) => `${median(latencies.map(of)).toFixed(0)} / ${Math.max(...latencies.map(of)).toFixed(0)}`;
    console.log(`follow latency over ${latencies.length} appends (ms, median / max): diagnostics updated ${stat((l) => l.diagnosed)}, VS Code's reload seen ${stat((l) => l.seen)}, reloaded document checked ${stat((l) => l.checked)}`);
  });
});
