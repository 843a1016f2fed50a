/// <reference types="mocha" />
/**
 * The session view as a custom editor in the real VS Code (code-server): an
 * Inspect `.eval` (a zip) opens in it by default (checked through the Checker,
 * in the worker over the threshold), a Claude Code session opens
 * in it through the command, and a file growing on disk appears as it grows.
 * Real files of the shared corpus, copied to a scratch folder first. A Claude
 * Code 2.x session with its `subagents` folder (our fixture, in the documented
 * shape) shows each sub-agent nested under its call, and follows it as it grows,
 * checking again only the file that grew. The view of a file open as text takes
 * the report of Sessions (which re-checks it) and never checks the file itself,
 * says why when that check failed, and scans its text for sub-agent links once;
 * a file open only in the view is checked by Sessions too (its viewed files):
 * one over maxFileBytes is never read, the view saying so; one whose name reads
 * as a glob is followed on disk, the view saying when it is deleted; a check
 * that fails after one that succeeded is said beside the last report.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Checker } from '../../../src/extension/checker';
import { api, closeAll, openTranscript, repoPath, setSetting, waitFor, waitForDisk } from './helpers';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'prefix-lens-session-view-'));
const corpus = (name: string) => {
  const target = path.join(scratch, path.basename(name));
  fs.copyFileSync(repoPath('..', 'shared', 'corpus', name), target);
  return vscode.Uri.file(target);
};

/**
 * A real Claude Code session of the corpus written to `name` in the scratch
 * folder by its first 12 lines; `grow(to)` appends the next lines up to `to`
 * (to its end when not given).
 */
function growingSession(name: string) {
  const lines = fs.readFileSync(repoPath('..', 'shared', 'corpus', 'claude-code', 'spotter_tool_heavy.jsonl'), 'utf8').split('\n').filter((l) => l !== '');
  const file = path.join(scratch, name);
  fs.writeFileSync(file, lines.slice(0, 12).join('\n') + '\n');
  let written = 12;
  const grow = (to = lines.length) => {
    fs.appendFileSync(file, lines.slice(written, to).join('\n') + '\n');
    written = to;
  };
  return { file, uri: vscode.Uri.file(file), grow };
}

async function lastView(uri: vscode.Uri, what: string, ready: (rows: number) => boolean = (n) => n > 0) {
  const { sessionViews } = await api();
  const probe = () => sessionViews.viewsOf(uri).map((e) => e.lastView).find((v) => v !== undefined && ready(v.rows.length));
  return uri.scheme === 'file' ? waitForDisk(uri.fsPath, what, probe) : waitFor(what, probe);
}

const activeTabViewType = () => {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  return input instanceof vscode.TabInputCustom ? input.viewType : undefined;
};

/** Counts, through a spy on the real Checker, the checks of each kind asked until `restore`. */
function spyChecks(checker: Checker) {
  const calls = { check: [] as string[], follow: [] as string[], subAgents: [] as string[][] };
  const { check, follow, checkSubAgents } = checker;
  checker.check = (request, threshold) => (calls.check.push(request.kind === 'against' ? request.newer.file : request.file), check.call(checker, request, threshold));
  checker.follow = (request, threshold, followed) => (calls.follow.push(request.file), follow.call(checker, request, threshold, followed));
  checker.checkSubAgents = (request, threshold) => (calls.subAgents.push(request.subAgents.map((s) => path.basename(s.file))), checkSubAgents.call(checker, request, threshold));
  const restore = () => Object.assign(checker, { check, follow, checkSubAgents });
  return { calls, restore };
}

