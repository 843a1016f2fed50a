/**
 * What the .vsix ships (`.vscodeignore`, as `vsce ls` reads it) holds every
 * file its Markdown files link to: relative links are kept as written (`vsce package --no-rewrite-relative-links`), so one to a
 * file left out is broken on the extension's page.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.join(__dirname, '..', '..');

/** The files of the .vsix, as vsce lists them (offline: `vsce ls` packs nothing). */
function packaged(): Set<string> {
  const vsce = path.join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
  const out = execFileSync(process.execPath, [vsce, 'ls', '--no-dependencies'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return new Set(out.split('\n').map((l) => l.trim()).filter(Boolean));
}

/** The relative link targets of a Markdown file (no scheme, no bare fragment), without their fragments. */
function relativeLinks(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const targets = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
  return [...new Set(targets.filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith('#')).map((t) => t.split('#')[0]!))];
}

describe('the packaged extension', () => {
  const files = packaged();

  it('holds the manifest and the docs, not the sources', () => {
    for (const file of ['package.json', 'README.md', 'LICENSE', 'docs/rules.md']) assert.ok(files.has(file), file);
    assert.ok(![...files].some((f) => f.startsWith('src/') || f.startsWith('test/')), [...files].join(', '));
  });

  for (const doc of [...files].filter((f) => f.endsWith('.md'))) {
    it(`ships every file ${doc} links to`, () => {
      for (const link of relativeLinks(doc)) {
        const target = path.posix.join(path.posix.dirname(doc), decodeURI(link));
        assert.ok(fs.existsSync(path.join(ROOT, target)), `${doc} links to ${link}, which does not exist`);
        const inside = fs.statSync(path.join(ROOT, target)).isDirectory() ? [...files].some((f) => f.startsWith(`${target}/`)) : files.has(target);
        assert.ok(inside, `${doc} links to ${link}, which .vscodeignore leaves out of the .vsix`);
      }
    });
  }
});
