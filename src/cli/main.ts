/**
 * `prefix-lens check [--format F] [--json | --sarif] [--against OLD] FILE|DIR...`
 *
 * Exit 0: no error-level finding. 1: at least one. 2: a file could not be read,
 * its format was not recognised, or the command line was wrong. A Claude Code
 * session's sub-agent files (`<session-id>/subagents/agent-<id>.jsonl`) are
 * checked with it: each its own report after the session's, linked to its call. Bad input never
 * prints a stack trace (set PREFIX_LENS_DEBUG=1 to see one for an internal error).
 */
// First: V8's flags for this process, before any other module runs (jit.ts).
import './jit';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { version } from '../../package.json';
import type { Report } from '../core/results';
import { checkAgainst, checkTranscript } from '../core/check';
import { checkSession, readSubAgents } from '../core/sub-agents';
import { toJsonReport } from '../core/report/json';
import { toSarif } from '../core/report/sarif';
import { escapeControls, LineIndex } from '../core/text';
import { parseArgs, USAGE, type CheckCommand } from './args';
import { expandPaths, FORMAT_IDS, nameOf, openTranscript, type Located } from './files';
import { followFile } from './follow';
import { runCommand, runProxy } from './live';
import { paletteFor, plainReport } from './plain';

export const EXIT_OK = 0;
export const EXIT_FINDINGS = 1;
export const EXIT_TROUBLE = 2;

interface Outcome {
  readonly reports: Report[];
  /** One-line reasons for files that could not be checked. */
  readonly troubles: string[];
}

function main(argv: readonly string[]): number | Promise<number> {
  const command = parseArgs(argv, FORMAT_IDS);
  switch (command.kind) {
    case 'help':
      process.stdout.write(`${USAGE}\n`);
      return EXIT_OK;
    case 'version':
      process.stdout.write(`${version}\n`);
      return EXIT_OK;
    case 'usage-error':
      complain(command.message);
      process.stderr.write(`${USAGE.split('\n')[0]}\n`);
      return EXIT_TROUBLE;
    case 'check':
      return command.follow ? runFollow(command) : runCheckCommand(command);
    case 'proxy':
      return runProxy(command);
    case 'run':
      return runCommand(command);
  }
}

function runFollow(command: CheckCommand): number | Promise<number> {
  const [file] = command.paths;
  if (file === undefined || !fs.existsSync(file)) {
    complain(`${file}: cannot read (no such file)`);
    return EXIT_TROUBLE;
  }
  return followFile(file, command.format);
}

/** Runs `prefix-lens check`: checks every file it names, prints the reports, returns the exit code. */
function runCheckCommand(command: CheckCommand): number {
  const against = command.against === undefined ? undefined : expandPaths([command.against], command.format);
  if (against && against.files.length !== 1) {
    const reason = against.troubles[0] ?? `${command.against}: --against needs exactly one file`;
    complain(reason);
    return EXIT_TROUBLE;
  }
  const expanded = expandPaths(command.paths, command.format);
  const outcome: Outcome = { reports: [], troubles: [...expanded.troubles] };
  const named = new Set(expanded.files.map((f) => path.resolve(nameOf(f.path))));
  for (const file of expanded.files) {
    const checked = checkOne(file, command, against?.files[0]);
    if (typeof checked === 'string') {
      outcome.troubles.push(checked);
      continue;
    }
    outcome.reports.push(checked);
    outcome.troubles.push(...unfinished(checked));
    addSubAgents(checked, named, outcome);
  }
  for (const trouble of outcome.troubles) complain(trouble);
  printReports(outcome.reports, command);
  if (outcome.troubles.length > 0) return EXIT_TROUBLE;
  const hasError = outcome.reports.some((r) => r.findings.some((f) => f.severity === 'error'));
  return hasError ? EXIT_FINDINGS : EXIT_OK;
}

