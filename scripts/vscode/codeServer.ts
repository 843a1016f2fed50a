/**
 * code-server 4.100.3 (= VS Code 1.100.3) as a real VS Code for this project's
 * tests and `npm start`, offline: installed once per machine into the user's cache
 * (`~/.cache/prefix-lens/code-server-4.100.3`), started on a free 127.0.0.1 port with a fresh user-data-dir, and
 * stopped by killing its whole process group. See docs/real-vscode-offline.md.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';

export const CODE_SERVER_VERSION = '4.100.3';
export const REPO_ROOT = resolve(__dirname, '..', '..');
/**
 * Where code-server is installed: `PREFIX_LENS_CODE_SERVER_DIR`, else
 * `$XDG_CACHE_HOME/prefix-lens/code-server-4.100.3` (`~/.cache/...`), outside the
 * clone like Playwright's browser cache, so every clone and CI run on a machine
 * pays the ~2 minute install once.
 */
export const INSTALL_DIR = resolve(
  process.env.PREFIX_LENS_CODE_SERVER_DIR ||
    join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'prefix-lens', `code-server-${CODE_SERVER_VERSION}`),
);
export const CODE_SERVER_BIN = join(INSTALL_DIR, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
export const CHROMIUM = process.env.PREFIX_LENS_CHROMIUM ?? '/usr/bin/chromium';
const HOST = '127.0.0.1';

/**
 * The settings of every fresh user-data-dir: no dialogs, no network, no tips,
 * and no auto-save (VS Code for the Web saves 1 s after an edit by default,
 * desktop VS Code does not: a test's edit of a file would be written to disk).
 */
export const QUIET_SETTINGS: Readonly<Record<string, unknown>> = {
  'files.autoSave': 'off',
  'workbench.startupEditor': 'none',
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'workbench.tips.enabled': false,
  'git.enabled': false,
  'window.restoreWindows': 'none',
  'chat.disableAIFeatures': true,
  'workbench.enableExperiments': false,
};

/** The executable `name` on `path` (a PATH-style list), if any. */
export function findExecutable(name: string, path = process.env.PATH ?? ''): string | undefined {
  return path
    .split(delimiter)
    .filter((dir) => dir !== '')
    .map((dir) => join(dir, name))
    .find(isExecutable);
}

export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

export function isCodeServerInstalled(): boolean {
  return installedVersion() === CODE_SERVER_VERSION;
}

function installedVersion(): string | undefined {
  const manifest = join(INSTALL_DIR, 'node_modules', 'code-server', 'package.json');
  if (!existsSync(manifest) || !existsSync(CODE_SERVER_BIN)) return undefined;
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version;
}

/**
 * `@vscode/ripgrep`'s postinstall downloads `rg` from GitHub; it first looks in
 * this cache, so a tarball of Debian's `rg` lets it install offline.
 */
export function prefillRipgrepCache(): void {
  const rg = findExecutable('rg');
  if (!rg) throw new Error('ripgrep is missing: apt-get install -y ripgrep (npm start and npm test install it themselves)');
  const cache = join(process.env.TMPDIR ?? tmpdir(), 'vscode-ripgrep-cache-1.15.11');
  const tarball = join(cache, 'ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz');
  if (existsSync(tarball)) return;
  mkdirSync(cache, { recursive: true });
  const staging = mkdtempSync(join(tmpdir(), 'rg-'));
  copyFileSync(rg, join(staging, 'rg'));
  execFileSync('tar', ['-czf', tarball, '-C', staging, 'rg']);
  rmSync(staging, { recursive: true, force: true });
}

/** Installs code-server into INSTALL_DIR unless that version is already there. */
export function ensureCodeServer(log: (line: string) => void = (l) => console.error(l)): string {
  if (isCodeServerInstalled()) return CODE_SERVER_BIN;
  log(`Installing code-server ${CODE_SERVER_VERSION} into ${INSTALL_DIR}: the real VS Code the extension runs in (once per machine, about 2 minutes)`);
  prefillRipgrepCache();
  // Install next to the target and rename: a concurrent or interrupted install never leaves a half folder.
  const staging = `${INSTALL_DIR}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  writeFileSync(join(staging, 'package.json'), '{ "name": "prefix-lens-code-server", "private": true }\n');
  try {
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', `code-server@${CODE_SERVER_VERSION}`], {
      cwd: staging,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, npm_config_unsafe_perm: 'true', npm_config_yes: 'true' },
    });
    if (installedVersion() !== CODE_SERVER_VERSION) {
      rmSync(INSTALL_DIR, { recursive: true, force: true });
      mkdirSync(dirname(INSTALL_DIR), { recursive: true });
      renameSync(staging, INSTALL_DIR);
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  if (installedVersion() !== CODE_SERVER_VERSION) throw new Error('code-server did not install');
  return CODE_SERVER_BIN;
}

export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, HOST, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => done(port));
    });
  });
}

export interface StartOptions {
  /** Extra user settings, merged over QUIET_SETTINGS. */
  readonly settings?: Readonly<Record<string, unknown>>;
  /** Environment for the server (and so the extension host). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Keep the server's output on our stderr. */
  readonly verbose?: boolean;
  /** A fixed port (default: a free one). */
  readonly port?: number;
}

export interface RunningCodeServer {
  readonly host: string;
  readonly port: number;
  /** `http://127.0.0.1:PORT` — use exactly this host in the browser. */
  readonly origin: string;
  readonly userDataDir: string;
  readonly process: ChildProcess;
  /** Server output so far (for failure reports). */
  output(): string;
  stop(): Promise<void>;
}

/** Starts code-server detached (its own process group) and waits for `/healthz`. */
export async function startCodeServer(options: StartOptions = {}): Promise<RunningCodeServer> {
  const bin = ensureCodeServer();
  const port = options.port ?? (await freePort());
  const root = mkdtempSync(join(tmpdir(), 'prefix-lens-vscode-'));
  const dirs = { ud: join(root, 'user-data'), ext: join(root, 'extensions'), cfg: join(root, 'config'), data: join(root, 'data') };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
  mkdirSync(join(dirs.ud, 'User'), { recursive: true });
  const settings = { ...QUIET_SETTINGS, ...options.settings };
  writeFileSync(join(dirs.ud, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
  const args = [
    bin, '--auth', 'none', '--bind-addr', `${HOST}:${port}`, '--user-data-dir', dirs.ud, '--extensions-dir', dirs.ext,
    '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--disable-getting-started-override',
    '--ignore-last-opened',
  ];
  const env = { ...process.env, XDG_CONFIG_HOME: dirs.cfg, XDG_DATA_HOME: dirs.data, ...options.env };
  const child = spawn(process.execPath, args, { detached: true, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    if (options.verbose) process.stderr.write(chunk);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const origin = `http://${HOST}:${port}`;
  const stop = () => stopProcessGroup(child, root);
  try {
    await waitForHealth(origin, child, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { host: HOST, port, origin, userDataDir: dirs.ud, process: child, output: () => output, stop };
}

async function waitForHealth(origin: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`code-server exited (${child.exitCode}):\n${output()}`);
    try {
      const res = await fetch(`${origin}/healthz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`code-server did not become healthy within 180 s:\n${output()}`);
}

/** Kills the whole process group (the pid alone leaves a file watcher running), then removes the temp dirs. */
async function stopProcessGroup(child: ChildProcess, root: string): Promise<void> {
  const pid = child.pid;
  if (pid !== undefined && child.exitCode === null) {
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {
      // already gone
    }
    const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 5000));
    if ((await Promise.race([exited, timeout])) === 'timeout') {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  try {
    if (pid !== undefined) process.kill(-pid, 'SIGKILL'); // stragglers of the group
  } catch {
    // none left
  }
  rmSync(root, { recursive: true, force: true });
}

export interface WorkbenchTarget {
  /** Folder to open. */
  readonly folder: string;
  /** Extension folder loaded from source (development mode). */
  readonly extensionDevelopmentPath?: readonly string[];
  /** Module run as the extension-host test runner (exports `run()`). */
  readonly extensionTestsPath?: string;
  readonly openFile?: string;
}

/** The workbench URL with the payload that loads extensions from source and opens a file. */
export function workbenchUrl(server: Pick<RunningCodeServer, 'host' | 'port' | 'origin'>, target: WorkbenchTarget): string {
  const remote = (p: string) => `vscode-remote://${server.host}:${server.port}${resolve(p)}`;
  const payload: [string, string][] = [];
  for (const dev of target.extensionDevelopmentPath ?? []) payload.push(['extensionDevelopmentPath', remote(dev)]);
  if (target.extensionTestsPath) payload.push(['extensionTestsPath', remote(target.extensionTestsPath)]);
  if (target.openFile) payload.push(['openFile', remote(target.openFile)]);
  const query = new URLSearchParams({ folder: resolve(target.folder) });
  if (payload.length > 0) query.set('payload', JSON.stringify(payload));
  return `${server.origin}/?${query.toString()}`;
}

export function ensureDir(path: string): string {
  mkdirSync(dirname(path), { recursive: true });
  return path;
}
