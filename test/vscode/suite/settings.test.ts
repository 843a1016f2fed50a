/// <reference types="mocha" />
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { Report } from '../../../src/core/results';
import { api, closeAll, codeOf, diagnosticsOf, example, fixture, openTranscript, setSetting, waitFor } from './helpers';

suite('settings', () => {
  teardown(async () => {
    const limits = ['maxFileBytes', 'maxLineChars', 'maxFindingsPerRule'].map((k) => `limits.${k}`);
    for (const key of ['severity', 'tokenizer', 'workerThresholdBytes', 'include', ...limits]) await setSetting(key, undefined);
    await closeAll();
  });

  test('a severity override changes the diagnostic; "off" hides it; the decision stays', async () => {
    const { session } = await openTranscript(example('seed-incident.trace.jsonl'));
    const orphan = () => diagnosticsOf(session.uri).find((d) => codeOf(d).value === 'tool-result-orphaned');
    await waitFor('error', () => orphan()?.severity === vscode.DiagnosticSeverity.Error);
    await setSetting('severity', { 'tool-result-orphaned': 'hint' });
    await waitFor('hint', () => orphan()?.severity === vscode.DiagnosticSeverity.Hint);
    await setSetting('severity', { 'tool-result-orphaned': 'off' });
    await waitFor('hidden', () => orphan() === undefined && diagnosticsOf(session.uri).length > 0);
    assert.equal(session.report?.steps[0]?.decision, 'abort');
  });

  test('a re-check that finds nothing new publishes no second report (the CodeLens is not rendered again)', async () => {
    const { session } = await openTranscript(example('seed-incident.trace.jsonl'));
    const { sessions, checker } = await api();
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', session.uri);
    let updates = 0;
    const counting = sessions.onDidUpdate((s) => s === session && updates++);
    const follow = checker.follow;
    const checks: Promise<unknown>[] = [];
    checker.follow = (...args) => {
      const check = follow.apply(checker, args);
      checks.push(check);
      return check;
    };
    try {
      // A checking setting whose new value changes nothing for this small file: it is checked again, and reads nothing new.
      await setSetting('workerThresholdBytes', 3 * 1024 * 1024);
      await waitFor('the re-check', () => checks.length > 0);
      await Promise.all(checks);
      await new Promise((r) => setImmediate(r));
      assert.equal(updates, 0, 'the same report was published again');
      const again = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', session.uri);
      assert.deepEqual(again.map((l) => l.command?.title), lenses.map((l) => l.command?.title));
    } finally {
      checker.follow = follow;
      counting.dispose();
    }
  });

  test('the tokenizer setting changes the token counts (off = none)', async () => {
    const { session } = await openTranscript(example('seed-incident.trace.jsonl'));
    const counted = session.report?.steps[0]?.boundary.tokens ?? 0;
    assert.ok(counted > 0);
    await setSetting('tokenizer', 'off');
    await waitFor('no token counts', () => session.report?.steps[0]?.boundary.tokens === 0);
    assert.equal(session.report?.tokenizer, undefined);
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', session.uri);
    assert.ok(lenses.some((l) => l.command?.title.startsWith('Step 1/1 · ABORT')));
    assert.ok(lenses.every((l) => !l.command?.title.includes('cache −')));
    await setSetting('tokenizer', 'cl100k_base');
    await waitFor('cl100k counts', () => session.report?.tokenizer?.encoding === 'cl100k_base');
  });

  test('an open transcript over the threshold is read in slices between other work with the same result; a comparison over it runs in a worker', async () => {
    const { session } = await openTranscript(example('seed-incident.trace.jsonl'));
    const { checker, sessions } = await api();
    await setSetting('tokenizer', 'off'); // keeps the worker's start-up light on a busy machine
    await waitFor('an inline check without tokens', () => session.report?.tokenizer === undefined && session.report);
    const inline = session.report;
    const sliced = checker.stats.sliced;
    await setSetting('workerThresholdBytes', 0);
    await waitFor('a check in slices', () => checker.stats.sliced > sliced && sessions.get(session.uri)?.report !== inline);
    assert.deepEqual(session.report?.findings, inline?.findings);
    assert.deepEqual(
      session.report?.steps.map((s) => [s.decision, s.rules]),
      inline?.steps.map((s) => [s.decision, s.rules]),
    );
    // "Compare with…" goes through the same Checker: over the threshold, in a worker too.
    const before = await openTranscript(fixture('compare-before.json'));
    const after = await openTranscript(fixture('compare-after.json'));
    const compareWorkers = checker.stats.worker;
    const compared = await vscode.commands.executeCommand<Report>('prefixLens.compareWith', before.session.uri, after.session.uri);
    assert.equal(compared?.steps[0]?.decision, 'abort');
    assert.equal(checker.stats.worker, compareWorkers + 1, 'the comparison ran in a worker');
  });

  test('prefixLens.limits.* bound a check, inline and in slices: a file over a limit shows the reason as an error and never looks clean', async () => {
    const { session } = await openTranscript(example('seed-incident.trace.jsonl'));
    const { checker } = await api();
    const stopped = () => session.report?.stopped;
    const skipped = (limit: string) => diagnosticsOf(session.uri).find((d) => codeOf(d).value === 'record-skipped' && d.message.includes(limit));
    assert.equal(stopped(), undefined);
    assert.equal(skipped(''), undefined);

    await setSetting('limits.maxLineChars', 40);
    const long = await waitFor('reading stopped at a long line', () => skipped('maxLineChars'));
    assert.equal(long.severity, vscode.DiagnosticSeverity.Error);
    assert.match(stopped()?.reason ?? '', /^line \d+ is longer than the maxLineChars limit \(40 characters\)$/);
    assert.equal(long.message.split('\n').length, 1, 'one line');

    await setSetting('limits.maxLineChars', undefined);
    await waitFor('read to its end again', () => session.report && !stopped() && !skipped(''));
    assert.equal(session.report?.steps[0]?.decision, 'abort');

    await setSetting('limits.maxFindingsPerRule', 0);
    await waitFor('the orphan counted, not listed', () =>
      diagnosticsOf(session.uri).find((d) => codeOf(d).value === 'tool-result-orphaned' && /\d more tool-result-orphaned findings not listed: above the limit of 0 per rule/.test(d.message)),
    );

    const sliced = checker.stats.sliced;
    await setSetting('workerThresholdBytes', 0);
    await setSetting('limits.maxFileBytes', 100);
    const large = await waitFor('reading stopped at the size limit', () => skipped('maxFileBytes'));
    assert.equal(large.severity, vscode.DiagnosticSeverity.Error);
    assert.ok(checker.stats.sliced > sliced, 'read in slices');
    assert.equal(stopped()?.reason, 'the file is larger than the maxFileBytes limit (100 bytes)');
  });

  test('prefixLens.include adds files by glob, still only when the content is a transcript', async () => {
    const document = await vscode.workspace.openTextDocument(fixture('seed-copy.trace.log'));
    await vscode.window.showTextDocument(document);
    const { sessions } = await api();
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(sessions.get(document.uri), undefined, 'a .log file is not a candidate by default');
    await setSetting('include', ['**/*.log']);
    await waitFor('a session for the included file', () => sessions.get(document.uri)?.report);
    assert.ok(diagnosticsOf(document.uri).length > 0);
    await setSetting('include', undefined);
    await waitFor('dropped again', () => sessions.get(document.uri) === undefined && diagnosticsOf(document.uri).length === 0);
  });
});
