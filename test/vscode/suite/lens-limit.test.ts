/// <reference types="mocha" />
/**
 * Above VS Code's CodeLens limit (a file over 20 MB or 300,000 lines gets no
 * CodeLens from the editor): a status bar item and the Rewrites view say so,
 * and the view lists every step. The transcripts are the three-step fixture
 * padded with whitespace-only lines (which every reader skips).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { RewriteNode } from '../../../src/extension/tree';
import { api, closeAll, fixture, openTranscript, waitFor } from './helpers';

/** Writes the three-step fixture followed by `lines` padding lines of `width` spaces. */
function padded(name: string, lines: number, width: number): string {
  const file = path.join(os.tmpdir(), `prefix-lens-suite-${process.pid}`, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const fd = fs.openSync(file, 'w');
  try {
    fs.writeSync(fd, fs.readFileSync(fixture('three-steps.trace.jsonl'), 'utf8'));
    const chunk = `${' '.repeat(width)}\n`.repeat(1000);
    for (let i = 0; i < lines / 1000; i++) fs.writeSync(fd, chunk);
  } finally {
    fs.closeSync(fd);
  }
  return file;
}

suite('above VS Code\'s CodeLens limit', () => {
  teardown(closeAll);

  const cases: [string, () => string][] = [
    ['over 20 MB', () => padded('over-20mb.trace.jsonl', 21_000, 1023)],
    ['over 300,000 lines', () => padded('over-300k-lines.trace.jsonl', 301_000, 0)],
  ];
  for (const [what, make] of cases) {
    test(`${what}: a status item and the Rewrites view say there is no CodeLens and the view lists every step`, async () => {
      const file = make();
      const { session } = await openTranscript(file);
      const { lensLimit, tree } = await api();
      assert.equal(session.report?.steps.length, 3);
      const status = await waitFor('the status item', () => (lensLimit.status.visible ? lensLimit.status : undefined));
      assert.equal(status.text, '$(list-tree) No CodeLens: 3 steps in Rewrites');
      assert.match(status.tooltip, /no CodeLens in a file over 20 MB or 300,000 lines/);
      const message = await waitFor('the view message', () => tree.view.message);
      assert.equal(message, `No CodeLens in ${path.basename(file)}: VS Code shows none in a file over 20 MB or 300,000 lines. Its 3 steps are listed here.`);
      const steps = tree.getChildren().filter((n: RewriteNode) => n.kind === 'step' && n.session === session);
      assert.equal(steps.length, 3);

      // A small transcript has its CodeLens: nothing to say.
      await openTranscript(fixture('three-steps.trace.jsonl'));
      await waitFor('the status item hidden', () => !lensLimit.status.visible);
      await waitFor('the view message gone', () => tree.view.message === undefined);
    });
  }
});
