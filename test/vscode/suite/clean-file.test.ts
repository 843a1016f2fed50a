/// <reference types="mocha" />
/**
 * A clean file says it is clean: the Rewrites view shows a Claude Code
 * session with no rewrite step as a file with its summary, and its tool pairs.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { api, closeAll, openTranscript, repoPath } from './helpers';

suite('a clean file', () => {
  suiteTeardown(closeAll);

  test('the Rewrites view shows the file with zero steps and its six pairs', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'prefix-lens-clean-')), 'spotter_tool_heavy.jsonl');
    fs.copyFileSync(repoPath('..', 'shared', 'corpus', 'claude-code', 'spotter_tool_heavy.jsonl'), file);
    const { session } = await openTranscript(file);
    assert.equal(session.report?.steps.length, 0);
    const { tree } = await api();
    const roots = tree.getChildren();
    const fileItem = tree.getTreeItem(roots[0]!);
    assert.equal(roots[0]!.kind, 'file');
    assert.match(String(fileItem.description), /^claude-code · 0 rewrites · 6 pairs ✓ · no rewrite steps$/);
    const pairsNode = roots.find((n) => n.kind === 'pairs');
    assert.ok(pairsNode, 'a Tool pairs node');
    const pairs = tree.getChildren(pairsNode);
    assert.equal(pairs.length, 6);
    for (const pair of pairs) assert.match(String(tree.getTreeItem(pair).description), /· paired$/);
    assert.ok(tree.getTreeItem(pairs[0]!).command, 'a pair reveals its call');
  });
});
