/**
 * The first step of `npm start` and `npm test`: makes sure this machine has what
 * they need and installs what is missing, the way `playwright install --with-deps`
 * does: one line per package saying what and why, then `apt-get install -y` (as
 * root, or through `sudo -n`). Where it cannot (no apt-get, not root and no
 * passwordless sudo, macOS) it prints one line saying exactly what to install and
 * how, and the command stops before anything else runs.
 *
 *   node --import tsx scripts/preflight.ts browser code-server
 *
 * `browser`: Debian's chromium, driven by playwright-core (webview and VS Code
 * tests, `npm start -- --screenshot`). `code-server`: the real VS Code; building
 * it needs ripgrep, libkrb5-dev and a C++ toolchain, and only until it is installed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import {
  CHROMIUM,
  CODE_SERVER_VERSION,
  ensureCodeServer,
  findExecutable,
  INSTALL_DIR,
  isCodeServerInstalled,
  isExecutable,
} from './vscode/codeServer';

export type Need = 'browser' | 'code-server';

/** What the probes look at; `thisMachine()` is the real one, tests build their own. */
export interface Machine {
  readonly platform: NodeJS.Platform;
  /** PATH-style list searched for executables (rg, g++, apt-get, sudo, …). */
  readonly path: string;
  readonly isRoot: boolean;
  readonly chromium: string;
  readonly gssapiHeader: string;
  readonly codeServerInstalled: boolean;
}

interface SystemPackage {
  /** The Debian / Ubuntu package. */
  readonly name: string;
  readonly need: Need;
  readonly why: string;
  readonly present: (machine: Machine) => boolean;
  /** How to install it on macOS; absent: macOS has it. */
  readonly mac?: string;
}

const onPath = (command: string) => (machine: Machine) => findExecutable(command, machine.path) !== undefined;
const XCODE = 'xcode-select --install';

const PACKAGES: readonly SystemPackage[] = [
  {
    name: 'chromium',
    need: 'browser',
    why: 'the headless browser the webview and VS Code tests (and --screenshot) run in',
    present: (machine) => isExecutable(machine.chromium),
    mac: `brew install --cask chromium && export PREFIX_LENS_CHROMIUM=/Applications/Chromium.app/Contents/MacOS/Chromium`,
  },
  {
    name: 'ripgrep',
    need: 'code-server',
    why: "code-server's installer needs rg (it would download it from GitHub otherwise)",
    present: onPath('rg'),
    mac: 'brew install ripgrep',
  },
  {
    name: 'libkrb5-dev',
    need: 'code-server',
    why: "code-server's kerberos module compiles against gssapi/gssapi.h",
    present: (machine) => existsSync(machine.gssapiHeader),
  },
  { name: 'g++', need: 'code-server', why: "code-server's native modules compile from source", present: onPath('g++'), mac: XCODE },
  { name: 'make', need: 'code-server', why: "node-gyp runs make to build code-server's native modules", present: onPath('make'), mac: XCODE },
  { name: 'python3', need: 'code-server', why: "node-gyp needs python3 to build code-server's native modules", present: onPath('python3'), mac: XCODE },
];

type Log = (line: string) => void;

export type Plan =
  | { readonly kind: 'ready' }
  | { readonly kind: 'install'; readonly lines: readonly string[]; readonly commands: readonly (readonly string[])[] }
  | { readonly kind: 'impossible'; readonly message: string };

export function thisMachine(): Machine {
  return {
    platform: process.platform,
    path: process.env.PATH ?? '',
    isRoot: process.getuid?.() === 0,
    chromium: CHROMIUM,
    gssapiHeader: '/usr/include/gssapi/gssapi.h',
    codeServerInstalled: isCodeServerInstalled(),
  };
}

/** The packages `needs` calls for that this machine lacks (code-server's only while it is not installed). */
export function missingPackages(needs: readonly Need[], machine: Machine): SystemPackage[] {
  const wanted = (p: SystemPackage) => needs.includes(p.need) && (p.need !== 'code-server' || !machine.codeServerInstalled);
  const relevant = (p: SystemPackage) => machine.platform !== 'darwin' || p.mac !== undefined;
  return PACKAGES.filter((p) => wanted(p) && relevant(p) && !p.present(machine));
}