suite('session view', () => {
  suiteTeardown(closeAll);

  test('an Inspect .eval (a zip) opens in the session view by default', async () => {
    const uri = corpus('inspect-ai/inspect_log_message_deduplication.eval');
    await vscode.commands.executeCommand('vscode.open', uri);
    await waitFor('the custom editor tab', () => activeTabViewType() === 'prefixLens.session');
    const view = await lastView(uri, 'the .eval session snapshot');
    assert.equal(view.summary.format, 'inspect');
    assert.equal(view.textual, false, 'a zip cannot be revealed as text');
    assert.ok(view.rows.some((r) => r.kind === 'message' && r.role === 'user'));
  });

  test('a zip is checked through the Checker like other files viewed from disk: in the worker over the threshold', async () => {
    const uri = vscode.Uri.file(path.join(scratch, 'in-worker.eval'));
    fs.copyFileSync(repoPath('..', 'shared', 'corpus', 'inspect-ai', 'inspect_log_message_deduplication.eval'), uri.fsPath);
    const { checker } = await api();
    const spy = spyChecks(checker);
    const workers = checker.stats.worker;
    try {
      await setSetting('workerThresholdBytes', 0);
      await vscode.commands.executeCommand('vscode.open', uri);
      const view = await lastView(uri, 'the .eval session snapshot');
      assert.equal(view.summary.format, 'inspect');
      assert.ok(spy.calls.check.includes(uri.fsPath), 'checked through the Checker');
      assert.ok(checker.stats.worker > workers, 'in the worker');
    } finally {
      spy.restore();
      await setSetting('workerThresholdBytes', undefined);
    }
  });

  test('a Claude Code session opens in it through the command, its pairs linked', async () => {
    const uri = corpus('claude-code/spotter_tool_heavy.jsonl');
    await vscode.commands.executeCommand('prefixLens.openSessionView', uri);
    await waitFor('the custom editor tab', () => activeTabViewType() === 'prefixLens.sessionText');
    const view = await lastView(uri, 'the Claude Code session snapshot');
    assert.equal(view.summary.format, 'claude-code');
    assert.deepEqual(view.summary.pairs, { paired: 6, pending: 0, orphaned: 0 });
    const calls = view.rows.flatMap((r) => (r.kind === 'message' ? r.tools.filter((t) => t.role === 'call') : []));
    assert.equal(calls.length, 6);
    assert.ok(calls.every((c) => c.partner !== undefined));
  });

  test('a file growing on disk appears as it grows', async () => {
    const { uri, grow } = growingSession('growing.jsonl');
    await vscode.commands.executeCommand('prefixLens.openSessionView', uri);
    const first = await lastView(uri, 'the first snapshot');
    grow();
    const grown = await lastView(uri, 'the grown snapshot', (n) => n > first.rows.length);
    assert.ok(grown.summary.pairs.paired > first.summary.pairs.paired, `${first.summary.pairs.paired} → ${grown.summary.pairs.paired} pairs`);
  });

  test('a Claude Code session with a subagents folder: each sub-agent nested under its Task call, followed as it grows', async () => {
    const id = '5e551013-0000-4000-8000-000000000002';
    const dir = path.join(scratch, 'with-subagents');
    fs.cpSync(repoPath('test', 'fixtures', 'claude-code', 'subagents'), dir, { recursive: true });
    const uri = vscode.Uri.file(path.join(dir, `${id}.jsonl`));
    await vscode.commands.executeCommand('prefixLens.openSessionView', uri);
    const view = await lastView(uri, 'the session with its sub-agents', () => true);
    const headers = view.rows.filter((r) => r.kind === 'thread');
    assert.deepEqual(
      headers.map((h) => [h.label, h.file]),
      [
        ['sub-agent Explore (a1b2c3d4e5f60718)', 0],
        ['sub-agent general-purpose (a9e8d7c6b5a40312)', 1],
      ],
    );
    for (const header of headers) {
      const caller = view.rows[header.kind === 'thread' ? header.parentRow! : -1];
      assert.ok(caller?.kind === 'message' && caller.file === undefined, `${header.kind === 'thread' && header.label} hangs under a row of the session`);
      assert.ok(caller.tools.some((t) => t.name === 'Task' && t.threadRow === view.rows.indexOf(header)), 'the Task call links to it');
    }
    const rulesOf = (file: number) => view.rows.filter((r) => r.file === file).flatMap((r) => r.findings.map((f) => f.rule));
    assert.deepEqual(rulesOf(1).sort(), ['tool-result-orphaned', 'tool-use-orphaned'], "the second sub-agent's findings, on its own rows");
    assert.deepEqual(rulesOf(0), []);
    assert.equal(view.problems, 2);

    // The first sub-agent goes on: a result for a call it never made, then an answer.
    const agent = path.join(dir, id, 'subagents', 'agent-a1b2c3d4e5f60718.jsonl');
    const last = JSON.parse(fs.readFileSync(agent, 'utf8').trim().split('\n').pop()!) as Record<string, unknown>;
    const more = (uuid: string, parentUuid: string, type: string, content: unknown) => JSON.stringify({ ...last, uuid, parentUuid, type, message: { role: type, content } });
    fs.appendFileSync(agent, `${more('s5', 's4', 'user', [{ type: 'tool_result', tool_use_id: 'toolu_never_called', content: 'x' }])}\n${more('s6', 's5', 'assistant', [{ type: 'text', text: 'ok' }])}\n`);
    const { sessionViews, checker } = await api();
    const spy = spyChecks(checker);
    const grown = await waitForDisk(agent, 'the grown sub-agent in the view', () =>
      sessionViews
        .viewsOf(uri)
        .map((e) => e.lastView)
        .find((v) => v?.rows.some((r) => r.file === 0 && r.findings.some((f) => f.rule === 'tool-result-orphaned'))),
    );
    assert.equal(grown.problems, 3);
    spy.restore();
    assert.ok(spy.calls.subAgents.length > 0, 'the grown sub-agent file is checked again');
    assert.deepEqual(new Set(spy.calls.subAgents.flat()), new Set(['agent-a1b2c3d4e5f60718.jsonl']), 'only the sub-agent file that grew is checked again');
  });

  test('the view of a file open as text takes the report of Sessions: opening it and the file growing check the file no more', async () => {
    const { file, grow } = growingSession('open-as-text.jsonl');
    const { session } = await openTranscript(file);
    const { checker } = await api();
    const spy = spyChecks(checker);
    try {
      await vscode.commands.executeCommand('prefixLens.openSessionView', session.uri);
      const first = await lastView(session.uri, 'the first snapshot');
      grow();
      const grown = await lastView(session.uri, 'the grown snapshot', (n) => n > first.rows.length);
      assert.deepEqual(grown.summary.pairs, session.report?.session?.pairs, "the view shows Sessions' report");
      // Of this file only: the views earlier tests left open still re-check their own files when they change.
      assert.deepEqual(spy.calls.check.filter((f) => f === file), [], 'the view checked the file itself');
    } finally {
      spy.restore();
    }
  });

  test('a file open only in the view is checked by Sessions (its viewed files): the view shows that report, and a checking setting changing checks it again', async () => {
    const uri = vscode.Uri.file(path.join(scratch, 'view-only.jsonl'));
    fs.copyFileSync(repoPath('..', 'shared', 'corpus', 'claude-code', 'spotter_tool_heavy.jsonl'), uri.fsPath);
    await vscode.commands.executeCommand('prefixLens.openSessionView', uri);
    const view = await lastView(uri, 'the snapshot');
    const { sessions, checker } = await api();
    assert.equal(sessions.get(uri), undefined, 'not open as text');
    const viewed = sessions.viewed.get(uri);
    assert.ok(viewed?.report, "Sessions holds the file's report");
    assert.deepEqual(view.summary.pairs, viewed.report.session?.pairs);
    const spy = spyChecks(checker);
    try {
      await setSetting('workerThresholdBytes', 1 << 30);
      await waitFor('the re-check after the setting changed', () => spy.calls.check.includes(uri.fsPath));
    } finally {
      spy.restore();
      await setSetting('workerThresholdBytes', undefined);
    }
  });

  test("the view of a file open as text whose check fails in Sessions says why (the error, as text), not nothing", async () => {
    const file = path.join(scratch, 'check-fails.jsonl');
    fs.copyFileSync(repoPath('..', 'shared', 'corpus', 'claude-code', 'spotter_tool_heavy.jsonl'), file);
    const { checker, sessions, sessionViews } = await api();
    const { follow } = checker;
    // The real Checker, failing for this file only (as a worker that dies would).
    checker.follow = (request, threshold, followed) => (request.file === file ? Promise.reject(new Error('<img src=x onerror=alert(1)> no worker')) : follow.call(checker, request, threshold, followed));
    try {
      const document = await vscode.workspace.openTextDocument(file);
      await vscode.window.showTextDocument(document, { preview: false });
      const session = await waitFor("the session's failed check", () => sessions.get(document.uri)?.failure !== undefined && sessions.get(document.uri));
      assert.equal(session.report, undefined);
      await vscode.commands.executeCommand('prefixLens.openSessionView', document.uri);
      const notice = await waitFor('the view saying why', () => sessionViews.viewsOf(document.uri).map((e) => e.lastNotice).find((n) => n !== undefined));
      assert.equal(notice, 'Prefix Lens cannot show this file as a session: <img src=x onerror=alert(1)> no worker');
    } finally {
      checker.follow = follow;
    }
  });

  test('the view of a session open as text scans its text for sub-agent links once a version: a sub-agent file growing does not scan it again', async () => {
    const id = '5e551013-0000-4000-8000-000000000002';
    const dir = path.join(scratch, 'open-with-subagents');
    fs.cpSync(repoPath('test', 'fixtures', 'claude-code', 'subagents'), dir, { recursive: true });
    const { session } = await openTranscript(path.join(dir, `${id}.jsonl`));
    await vscode.commands.executeCommand('prefixLens.openSessionView', session.uri);
    const view = await lastView(session.uri, 'the session with its sub-agents', () => true);
    assert.equal(view.rows.filter((r) => r.kind === 'thread').length, 2, 'both sub-agents linked');
    const { sessionViews } = await api();
    const [editor] = sessionViews.viewsOf(session.uri);
    assert.equal(editor?.linkScans, 1);
    const agent = path.join(dir, id, 'subagents', 'agent-a1b2c3d4e5f60718.jsonl');
    const last = JSON.parse(fs.readFileSync(agent, 'utf8').trim().split('\n').pop()!) as Record<string, unknown>;
    fs.appendFileSync(agent, `${JSON.stringify({ ...last, uuid: 's5', parentUuid: 's4', type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_never_called', content: 'x' }] } })}\n`);
    await waitForDisk(agent, 'the grown sub-agent in the view', () => editor?.lastView?.rows.some((r) => r.file === 0 && r.findings.some((f) => f.rule === 'tool-result-orphaned')));
    assert.equal(session.document.version, session.reportVersion, 'the session text is the one scanned');
    assert.equal(editor?.linkScans, 1, 'the session text was scanned again');
  });

  test('a file open only in the view over maxFileBytes is never read: the view says so in the words of the check of a document over it', async () => {
    const source = repoPath('..', 'shared', 'corpus', 'claude-code', 'spotter_tool_heavy.jsonl');
    const uri = vscode.Uri.file(path.join(scratch, 'over-limit-view.jsonl'));
    const asText = path.join(scratch, 'over-limit-text.jsonl');
    fs.copyFileSync(source, uri.fsPath);
    fs.copyFileSync(source, asText);
    const { checker, sessionViews } = await api();
    const spy = spyChecks(checker);
    await setSetting('limits.maxFileBytes', 1000);
    try {
      await vscode.commands.executeCommand('prefixLens.openSessionView', uri);
      const notice = await waitFor('the view saying the file is over the limit', () => sessionViews.viewsOf(uri).map((e) => e.lastNotice).find((n) => n !== undefined));
      const reason = 'the file is larger than the maxFileBytes limit (1000 bytes)';
      assert.equal(notice, `Prefix Lens cannot show this file as a session: ${reason}`);
      assert.equal(spy.calls.check.filter((f) => f === uri.fsPath).length, 0, 'not read to be checked');
      const { session } = await openTranscript(asText);
      assert.ok(session.report?.findings.some((f) => f.rule === 'record-skipped' && f.message.includes(`: ${reason}.`)), "the editor's check says the same");
    } finally {
      spy.restore();
      await setSetting('limits.maxFileBytes', undefined);
    }
  });

  test('a file open only in the view whose name reads as a glob (log[1]{a}.jsonl) is checked again as it changes on disk, and the view says when it is deleted', async () => {
    const { file, uri, grow } = growingSession('log[1]{a}.jsonl');
    await vscode.commands.executeCommand('prefixLens.openSessionView', uri);
    const first = await lastView(uri, 'the first snapshot');
    grow();
    const grown = await lastView(uri, 'the grown snapshot', (n) => n > first.rows.length);
    assert.ok(grown.summary.pairs.paired > first.summary.pairs.paired);
    const { sessions, sessionViews } = await api();
    fs.rmSync(file);
    const notice = await waitFor('the view saying the file is gone', () => sessionViews.viewsOf(uri).map((e) => e.lastNotice).find((n) => n !== undefined));
    assert.equal(notice, 'Prefix Lens cannot show this file as a session: the file was deleted');
    assert.equal(sessions.viewed.get(uri)?.report, undefined, 'no stale report kept');
  });

  test('a check that fails after one that succeeded: the view keeps the last report and says why (as text) beside it, until a check succeeds', async () => {
    const { file, uri, grow } = growingSession('fails-later.jsonl');
    await vscode.commands.executeCommand('prefixLens.openSessionView', uri);
    const first = await lastView(uri, 'the first snapshot');
    const { checker, sessionViews } = await api();
    const { check } = checker;
    // The real Checker, failing for this file only (as a worker that dies would).
    checker.check = (request, threshold) => (request.kind === 'transcript' && request.file === file ? Promise.reject(new Error('<b>no</b> worker')) : check.call(checker, request, threshold));
    try {
      grow(14);
      const notice = await waitFor('the failure beside the report', () => sessionViews.viewsOf(uri).map((e) => e.lastNotice).find((n) => n !== undefined));
      assert.equal(notice, 'Prefix Lens cannot show this file as a session: <b>no</b> worker');
      assert.equal(sessionViews.viewsOf(uri)[0]?.lastView?.rows.length, first.rows.length, 'the last report is still shown');
    } finally {
      checker.check = check;
    }
    grow();
    await lastView(uri, 'the next snapshot', (n) => n > first.rows.length);
    assert.equal(sessionViews.viewsOf(uri)[0]?.lastNotice, undefined, 'the notice is gone once a check succeeds');
  });
});
