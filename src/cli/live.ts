/**
 * `prefix-lens proxy` and `prefix-lens run`: the proxy's verdict lines on
 * stderr (one per judged request; findings under the steps that are not patch)
 * and the summary when it stops.
 */
import type * as ChildProcess from 'node:child_process';
import { constants } from 'node:os';
import type { Decision } from '../core/findings';
import { escapeControls } from '../core/text';
import type { LiveOptions, ProxyCommand, RunCommand } from './live-args';
import { paletteFor, type Palette } from './plain';
import { verdictRules } from '../core/live/judge';
import { startProxy, type ProxyOptions, type VerdictEvent } from '../core/live/proxy';

/** Counts of what the proxy judged, for the summary. */
class Tally {
  readonly decisions: Record<Decision, number> = { patch: 0, defer: 0, abort: 0 };
  readonly threads = new Set<number>();
  refused = 0;

  add(event: VerdictEvent): void {
    this.decisions[event.verdict.decision]++;
    this.threads.add(event.verdict.thread);
    if (event.refused) this.refused++;
  }

  line(): string {
    const d = this.decisions;
    const requests = d.patch + d.defer + d.abort;
    return `prefix-lens: ${requests} request${requests === 1 ? '' : 's'} in ${this.threads.size} thread${this.threads.size === 1 ? '' : 's'}: ${d.patch} patch, ${d.defer} defer, ${d.abort} abort · ${this.refused} refused`;
  }
}

/** One line per judged request, then its deciding findings (escaped: they quote request content). */
export function verdictLines(event: VerdictEvent, c: Palette): string[] {
  const { verdict } = event;
  const word = verdict.decision.toUpperCase();
  const decision = verdict.decision === 'abort' ? c.red(c.bold(word)) : verdict.decision === 'defer' ? c.yellow(word) : c.green(word);
  const rules = verdictRules(verdict).join(' ');
  const head = `thread ${verdict.thread} step ${verdict.step} ${decision} ${escapeControls(event.path)}${rules ? ` ${rules}` : ''}${event.refused ? ` ${c.red('REFUSED')}` : ''}`;
  if (verdict.decision === 'patch') return [head];
  return [head, ...verdict.findings.map((f) => `  ${f.severity} ${c.dim(f.rule)} ${escapeControls(f.message)}${f.toolCallId ? ` ${c.dim(`[${escapeControls(f.toolCallId)}]`)}` : ''}`)];
}

function proxyOptions(command: LiveOptions, tally: Tally, c: Palette): ProxyOptions {
  return {
    ...command,
    onVerdict: (event) => {
      tally.add(event);
      process.stderr.write(`${verdictLines(event, c).join('\n')}\n`);
    },
  };
}

export async function runProxy(command: ProxyCommand): Promise<number> {
  const c = paletteFor(process.stderr.isTTY === true, process.env);
  const tally = new Tally();
  const proxy = await startProxy(proxyOptions(command, tally, c));
  process.stderr.write(
    `Prefix Lens proxy on ${proxy.url}${command.enforce ? ` (enforcing: refuses ${command.enforce === 'defer' ? 'defer and abort' : 'abort'})` : ''}${command.log ? `, logging to ${escapeControls(command.log)}` : ''}\n` +
      `  export ANTHROPIC_BASE_URL=${proxy.url}\n  export OPENAI_BASE_URL=${proxy.url}/v1\n`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await proxy.close();
  process.stderr.write(`${tally.line()}\n`);
  return 0;
}

export async function runCommand(command: RunCommand): Promise<number> {
  const c = paletteFor(process.stderr.isTTY === true, process.env);
  const tally = new Tally();
  const proxy = await startProxy(proxyOptions({ ...command, port: 0 }, tally, c));
  const [program, ...args] = command.argv as [string, ...string[]];
  const env = { ...process.env, ANTHROPIC_BASE_URL: proxy.url, OPENAI_BASE_URL: `${proxy.url}/v1` };
  const code = await new Promise<number>((resolve) => {
    // Loaded here, not with the CLI: ~2.5 ms of CPU at the start of every check.
    const { spawn } = require('node:child_process') as typeof ChildProcess;
    const child = spawn(program, args, { stdio: 'inherit', env });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('error', (error) => {
      process.stderr.write(`prefix-lens: cannot run ${escapeControls(program)}: ${escapeControls(error.message)}\n`);
      resolve(127);
    });
    child.on('exit', (status, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve(status ?? 128 + (signal ? constants.signals[signal] : 0));
    });
  });
  await proxy.close();
  process.stderr.write(`${tally.line()}\n`);
  return code;
}