function canSudo(machine: Machine): string | undefined {
  const sudo = findExecutable('sudo', machine.path);
  if (sudo === undefined) return undefined;
  const probe = spawnSync(sudo, ['-n', 'true'], { stdio: 'ignore', env: { ...process.env, PATH: machine.path }, timeout: 10_000 });
  return probe.status === 0 ? sudo : undefined;
}

export function plan(needs: readonly Need[], machine: Machine): Plan {
  const missing = missingPackages(needs, machine);
  if (missing.length === 0) return { kind: 'ready' };
  const names = missing.map((p) => p.name).join(' ');
  if (machine.platform === 'darwin') {
    const how = [...new Set(missing.map((p) => p.mac))].join(' && ');
    return { kind: 'impossible', message: `Prefix Lens needs ${names} (macOS: not installed automatically). Install, then run this again: ${how}` };
  }
  if (findExecutable('apt-get', machine.path) === undefined) {
    return {
      kind: 'impossible',
      message: `Prefix Lens needs ${names} and found no apt-get to install them. Install them with your package manager, then run this again (Debian/Ubuntu: sudo apt-get install -y ${names})`,
    };
  }
  const sudo = machine.isRoot ? undefined : canSudo(machine);
  if (!machine.isRoot && sudo === undefined) {
    return {
      kind: 'impossible',
      message: `Prefix Lens needs ${names} and cannot install them (not root, no passwordless sudo). Install them, then run this again: sudo apt-get install -y ${names}`,
    };
  }
  const asRoot = [...(sudo ? [sudo, '-n'] : []), 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get'];
  const install = ['install', '-y', '-q', '--no-install-recommends', '-o', 'DPkg::Lock::Timeout=600'];
  return {
    kind: 'install',
    lines: missing.map((p) => `Installing ${p.name}: ${p.why}`),
    commands: [
      [...asRoot, 'update', '-qq', '-o', 'DPkg::Lock::Timeout=600'],
      [...asRoot, ...install, ...missing.map((p) => p.name)],
    ],
  };
}

/** Runs the plan's commands; one line and `false` when something fails. */
function install(steps: Extract<Plan, { kind: 'install' }>, needs: readonly Need[], machine: Machine, log: Log, fail: Log): boolean {
  for (const line of steps.lines) log(line);
  for (const [command, ...args] of steps.commands) {
    log(`$ ${[command, ...args].join(' ')}`);
    const run = spawnSync(command ?? '', args, { stdio: 'inherit', env: { ...process.env, PATH: machine.path } });
    if (run.status !== 0) {
      const names = missingPackages(needs, machine).map((p) => p.name).join(' ');
      fail(`apt-get failed (${run.error?.message ?? `exit ${run.status}`}). Install them, then run this again: sudo apt-get install -y ${names}`);
      return false;
    }
  }
  const still = missingPackages(needs, machine).map((p) => p.name);
  if (still.length > 0) fail(`Still missing after apt-get: ${still.join(' ')} (PREFIX_LENS_CHROMIUM must point at chromium, if set)`);
  return still.length === 0;
}

/** Checks and installs what `needs` call for; `false` (after one line on `fail`) when the command must stop. */
export function preflight(
  needs: readonly Need[],
  machine: Machine = thisMachine(),
  log: Log = console.log,
  fail: Log = console.error,
): boolean {
  const steps = plan(needs, machine);
  if (steps.kind === 'impossible') {
    fail(steps.message);
    return false;
  }
  if (steps.kind === 'install' && !install(steps, needs, machine, log, fail)) return false;
  if (!needs.includes('code-server') || machine.codeServerInstalled) return true;
  try {
    ensureCodeServer(log);
    return true;
  } catch (error) {
    fail(`code-server ${CODE_SERVER_VERSION} did not install into ${INSTALL_DIR}: ${error instanceof Error ? error.message : String(error)}`);
    return false;
  }
}

if (require.main === module) {
  const needs = process.argv.slice(2).filter((a): a is Need => a === 'browser' || a === 'code-server');
  process.exitCode = preflight(needs) ? 0 : 1;
}
