/**
 * What the .vsix ships (`.vscodeignore`: everything left out, then the files
 * let back in) holds every file its Markdown files link to: relative links are
 * kept as written (`vsce package --no-rewrite-relative-links`), so one to a
 * file left out is broken on the extension's page.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.join(__dirname, '..', '..');

/** A `.vscodeignore` pattern as a regular expression over a path from the root (`**` any path, `*` one name's part). */
function globToRegExp(glob: string): RegExp {
  const parts = glob.split(/(\*\*|\*)/).map((p) => (p === '**' ? '.*' : p === '*' ? '[^/]*' : p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${parts.join('')}$`);
}

/** Whether the package holds `file`: the last pattern that matches it decides (`!` lets it back in). */
function shipped(file: string): boolean {
  const patterns = fs
    .readFileSync(path.join(ROOT, '.vscodeignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  let kept = true;
  for (const p of patterns) {
    const negated = p.startsWith('!');
    if (globToRegExp(negated ? p.slice(1) : p).test(file)) kept = negated;
  }
  return kept;
}

/** The relative link targets of a Markdown file (no scheme, no bare fragment), without their fragments. */
function relativeLinks(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const targets = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
  return [...new Set(targets.filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith('#')).map((t) => t.split('#')[0]!))];
}

describe('the packaged extension', () => {
  it('reads .vscodeignore as vsce does: the bundle ships, the sources do not', () => {
    assert.ok(shipped('dist/extension.js'));
    assert.ok(shipped('README.md'));
    assert.ok(!shipped('src/extension/extension.ts'));
    assert.ok(!shipped('test/unit/package-contents.test.ts'));
  });

  const docs = ['README.md', 'CHANGELOG.md', 'bench/README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).map((f) => `docs/${f}`)];
  for (const doc of docs.filter((d) => d.endsWith('.md') && shipped(d))) {
    it(`ships every file ${doc} links to`, () => {
      for (const link of relativeLinks(doc)) {
        const target = path.posix.join(path.posix.dirname(doc), decodeURI(link));
        assert.ok(fs.existsSync(path.join(ROOT, target)), `${doc} links to ${link}, which does not exist`);
        const files = fs.statSync(path.join(ROOT, target)).isDirectory() ? fs.readdirSync(path.join(ROOT, target)).map((f) => `${target}/${f}`) : [target];
        assert.ok(files.some(shipped), `${doc} links to ${link}, which .vscodeignore leaves out of the .vsix`);
      }
    });
  }
});
