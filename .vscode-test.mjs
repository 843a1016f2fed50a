// @vscode/test-cli configuration: the extension-host suite (bundled into
// out/test/suite by scripts/vscode/buildTests.ts). Here it runs in code-server's
// real extension host through our own `code`-compatible launcher; on a machine
// with desktop VS Code, drop `useInstallation` and the same suite runs there.
import { defineConfig } from '@vscode/test-cli';

const launcher = process.env.PREFIX_LENS_VSCODE ?? new URL('./scripts/vscode/launcher', import.meta.url).pathname;

export default defineConfig({
  label: 'extension-host',
  // activation first: it checks that nothing activated the extension before a JSON file opened.
  files: ['out/test/suite/activation.test.js', 'out/test/suite/**/*.test.js'],
  workspaceFolder: './test/fixtures/vscode',
  ...(launcher === 'desktop' ? {} : { useInstallation: { fromPath: launcher } }),
  mocha: { ui: 'tdd', timeout: 90_000, color: false },
});
