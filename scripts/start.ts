/**
 * `npm start`: the Prefix Lens demo in a real VS Code. Installs what is
 * missing first (scripts/preflight.ts: system packages, then code-server into
 * ~/.cache/prefix-lens/, ~2 minutes the first time), starts code-server, loads the extension from source (development mode) and opens
 * `examples/` with the seed incident transcript, then prints the URL.
 *
 *   npm start                       # serve until Ctrl+C
 *   npm start -- --port 8080        # a fixed port
 *   npm start -- --screenshot FILE  # headless check: open it, save a screenshot, exit
 */
import { join, resolve } from 'node:path';
import { launchChromium, newWorkbenchPage } from './vscode/browser';
import { preflight } from './preflight';
import { ensureDir, REPO_ROOT, startCodeServer, workbenchUrl, type RunningCodeServer } from './vscode/codeServer';

interface StartArgs {
  readonly screenshot?: string;
  readonly port?: number;
}

function parseArgs(argv: readonly string[]): StartArgs {
  const at = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const screenshot = at('--screenshot');
  const port = at('--port');
  return { ...(screenshot && { screenshot: resolve(screenshot) }), ...(port && { port: Number(port) }) };
}

async function takeScreenshot(server: RunningCodeServer, url: string, file: string): Promise<void> {
  const browser = await launchChromium();
  try {
    const page = await newWorkbenchPage(browser);
    page.setDefaultTimeout(90_000);
    await page.goto(url, { waitUntil: 'commit', timeout: 180_000 }); // the workbench loads on; a busy machine is slow to fire 'load'
    await page.locator('.codelens-decoration', { hasText: 'Step 1/1' }).first().waitFor();
    await page.locator('.squiggly-error').first().waitFor();
    await page.waitForTimeout(500);
    await page.screenshot({ path: ensureDir(file) });
    console.log(`Screenshot: ${file}`);
  } finally {
    await browser.close();
    void server;
  }
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (!preflight(args.screenshot ? ['browser', 'code-server'] : ['code-server'])) process.exit(1);
  const server = await startCodeServer({ ...(args.port !== undefined && { port: args.port }) });
  const stop = async () => {
    await server.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  const url = workbenchUrl(server, {
    folder: join(REPO_ROOT, 'examples'),
    extensionDevelopmentPath: [REPO_ROOT],
    openFile: join(REPO_ROOT, 'examples', 'seed-incident.trace.jsonl'),
  });
  if (args.screenshot) {
    try {
      await takeScreenshot(server, url, args.screenshot);
    } finally {
      await server.stop();
    }
    return;
  }
  console.log('\nPrefix Lens is running in VS Code (code-server 4.100.3), with the extension loaded from source.');
  console.log(`Open this URL in a browser (use exactly this host, 127.0.0.1):\n\n  ${url}\n`);
  console.log('The seed incident transcript is open: see the CodeLens, the Problems panel, the Rewrites view,');
  // The seed incident's whole-pair fix only restores what its compaction dropped: it is named "Revert the rewrite" there.
  console.log('"Prefix Lens: Open Inspector" and the quick fix "Revert the rewrite". Ctrl+C stops the server.');
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
