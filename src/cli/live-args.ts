/** The command lines of `prefix-lens proxy` and `prefix-lens run`. Never throws. */

export interface LiveOptions {
  readonly port?: number;
  readonly upstream?: string;
  readonly log?: string;
  readonly enforce?: 'abort' | 'defer';
}

export interface ProxyCommand extends LiveOptions {
  readonly kind: 'proxy';
}

export interface RunCommand extends LiveOptions {
  readonly kind: 'run';
  /** The command to run and its arguments (after `--`). */
  readonly argv: readonly string[];
}

export const LIVE_USAGE = `       prefix-lens proxy [--port P] [--upstream URL] [--log FILE] [--enforce[=defer]]
       prefix-lens run [--upstream URL] [--log FILE] [--enforce[=defer]] -- CMD ARGS...

proxy: serves the Anthropic Messages, OpenAI Chat Completions and Responses
endpoints on 127.0.0.1:P, judges every request against the earlier request of
its conversation, forwards it (streams byte for byte) and appends each exchange
to FILE. --enforce refuses aborting requests (=defer: defer ones too) with a 400
in the provider's error shape. run: the proxy on a free port, CMD run with
ANTHROPIC_BASE_URL and OPENAI_BASE_URL pointing at it, a summary at exit.`;

type Help = { readonly kind: 'help' };
type UsageError = { readonly kind: 'usage-error'; readonly message: string };

export function parseLiveArgs(command: 'proxy' | 'run', args: readonly string[]): ProxyCommand | RunCommand | Help | UsageError {
  const options: { port?: number; upstream?: string; log?: string; enforce?: 'abort' | 'defer' } = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--' && command === 'run') {
      const argv = args.slice(i + 1);
      if (argv.length === 0) return usage('no command given after --');
      return { kind: 'run', ...options, argv };
    }
    if (arg === '-h' || arg === '--help') return { kind: 'help' };
    const eq = arg.indexOf('=');
    const [flag, inline] = arg.startsWith('--') && eq !== -1 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
    if (flag === '--enforce') {
      if (inline !== undefined && inline !== 'defer' && inline !== 'abort') return usage(`--enforce takes =defer or =abort, not '${inline}'`);
      options.enforce = inline === 'defer' ? 'defer' : 'abort';
    } else if (flag === '--port' || flag === '--upstream' || flag === '--log') {
      const value = inline ?? args[++i];
      if (value === undefined || value === '') return usage(`${flag} needs a value`);
      const error = setOption(options, flag, value, command);
      if (error) return usage(error);
    } else {
      return usage(`unknown ${arg.startsWith('-') ? 'option' : 'argument'} '${arg}'${command === 'run' ? ' (the command goes after --)' : ''}`);
    }
  }
  if (command === 'run') return usage('no command given (prefix-lens run -- CMD ARGS...)');
  return { kind: 'proxy', ...options };
}

function setOption(options: { port?: number; upstream?: string; log?: string }, flag: string, value: string, command: string): string | undefined {
  if (flag === '--port') {
    if (command === 'run') return '--port is chosen by run itself (a free port)';
    const port = Number(value);
    if (!Number.isInteger(port) || port < 0 || port > 65535) return `--port needs a port number, not '${value}'`;
    options.port = port;
  } else if (flag === '--upstream') {
    if (!/^https?:\/\//.test(value) || !URL.canParse(value)) return `--upstream needs an http(s) URL, not '${value}'`;
    options.upstream = value;
  } else {
    options.log = value;
  }
  return undefined;
}

function usage(message: string): UsageError {
  return { kind: 'usage-error', message };
}
