/// <reference types="mocha" />
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { closeAll, codeOf, diagnosticsOf, example, fixture, openTranscript, rangeOf, sameRange, waitFor } from './helpers';

const byRule = (ds: vscode.Diagnostic[], rule: string) => ds.filter((d) => codeOf(d).value === rule);

suite('diagnostics', () => {
  teardown(closeAll);

  test('the seed incident: orphaned result, dropped schema, mutated prefix at their exact ranges', async () => {
    const { session } = await openTranscript(example('seed-incident.trace.jsonl'));
    const doc = session.document;
    const ds = await waitFor('diagnostics', () => (diagnosticsOf(doc.uri).length > 0 ? diagnosticsOf(doc.uri) : undefined));
    assert.deepEqual([...new Set(ds.map((d) => codeOf(d).value))].sort(), ['prefix-mutated', 'schema-dropped', 'tool-result-orphaned']);
    const rewriteLine = 4; // the compaction rewrite event

    const [orphan, ...moreOrphans] = byRule(ds, 'tool-result-orphaned');
    assert.ok(orphan);
    assert.equal(moreOrphans.length, 0);
    assert.equal(orphan.severity, vscode.DiagnosticSeverity.Error);
    sameRange(orphan.range, rangeOf(doc, rewriteLine, '"toolu_01"', '"tool_call_id"'), 'the orphaned tool_call_id value');
    assert.match(orphan.message, /toolu_01/);
    const partner = (orphan.relatedInformation ?? []).find((r) => r.message.includes('call'));
    assert.ok(partner, 'related: the call the rewrite dropped');
    sameRange(partner.location.range, rangeOf(doc, 2, '"toolu_01"', '"id"'), 'the call id in the generate event');

    const [dropped] = byRule(ds, 'schema-dropped');
    assert.ok(dropped);
    assert.equal(dropped.severity, vscode.DiagnosticSeverity.Error);
    assert.equal(dropped.range.start.line, rewriteLine);
    assert.ok(doc.getText(dropped.range).startsWith('[{"name":"send_email"'), 'points at the proposed tools');
    const related = dropped.relatedInformation ?? [];
    const callRef = related.find((r) => r.message.includes('call'));
    assert.ok(callRef, 'related: the call that still needs the schema');
    sameRange(callRef.location.range, rangeOf(doc, 2, '"toolu_01"', '"id"'), 'the pending call id in the generate event');
    const declRef = related.find((r) => r.message.includes('declaration'));
    assert.ok(declRef, 'related: the dropped declaration');
    assert.ok(doc.getText(declRef.location.range).startsWith('{"name":"query_db"'));
    assert.equal(declRef.location.range.start.line, 1);

    const mutated = byRule(ds, 'prefix-mutated');
    assert.ok(mutated.length >= 1);
    for (const d of mutated) {
      assert.equal(d.severity, vscode.DiagnosticSeverity.Warning);
      assert.equal(d.range.start.line, rewriteLine);
      assert.ok((d.relatedInformation ?? []).length > 0, 'related: the original bytes');
      for (const r of d.relatedInformation ?? []) assert.equal(r.location.uri.toString(), doc.uri.toString());
    }
    for (const d of ds) {
      const { value, target } = codeOf(d);
      assert.equal(target.fragment, value);
      assert.ok(target.path.endsWith('docs/rules.md'), target.toString());
      // The extension's own copy (shipped in the .vsix), not a web address made up for a repository there is none of.
      assert.equal(target.scheme, 'file', target.toString());
      assert.ok(new TextDecoder().decode(await vscode.workspace.fs.readFile(target.with({ fragment: '' }))).includes(`## ${value}\n`), `${target.toString()} documents ${value}`);
      assert.equal(d.source, 'Prefix Lens');
    }
  });

  test('a request log holding several conversations: a step finding names its thread, as the CodeLens does', async () => {
    const { session } = await openTranscript(fixture('../providers/anthropic-log-interleaved-edited.jsonl'));
    const ds = await waitFor('diagnostics', () => (diagnosticsOf(session.document.uri).length > 0 ? diagnosticsOf(session.document.uri) : undefined));
    assert.deepEqual(
      ds.map((d) => [codeOf(d).value, d.message]),
      [['prefix-mutated', 'Step 2 (thread 2): The consumed assistant message at messages[1] was edited (block 1) after the model read it']],
    );
    assert.equal(ds[0]!.range.start.line, 3);
  });

  test('a buried orphan in a native trace: the unanswered call id', async () => {
    const { session } = await openTranscript(example('buried-orphan.trace.jsonl'));
    const doc = session.document;
    const ds = await waitFor('diagnostics', () => (diagnosticsOf(doc.uri).length > 0 ? diagnosticsOf(doc.uri) : undefined));
    assert.equal(ds.length, 1);
    const [d] = ds;
    assert.ok(d);
    assert.equal(codeOf(d).value, 'tool-use-orphaned');
    assert.equal(d.severity, vscode.DiagnosticSeverity.Error);
    assert.equal(doc.getText(d.range), '"call_2"');
    const line = doc.lineAt(d.range.start.line).text;
    assert.ok(line.indexOf('"call_2"') < line.lastIndexOf('"role"'), 'buried: messages follow the unanswered call');
  });

  test('a buried orphaned tool_result in an Anthropic request body', async () => {
    const { session } = await openTranscript(fixture('anthropic-buried-orphan.json'));
    const doc = session.document;
    const ds = await waitFor('diagnostics', () => (diagnosticsOf(doc.uri).length > 0 ? diagnosticsOf(doc.uri) : undefined));
    assert.deepEqual(
      ds.map((d) => codeOf(d).value),
      ['tool-result-orphaned'],
    );
    const [d] = ds;
    assert.ok(d);
    sameRange(d.range, rangeOf(doc, 30, '"toolu_01B"', '"tool_use_id"'), 'the orphaned tool_use_id value');
  });

  test('re-checks after an edit (debounced) and clears on close', async () => {
    const { session, editor } = await openTranscript(fixture('anthropic-buried-orphan.json'));
    const doc = session.document;
    await waitFor('diagnostics', () => diagnosticsOf(doc.uri).length === 1);
    const id = rangeOf(doc, 30, 'toolu_01B', '"tool_use_id"');
    await editor.edit((e) => e.replace(id, 'toolu_01A'));
    await waitFor('the orphan is gone after the edit', () => session.reportVersion === doc.version && diagnosticsOf(doc.uri).every((d) => codeOf(d).value !== 'tool-result-orphaned'));
    await vscode.commands.executeCommand('undo');
    await waitFor('the orphan is back after undo', () => diagnosticsOf(doc.uri).some((d) => codeOf(d).value === 'tool-result-orphaned'));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await waitFor('diagnostics cleared on close', () => diagnosticsOf(doc.uri).length === 0, 20_000);
  });
});
