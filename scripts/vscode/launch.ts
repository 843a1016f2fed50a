/**
 * A `code`-compatible launcher backed by code-server + headless chromium, so
 * `@vscode/test-cli` / `@vscode/test-electron` drive it unchanged through
 * `useInstallation: { fromPath: 'scripts/vscode/launcher' }`.
 *
 * Understands `--extensionDevelopmentPath=`, `--extensionTestsPath=` and a
 * positional folder (the other desktop flags are ignored). Runs the suite in
 * code-server's real Node extension host: the workbench page reports through
 * `codeAutomationLog` / `codeAutomationExit`, which we expose with Playwright.
 * Exits with the suite's exit code.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { format } from 'node:util';
import { launchChromium, newWorkbenchPage } from './browser';
import { REPO_ROOT, startCodeServer, workbenchUrl } from './codeServer';

interface LaunchArgs {
  extensionDevelopmentPath: string[];
  extensionTestsPath?: string;
  folder: string;
}

function parseArgs(argv: readonly string[]): LaunchArgs {
  const parsed: LaunchArgs = { extensionDevelopmentPath: [], folder: REPO_ROOT };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => inline ?? argv[++i] ?? '';
    if (flag === '--extensionDevelopmentPath') parsed.extensionDevelopmentPath.push(resolve(value()));
    else if (flag === '--extensionTestsPath') parsed.extensionTestsPath = resolve(value());
    else if (!arg.startsWith('-') && existsSync(arg) && statSync(arg).isDirectory()) parsed.folder = resolve(arg);
  }
  return parsed;
}

/** Workbench chatter that is not the suite's output (set PREFIX_LENS_VERBOSE=1 to see it). */
function isNoise(text: string): boolean {
  if (process.env.PREFIX_LENS_VERBOSE === '1') return false;
  return /^(Resolv|Creating a socket|Creation of workbench contribution|Updating additional|\[Service Worker\]|ChatSessionStore|getaddrinfo ENOTFOUND|\s+at )/.test(text);
}

/** The test runner path as VS Code loads it: a module path without `.js`. */
function testsModule(path: string): string {
  return path.endsWith('.js') ? path.slice(0, -3) : path;
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  if (!args.extensionTestsPath) {
    console.error('launcher: only test runs are supported (pass --extensionTestsPath)');
    return 2;
  }
  const timeoutMs = Number(process.env.PREFIX_LENS_TEST_TIMEOUT_MS ?? 900_000);
  const server = await startCodeServer({ verbose: process.env.PREFIX_LENS_VERBOSE === '1' });
  const browser = await launchChromium();
  try {
    const page = await newWorkbenchPage(browser);
    let resolveExit: (code: number) => void = () => undefined;
    const exit = new Promise<number>((r) => (resolveExit = r));
    await page.exposeFunction('codeAutomationLog', (type: string, args: unknown[]) => {
      const text = format(...(Array.isArray(args) ? args : [args]));
      if (isNoise(text)) return;
      (type === 'error' ? process.stderr : process.stdout).write(`${text}\n`);
    });
    await page.exposeFunction('codeAutomationExit', (code: number) => resolveExit(code));
    const url = workbenchUrl(server, {
      folder: args.folder,
      extensionDevelopmentPath: args.extensionDevelopmentPath,
      extensionTestsPath: testsModule(args.extensionTestsPath),
    });
    await page.goto(url, { waitUntil: 'commit', timeout: 180_000 }); // the workbench loads on; a busy machine is slow to fire 'load'
    const timeout = new Promise<number>((r) =>
      setTimeout(() => {
        console.error(`launcher: the suite did not finish within ${timeoutMs / 1000} s`);
        r(1);
      }, timeoutMs).unref(),
    );
    return await Promise.race([exit, timeout]);
  } finally {
    await browser.close().catch(() => undefined);
    await server.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.stack : error);
    process.exit(1);
  },
);
