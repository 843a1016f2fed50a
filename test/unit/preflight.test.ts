/**
 * The preflight of `npm start` / `npm test` (scripts/preflight.ts), with its real
 * probes pointed at a sandbox: a PATH holding only the executables a case gives it
 * (shell scripts for rg, g++, sudo, apt-get, …), a chromium file and a gssapi header
 * that exist or not, root or not.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { type Machine, plan, preflight } from '../../scripts/preflight';

const BUILD_TOOLS = ['g++', 'make', 'python3'];
const TMP = mkdtempSync(join(tmpdir(), 'pl-preflight-'));
after(() => rmSync(TMP, { recursive: true, force: true }));

interface SandboxOptions {
  /** Executables on PATH, as shell script bodies. */
  readonly tools?: Readonly<Record<string, string>>;
  readonly chromium?: boolean;
  readonly gssapi?: boolean;
  readonly isRoot?: boolean;
  readonly platform?: NodeJS.Platform;
  readonly codeServerInstalled?: boolean;
}

function script(file: string, body: string): void {
  writeFileSync(file, `#!/bin/sh\nPATH=/usr/bin:/bin\n${body}\n`);
  chmodSync(file, 0o755);
}

function sandbox(options: SandboxOptions): Machine & { readonly root: string; readonly bin: string } {
  const root = mkdtempSync(join(TMP, 'machine-'));
  const bin = join(root, 'bin');
  mkdirSync(bin);
  symlinkSync('/usr/bin/env', join(bin, 'env')); // the commands run `env DEBIAN_FRONTEND=… apt-get`
  for (const [name, body] of Object.entries(options.tools ?? {})) script(join(bin, name), body);
  const chromium = join(root, 'chromium');
  if (options.chromium) script(chromium, 'exit 0');
  const gssapiHeader = join(root, 'gssapi.h');
  if (options.gssapi) writeFileSync(gssapiHeader, '/* gssapi */\n');
  return {
    root,
    bin,
    platform: options.platform ?? 'linux',
    path: bin,
    isRoot: options.isRoot ?? true,
    chromium,
    gssapiHeader,
    codeServerInstalled: options.codeServerInstalled ?? false,
  };
}

const tools = (...names: string[]) => Object.fromEntries(names.map((n) => [n, 'exit 0']));
const APT = '-o DPkg::Lock::Timeout=600';

test('everything present: nothing to install', () => {
  const machine = sandbox({ tools: tools('rg', 'apt-get', ...BUILD_TOOLS), chromium: true, gssapi: true });
  assert.deepEqual(plan(['browser', 'code-server'], machine), { kind: 'ready' });
});

test('code-server already installed: ripgrep, libkrb5-dev and the compilers are not needed', () => {
  const machine = sandbox({ tools: tools('apt-get'), chromium: true, codeServerInstalled: true });
  assert.deepEqual(plan(['browser', 'code-server'], machine), { kind: 'ready' });
});

test('npm start without --screenshot needs no browser', () => {
  const machine = sandbox({ tools: tools('rg', 'apt-get', ...BUILD_TOOLS), gssapi: true });
  assert.deepEqual(plan(['code-server'], machine), { kind: 'ready' });
  assert.equal(plan(['browser', 'code-server'], machine).kind, 'install');
});

test('root with apt-get: one line per missing package, then apt-get update and install', () => {
  const machine = sandbox({ tools: tools('apt-get', 'make', 'python3') });
  const steps = plan(['browser', 'code-server'], machine);
  assert.deepEqual(steps, {
    kind: 'install',
    lines: [
      'Installing chromium: the headless browser the webview and VS Code tests (and --screenshot) run in',
      "Installing ripgrep: code-server's installer needs rg (it would download it from GitHub otherwise)",
      "Installing libkrb5-dev: code-server's kerberos module compiles against gssapi/gssapi.h",
      "Installing g++: code-server's native modules compile from source",
    ],
    commands: [
      ['env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', 'update', '-qq', '-o', 'DPkg::Lock::Timeout=600'],
      ['env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', 'install', '-y', '-q', '--no-install-recommends', '-o', 'DPkg::Lock::Timeout=600', 'chromium', 'ripgrep', 'libkrb5-dev', 'g++'],
    ],
  });
});

