/// <reference types="mocha" />
/**
 * *Prefix Lens: Record Agent Session*: the proxy started from VS Code, a real
 * HTTP server on 127.0.0.1 as the provider, requests sent through the proxy's
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
import { codeOf, diagnosticsOf, waitFor } from './helpers';

suite('record an agent session', () => {
  test('the command starts the proxy, opens its log, and the log is followed as requests go through', async () => {
    const answer = JSON.stringify({ id: 'msg_rec', type: 'message', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_rec1', name: 'read', input: { path: 'a' } }] });
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
      const tools = [{ name: 'read', input_schema: { type: 'object' } }];
      const first = [{ role: 'user', content: 'Read a' }];
      const post = (messages: unknown[]) =>
        fetch(`${recording.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-recorded' }, body: JSON.stringify({ model: 'm', max_tokens: 5, tools, messages }) });
      assert.equal((await post(first)).status, 200);
      const result = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_rec1', content: 'x' }] };
      // The compaction drops the call the model made but keeps its result.
      assert.equal((await post([...first, result])).status, 200, 'not enforcing: forwarded');
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
