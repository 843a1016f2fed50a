// Builds every bundle: the CLI, the library, the extension host, its worker and the inspector webview.
// `node esbuild.js` builds once; `--watch` rebuilds on change; `--production` minifies.
const esbuild = require('esbuild');
const fs = require('node:fs');
const { monacoPatches } = require('./scripts/monaco-patches');

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/** @type {import('esbuild').BuildOptions[]} */
const targets = [
  { entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', platform: 'node', banner: { js: '#!/usr/bin/env node' } },
  { entryPoints: ['src/core/index.ts'], outfile: 'dist/lib.js', platform: 'node' },
  { entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', platform: 'node', external: ['vscode'] },
  { entryPoints: ['src/extension/worker.ts'], outfile: 'dist/worker.js', platform: 'node' },
  // The inspector webview: dist/webview/inspector.js + inspector.css (+ Monaco's font); codicons copied below.
  { entryPoints: ['webview/inspector.ts'], outdir: 'dist/webview', platform: 'browser', format: 'iife', target: 'chrome120', loader: { '.ttf': 'file' }, assetNames: '[name]-[hash]', plugins: [monacoPatches] },
  // The session view webview: dist/webview/session.js + session.css (no Monaco, no web components).
  { entryPoints: { session: 'webview/session/main.ts' }, outdir: 'dist/webview', platform: 'browser', format: 'iife', target: 'chrome120' },
];

const common = {
  bundle: true,
  format: 'cjs',
  target: 'node20',
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
};

async function main() {
  const builds = targets
    .filter((t) => Object.values(t.entryPoints).every((e) => fs.existsSync(e)))
    .map((t) => ({ ...common, ...t }));
  if (watch) {
    await Promise.all(builds.map(async (b) => (await esbuild.context(b)).watch()));
    return;
  }
  await Promise.all(builds.map((b) => esbuild.build(b)));
  if (fs.existsSync('dist/cli.js')) fs.chmodSync('dist/cli.js', 0o755);
  // Token rank tables load at run time from dist/ranks/ (see src/core/tokens.ts), not from the bundles.
  fs.mkdirSync('dist/ranks', { recursive: true });
  for (const encoding of ['o200k_base', 'cl100k_base']) fs.copyFileSync(`node_modules/js-tiktoken/dist/ranks/${encoding}.cjs`, `dist/ranks/${encoding}.js`);
  writePackedRanks();
  if (fs.existsSync('dist/webview')) for (const f of ['codicon.css', 'codicon.ttf']) fs.copyFileSync(`node_modules/@vscode/codicons/dist/${f}`, `dist/webview/${f}`);
}

/** Each rank table packed as the token counter's arrays (`dist/ranks/<encoding>.bin`, src/core/bpe-packed.ts), read faster than the table's text is built. */
function writePackedRanks() {
  const { outputFiles } = esbuild.buildSync({ ...common, entryPoints: ['src/core/bpe-packed.ts'], platform: 'node', write: false, sourcemap: false, minify: false });
  const module = { exports: {} };
  new Function('module', 'exports', 'require', outputFiles[0].text)(module, module.exports, require);
  for (const encoding of ['o200k_base', 'cl100k_base']) {
    fs.writeFileSync(`dist/ranks/${encoding}.bin`, module.exports.packRanks(require(`./node_modules/js-tiktoken/dist/ranks/${encoding}.cjs`), encoding));
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