test('not root, passwordless sudo: the same commands through sudo -n', () => {
  const machine = sandbox({ tools: { ...tools('apt-get', ...BUILD_TOOLS), sudo: '[ "$1" = -n ] && shift; exec "$@"' }, isRoot: false, gssapi: true });
  const steps = plan(['browser', 'code-server'], machine);
  assert.equal(steps.kind, 'install');
  const sudo = join(machine.bin, 'sudo');
  assert.deepEqual(steps.kind === 'install' && steps.commands.map((c) => c.slice(0, 5)), [
    [sudo, '-n', 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get'],
    [sudo, '-n', 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get'],
  ]);
  assert.deepEqual(steps.kind === 'install' && steps.commands[1]?.slice(-2), ['chromium', 'ripgrep']);
});

const NO_SUDO_LINE =
  'Prefix Lens needs chromium ripgrep and cannot install them (not root, no passwordless sudo). ' +
  'Install them, then run this again: sudo apt-get install -y chromium ripgrep';

test('not root, sudo wants a password: one line naming the apt-get command', () => {
  const machine = sandbox({ tools: { ...tools('apt-get', ...BUILD_TOOLS), sudo: 'exit 1' }, isRoot: false, gssapi: true });
  assert.deepEqual(plan(['browser', 'code-server'], machine), { kind: 'impossible', message: NO_SUDO_LINE });
});

test('not root and no sudo at all: the same line', () => {
  const machine = sandbox({ tools: tools('apt-get', ...BUILD_TOOLS), isRoot: false, gssapi: true });
  assert.deepEqual(plan(['browser', 'code-server'], machine), { kind: 'impossible', message: NO_SUDO_LINE });
});

test('no apt-get: one line, naming the Debian packages', () => {
  const machine = sandbox({ tools: tools(...BUILD_TOOLS), gssapi: true });
  assert.deepEqual(plan(['browser', 'code-server'], machine), {
    kind: 'impossible',
    message:
      'Prefix Lens needs chromium ripgrep and found no apt-get to install them. Install them with your package manager, ' +
      'then run this again (Debian/Ubuntu: sudo apt-get install -y chromium ripgrep)',
  });
});

test('macOS: brew and Xcode commands, no libkrb5-dev', () => {
  const machine = sandbox({ platform: 'darwin', tools: tools('python3') });
  assert.deepEqual(plan(['browser', 'code-server'], machine), {
    kind: 'impossible',
    message:
      'Prefix Lens needs chromium ripgrep g++ make (macOS: not installed automatically). Install, then run this again: ' +
      'brew install --cask chromium && export PREFIX_LENS_CHROMIUM=/Applications/Chromium.app/Contents/MacOS/Chromium && ' +
      'brew install ripgrep && xcode-select --install',
  });
});

/** An apt-get that records its arguments and environment, and "installs" chromium unless told to fail. */
function recordingAptGet(machine: ReturnType<typeof sandbox>, behaviour: 'installs' | 'installs nothing' | 'fails'): string {
  const record = join(machine.root, 'apt-get.log');
  script(
    join(machine.bin, 'apt-get'),
    [
      `echo "$DEBIAN_FRONTEND $*" >> ${record}`,
      behaviour === 'fails' ? 'exit 100' : '',
      behaviour === 'installs' ? `if [ "$1" = install ]; then printf '#!/bin/sh\\n' > ${machine.chromium}; chmod +x ${machine.chromium}; fi` : '',
    ].join('\n'),
  );
  return record;
}

function collect(): { lines: string[]; log: (line: string) => void } {
  const lines: string[] = [];
  return { lines, log: (line) => lines.push(line) };
}

test('preflight says what and why, runs apt-get update then install, checks again: true', () => {
  const machine = sandbox({ tools: tools(...BUILD_TOOLS), codeServerInstalled: true });
  const record = recordingAptGet(machine, 'installs');
  const out = collect();
  const errors = collect();
  assert.equal(preflight(['browser', 'code-server'], machine, out.log, errors.log), true);
  assert.deepEqual(errors.lines, []);
  assert.deepEqual(readFileSync(record, 'utf8').split('\n'), [
    `noninteractive update -qq ${APT}`,
    `noninteractive install -y -q --no-install-recommends ${APT} chromium`,
    '',
  ]);
  assert.deepEqual(out.lines, [
    'Installing chromium: the headless browser the webview and VS Code tests (and --screenshot) run in',
    `$ env DEBIAN_FRONTEND=noninteractive apt-get update -qq ${APT}`,
    `$ env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends ${APT} chromium`,
  ]);
});

test('apt-get failing: one line with the command to run by hand, false', () => {
  const machine = sandbox({ tools: tools(...BUILD_TOOLS), gssapi: true, codeServerInstalled: true });
  recordingAptGet(machine, 'fails');
  const errors = collect();
  assert.equal(preflight(['browser'], machine, () => undefined, errors.log), false);
  assert.deepEqual(errors.lines, ['apt-get failed (exit 100). Install them, then run this again: sudo apt-get install -y chromium']);
});

test('apt-get succeeding but the package still missing: one line, false', () => {
  const machine = sandbox({ tools: tools(...BUILD_TOOLS), codeServerInstalled: true });
  recordingAptGet(machine, 'installs nothing');
  const errors = collect();
  assert.equal(preflight(['browser', 'code-server'], machine, () => undefined, errors.log), false);
  assert.deepEqual(errors.lines, ['Still missing after apt-get: chromium (PREFIX_LENS_CHROMIUM must point at chromium, if set)']);
});

test('impossible: one line on stderr, exit 1, nothing else runs (the real CLI, with a PATH that hides apt-get)', () => {
  const empty = mkdtempSync(join(TMP, 'empty-path-'));
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, '..', '..', 'scripts', 'preflight.ts'), 'browser'], {
    encoding: 'utf8',
    env: { ...process.env, PATH: empty, PREFIX_LENS_CHROMIUM: join(empty, 'chromium') },
  });
  assert.equal(run.status, 1);
  assert.equal(run.stdout, '');
  assert.equal(
    run.stderr,
    'Prefix Lens needs chromium and found no apt-get to install them. Install them with your package manager, ' +
      'then run this again (Debian/Ubuntu: sudo apt-get install -y chromium)\n',
  );
});
