/// <reference types="mocha" />
/**
 * *Prefix Lens: Record Agent Session*: the proxy started from VS Code, a real
 * HTTP server on 127.0.0.1 as the provider replaying a recorded Anthropic
 * exchange of the corpus (read in place), requests sent through the proxy's
 * address; the log it writes is open and followed: the orphaning request shows
 * up as a diagnostic in it.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Recording } from '../../../src/extension/record';
import { codeOf, diagnosticsOf, repoPath, waitFor } from './helpers';

/** The first two exchanges of a recorded Anthropic session (pydantic-ai cassette, ../shared/corpus). */
function recorded(): { request: { messages: { role: string; content: { type: string }[] }[] }; response: unknown }[] {
  const file = path.join(repoPath(), '..', 'shared', 'corpus', 'anthropic-messages', 'pydanticai_test_multiple_parallel_tool_calls.requests.jsonl');
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').slice(0, 2).map((l) => JSON.parse(l));
}

suite('record an agent session', () => {
  test('the command starts the proxy, opens its log, and the log is followed as requests go through', async () => {
    const [first, second] = recorded();
    assert.ok(first && second);
    const answer = JSON.stringify(first.response);
    const upstream = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(answer));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    let log: string | undefined;
    try {
      const recording = (await vscode.commands.executeCommand('prefixLens.recordAgentSession', { upstream: upstreamUrl })) as Recording;
      log = recording.log;
      assert.match(recording.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.match(recording.environment, /ANTHROPIC_BASE_URL=http:\/\/127\.0\.0\.1:\d+\nexport OPENAI_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/v1/);
      await waitFor('the log open in an editor', () => vscode.window.visibleTextEditors.some((e) => e.document.uri.fsPath === recording.log));
      const post = (body: unknown) =>
        fetch(`${recording.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-recorded' }, body: JSON.stringify(body) });
      assert.equal((await post(first.request)).status, 200);
      // The recorded next request with a compaction that drops the calls the model made but keeps their results.
      const messages = second.request.messages.filter((m) => m.role !== 'assistant');
      assert.ok(messages.some((m) => m.content.some((b) => b.type === 'tool_result')), 'the recorded results are kept');
      assert.equal((await post({ ...second.request, messages })).status, 200, 'not enforcing: forwarded');
      const uri = vscode.Uri.file(recording.log);
      const orphan = await waitFor('the orphaned result in the followed log', () => diagnosticsOf(uri).find((d) => codeOf(d).value === 'tool-result-orphaned'));
      assert.equal(orphan.range.start.line, 1, 'on the second exchange');
      assert.equal(path.basename(path.dirname(recording.log)), '.prefix-lens');
      const text = (await vscode.workspace.openTextDocument(uri)).getText();
      assert.ok(!text.includes('sk-ant-recorded'), 'no key in the log');
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      if (log) fs.rmSync(path.dirname(log), { recursive: true, force: true });
      upstream.closeAllConnections();
      upstream.close();
    }
  });
});
