/** Parses the `prefix-lens` command line. Never throws: a bad command line is a usage error. */
import type { Limits } from '../core/limits';
import type { FormatId } from '../core/model';
import { LIVE_USAGE, parseLiveArgs, type ProxyCommand, type RunCommand } from './live-args';

export type OutputMode = 'plain' | 'json' | 'sarif';

export interface CheckCommand {
  readonly kind: 'check';
  readonly format?: FormatId;
  readonly output: OutputMode;
  /** `--against OLD`: judge each FILE as a rewrite of OLD. */
  readonly against?: string;
  /** `--follow`: keep reading the one FILE as it grows. */
  readonly follow?: boolean;
  readonly paths: readonly string[];
  /** `--no-tokens`: no token counts (fastest). */
  readonly tokens: boolean;
  /** `--max-…` options given. */
  readonly limits: Partial<Limits>;
}

/** The limit options (docs/limits.md). */
const LIMIT_FLAGS: Readonly<Record<string, keyof Limits>> = {
  '--max-file-bytes': 'maxFileBytes',
  '--max-line-chars': 'maxLineChars',
  '--max-decompressed-bytes': 'maxDecompressedBytes',
  '--max-zip-entries': 'maxZipEntries',
  '--max-findings-per-rule': 'maxFindingsPerRule',
};

export type Command =
  | CheckCommand
  | ProxyCommand
  | RunCommand
  | { readonly kind: 'help' }
  | { readonly kind: 'version' }
  | { readonly kind: 'usage-error'; readonly message: string };

export const USAGE = `Usage: prefix-lens check [--format F] [--json | --sarif] [--against OLD] [--no-tokens] [--max-… N] FILE|DIR...
       prefix-lens check --follow FILE
${LIVE_USAGE}

Checks agent transcripts and request logs: every rewrite of the context window
must keep the consumed prefix byte-identical and tool call/result pairs whole.

Options:
  --format F     read every FILE as format F instead of detecting it from content
  --json         print a JSON array, one report per file
  --sarif        print SARIF 2.1.0
  --against OLD  judge FILE as a rewrite of the snapshot OLD (one step)
  --no-tokens    do not count tokens (no cache impact; fastest)
  --max-file-bytes N, --max-line-chars N, --max-decompressed-bytes N,
  --max-zip-entries N, --max-findings-per-rule N
                 limits on what is read and listed (defaults: docs/limits.md);
                 going past one ends that file with exit 2
  --follow       print each step of FILE as its lines arrive; the summary on Ctrl+C
  -h, --help     show this help
  -v, --version  show the version

A directory means every file in it (recursively) whose format is recognised.
Exit status: 0 no error-level finding, 1 an error-level finding, 2 a file could
not be read to its end, went past a limit or its format was not recognised (or
a usage error).`;

interface Draft {
  format?: string;
  output: OutputMode;
  against?: string;
  follow?: boolean;
  paths: string[];
  tokens: boolean;
  limits: Partial<Record<keyof Limits, number>>;
}

/** Parses the arguments after `node cli.js`. `formats` are the known format ids. */
export function parseArgs(argv: readonly string[], formats: readonly string[]): Command {
  if (argv.length === 0) return { kind: 'usage-error', message: 'missing command (try `prefix-lens check FILE`)' };
  const [command, ...rest] = argv;
  if (command === '-h' || command === '--help' || command === 'help') return { kind: 'help' };
  if (command === '-v' || command === '--version') return { kind: 'version' };
  if (command === 'proxy' || command === 'run') return parseLiveArgs(command, rest);
  if (rest.includes('-h') || rest.includes('--help')) return { kind: 'help' };
  if (command !== 'check') return { kind: 'usage-error', message: `unknown command '${command}' (the commands are \`check\`, \`proxy\`, \`run\`)` };
  const draft = parseCheckArgs(rest);
  if (typeof draft === 'string') return { kind: 'usage-error', message: draft };
  if (draft.format !== undefined && !formats.includes(draft.format)) {
    return { kind: 'usage-error', message: `unknown format '${draft.format}' (known: ${formats.join(', ')})` };
  }
  if (draft.paths.length === 0) return { kind: 'usage-error', message: 'no FILE given' };
  if (draft.follow && (draft.paths.length !== 1 || draft.against !== undefined || draft.output !== 'plain')) {
    return { kind: 'usage-error', message: '--follow takes exactly one FILE (plain output, no --against)' };
  }
  return {
    kind: 'check',
    output: draft.output,
    paths: draft.paths,
    tokens: draft.tokens,
    limits: draft.limits,
    ...(draft.format !== undefined ? { format: draft.format as FormatId } : {}),
    ...(draft.against !== undefined ? { against: draft.against } : {}),
    ...(draft.follow ? { follow: true } : {}),
  };
}

/** Returns the options of `check`, or an error message. */
function parseCheckArgs(args: readonly string[]): Draft | string {
  const draft: Draft = { output: 'plain', paths: [], tokens: true, limits: {} };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    const [flag, inline] = splitInline(arg);
    if (flag === '--json' || flag === '--sarif') {
      const mode = flag === '--json' ? 'json' : 'sarif';
      if (draft.output !== 'plain' && draft.output !== mode) return '--json and --sarif exclude each other';
      draft.output = mode;
    } else if (flag === '--format' || flag === '--against') {
      const value = inline ?? args[++i];
      if (value === undefined || value === '') return `${flag} needs a value`;
      if (flag === '--format') draft.format = value;
      else draft.against = value;
    } else if (flag === '--no-tokens') {
      draft.tokens = false;
    } else if (LIMIT_FLAGS[flag] !== undefined) {
      const value = inline ?? args[++i];
      if (value === undefined || !/^\d+$/.test(value)) return `${flag} needs a whole number`;
      draft.limits[LIMIT_FLAGS[flag]] = Number(value);
    } else if (arg === '--follow') {
      draft.follow = true;
    } else if (arg === '--') {
      draft.paths.push(...args.slice(i + 1));
      break;
    } else if (arg.startsWith('-') && arg !== '-') {
      return `unknown option '${arg}'`;
    } else {
      draft.paths.push(arg);
    }
  }
  return draft;
}

/** `--format=x` → [`--format`, `x`]. */
function splitInline(arg: string): [string, string | undefined] {
  const eq = arg.indexOf('=');
  if (!arg.startsWith('--') || eq === -1) return [arg, undefined];
  return [arg.slice(0, eq), arg.slice(eq + 1)];
}