/** A session's sub-agent reports after it (each file once, also when named itself: `named` holds resolved paths); one not read is a trouble. */
function addSubAgents(report: Report, named: Set<string>, outcome: Outcome): void {
  for (const agent of report.subAgents ?? []) {
    if (named.has(path.resolve(agent.file))) continue;
    named.add(path.resolve(agent.file));
    if (!agent.report) {
      outcome.troubles.push(`${agent.file}: ${agent.unread ?? 'not read'}`);
      continue;
    }
    outcome.reports.push(agent.report);
    outcome.troubles.push(...unfinished(agent.report));
  }
}

/** Checks one file (as a rewrite of `old` when given); a string is a one-line reason it could not be checked. */
function checkOne(file: Located, command: CheckCommand, old: Located | undefined): Report | string {
  const options = { limits: command.limits, ...(command.tokens ? {} : { tokens: false as const }) };
  try {
    if (!old && file.format === 'claude-code' && typeof file.path === 'string') {
      return checkSession(openTranscript(file.path, command.limits), readSubAgents(file.path, command.limits), { ...options, format: file.format });
    }
    if (!old) return checkTranscript(openTranscript(file.path, command.limits), { ...options, format: file.format });
    return checkAgainst(openTranscript(old.path, command.limits), openTranscript(file.path, command.limits), {
      ...options,
      ...(command.format ? { format: command.format } : {}),
    });
  } catch (error) {
    if (process.env.PREFIX_LENS_DEBUG) process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    return `${nameOf(file.path)}: cannot be checked: ${oneLine(error)}`;
  }
}

/** Why a checked file has not passed whatever its findings: reading stopped, or findings went past the limit. */
function unfinished(report: Report): string[] {
  const out: string[] = [];
  if (report.stopped) {
    const { line, column } = LineIndex.fromStarts(report.lineStarts).position(report.stopped.offset);
    out.push(`${report.file}:${line}:${column}: reading stopped, the rest was not checked: ${report.stopped.reason}`);
  }
  const omitted = Object.entries(report.omitted ?? {});
  if (omitted.length > 0) {
    const counts = omitted.map(([rule, n]) => `${n} ${rule}`).join(', ');
    out.push(`${report.file}: more findings than the limit per rule, not listed: ${counts} (--max-findings-per-rule)`);
  }
  return out;
}

function printReports(reports: readonly Report[], command: CheckCommand): void {
  if (command.output === 'json') {
    process.stdout.write(`${JSON.stringify(reports.map(toJsonReport), null, 2)}\n`);
  } else if (command.output === 'sarif') {
    const sarif = toSarif(reports, {
      toolVersion: version,
      rulesDocUri: rulesDocUri(),
      baseUri: pathToFileURL(process.cwd()).href,
    });
    process.stdout.write(`${JSON.stringify(sarif, null, 2)}\n`);
  } else {
    const palette = paletteFor(process.stdout.isTTY === true, process.env);
    const blocks = reports.map((r) => plainReport(r, palette).join('\n'));
    if (blocks.length > 0) process.stdout.write(`${blocks.join('\n\n')}\n`);
  }
}

/** docs/rules.md of the installed package (dist/cli.js → ../docs/rules.md) as a file URI. */
function rulesDocUri(): string {
  const doc = path.resolve(__dirname, '..', 'docs', 'rules.md');
  return fs.existsSync(doc) ? pathToFileURL(doc).href : 'docs/rules.md';
}

/** One line on stderr; file names and messages from the input are shown escaped. */
function complain(reason: string): void {
  process.stderr.write(`prefix-lens: ${escapeControls(reason)}\n`);
}

function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0] ?? text;
}

// A reader that stops early (`prefix-lens check dir | head`) is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? EXIT_OK);
  throw error;
});

function internalError(error: unknown): number {
  if (process.env.PREFIX_LENS_DEBUG) process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  complain(`internal error: ${oneLine(error)}`);
  return EXIT_TROUBLE;
}

try {
  const result = main(process.argv.slice(2));
  if (typeof result === 'number') process.exitCode = result;
  else result.then((code) => process.exit(code), (error: unknown) => process.exit(internalError(error)));
} catch (error) {
  process.exitCode = internalError(error);
}
