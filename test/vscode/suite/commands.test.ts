/// <reference types="mocha" />
import * as assert from 'node:assert/strict';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Report } from '../../../src/core/results';
import { closeAll, codeOf, example, fixture, openTranscript, repoPath, waitFor } from './helpers';

suite('compare, export, inspector', () => {
  teardown(closeAll);

  test('"Compare with…" judges the second file as a rewrite of the first', async () => {
    const before = vscode.Uri.file(fixture('compare-before.json'));
    const after = vscode.Uri.file(fixture('compare-after.json'));
    const report = await vscode.commands.executeCommand<Report>('prefixLens.compareWith', before, after);
    assert.ok(report);
    assert.equal(report.steps.length, 1);
    assert.equal(report.steps[0]?.decision, 'abort');
    assert.ok(report.steps[0]?.rules.includes('prefix-mutated'));
    const compared = await waitFor('compare diagnostics', () => {
      const ds = vscode.languages.getDiagnostics(after).filter((d) => d.source === 'Prefix Lens (compare)');
      return ds.length > 0 ? ds : undefined;
    });
    assert.deepEqual(compared.map((d) => codeOf(d).value).sort(), ['elision-unmarked', 'prefix-mutated'], 'the snapshot step\'s findings, under their own source; the file\'s own (tool-result-orphaned) is not among them');
    const reverse = await vscode.commands.executeCommand<Report>('prefixLens.compareWith', after, after);
    assert.equal(reverse?.steps[0]?.decision, 'patch', 'a file judged against itself is a patch');
  });

  test('"Compare with HEAD" judges the working file as a rewrite of its committed version', async () => {
    const file = vscode.Uri.file(repoPath('examples', 'seed-incident.trace.jsonl')); // read only
    const report = await vscode.commands.executeCommand<Report>('prefixLens.compareWithHead', file);
    assert.ok(report, 'git HEAD has the example');
    assert.equal(report.steps.length, 2, 'the file\'s own step, then the snapshot against HEAD');
    assert.equal(report.steps[1]?.source, 'snapshot');
  });

  test('"Export Report" writes Markdown and SARIF 2.1.0 of the current transcript', async () => {
    const { session } = await openTranscript(example('seed-incident.trace.jsonl'));
    const dir = path.join(os.tmpdir(), `prefix-lens-export-${process.pid}`);
    const md = await vscode.commands.executeCommand<vscode.Uri>('prefixLens.exportReport', 'markdown', vscode.Uri.file(path.join(dir, 'r.md')));
    assert.ok(md);
    const markdown = new TextDecoder().decode(await vscode.workspace.fs.readFile(md));
    assert.match(markdown, /^# Prefix Lens report/);
    assert.match(markdown, /tool-result-orphaned/);
    const sarifUri = await vscode.commands.executeCommand<vscode.Uri>('prefixLens.exportReport', 'sarif', vscode.Uri.file(path.join(dir, 'r.sarif')));
    assert.ok(sarifUri);
    const sarif = JSON.parse(new TextDecoder().decode(await vscode.workspace.fs.readFile(sarifUri))) as {
      version: string;
      runs: { results: { ruleId: string }[] }[];
    };
    assert.equal(sarif.version, '2.1.0');
    assert.deepEqual(
      sarif.runs[0]?.results.map((r) => r.ruleId).sort(),
      session.report?.findings.map((f) => f.rule).sort(),
    );
    await vscode.workspace.fs.delete(vscode.Uri.file(dir), { recursive: true });
  });

  test('"Open Inspector" runs on the active transcript', async () => {
    await openTranscript(example('seed-incident.trace.jsonl'));
    await vscode.commands.executeCommand('prefixLens.openInspector');
  });
});
