/**
 * Bundles the extension-host tests (`test/vscode/suite/*.test.ts`) into
 * `out/test/suite/*.test.js` with esbuild: CommonJS for Node 20, `vscode` and
 * `mocha` left external (the extension host and the test runner provide them).
 */
import { build } from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './codeServer';

export async function buildExtensionTests(): Promise<void> {
  const suite = join(REPO_ROOT, 'test', 'vscode', 'suite');
  const entries = readdirSync(suite)
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => join(suite, f));
  const outdir = join(REPO_ROOT, 'out', 'test', 'suite');
  rmSync(outdir, { recursive: true, force: true });
  await build({
    entryPoints: entries,
    outdir,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    external: ['vscode', 'mocha'],
    logLevel: 'warning',
  });
}

if (require.main === module) {
  buildExtensionTests().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
