/**
 * The CLI's plain output: one line per finding (`file:line:col severity rule
 * message`), one line per step (runs of patch steps folded), then a summary.
 * Coloured only when asked (stdout is a TTY and NO_COLOR is unset).
 */
import type { Report, StepReport } from '../core/results';
import type { Decision, Finding, Severity } from '../core/findings';
import { shownThread } from '../core/report/json';
import { formatNumber, summaryLine } from '../core/report/markdown';
import { escapeControls as esc, LineIndex } from '../core/text';

export interface Palette {
  readonly red: (s: string) => string;
  readonly yellow: (s: string) => string;
  readonly green: (s: string) => string;
  readonly cyan: (s: string) => string;
  readonly dim: (s: string) => string;
  readonly bold: (s: string) => string;
}

const ansi = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;

export const COLOURS: Palette = {
  red: ansi(31, 39),
  yellow: ansi(33, 39),
  green: ansi(32, 39),
  cyan: ansi(36, 39),
  dim: ansi(2, 22),
  bold: ansi(1, 22),
};

const same = (s: string) => s;
export const NO_COLOURS: Palette = { red: same, yellow: same, green: same, cyan: same, dim: same, bold: same };

/** Colour only for a terminal, and never when NO_COLOR is set (https://no-color.org). */
export function paletteFor(isTty: boolean, env: NodeJS.ProcessEnv): Palette {
  return isTty && !env.NO_COLOR ? COLOURS : NO_COLOURS;
}

/** Steps in a run of more than this many consecutive patch steps are folded into one line. */
const FOLD_PATCH_RUN = 2;

/**
 * The plain lines of one report (no trailing newline). Everything that came
 * from the input (file name, messages, ids) is shown with its control
 * characters escaped, so a transcript cannot move the cursor or fake a line.
 */
export function plainReport(report: Report, c: Palette): string[] {
  const lines = LineIndex.fromStarts(report.lineStarts);
  const file = esc(report.file);
  const out = report.findings.map((f) => findingLine(report.file, f, lines, c));
  out.push(...stepLines(report.steps, c));
  out.push(`${c.bold(file)}: ${esc(summaryLine(report).replace(/`/g, ''))}`);
  for (const agent of report.subAgents ?? []) out.push(`  ${esc(agent.thread.label)}${agent.thread.parentCall === undefined ? ', no call found' : `, started by ${esc(agent.thread.parentCall)}`}: ${esc(agent.file)}${agent.unread === undefined ? '' : ` (${esc(agent.unread)})`}`);
  return out;
}

/** `file:line:col severity rule message [call id]`, input text escaped. */
export function findingLine(file: string, f: Finding, lines: Pick<LineIndex, 'position'>, c: Palette): string {
  const { line, column } = lines.position(f.range.start);
  const id = f.toolCallId !== undefined ? ` ${c.dim(`[${esc(f.toolCallId)}]`)}` : '';
  return `${c.bold(`${esc(file)}:${line}:${column}`)} ${severity(f.severity, c)} ${c.dim(f.rule)} ${esc(f.message)}${id}`;
}

function stepLines(steps: readonly StepReport[], c: Palette): string[] {
  const out: string[] = [];
  const total = steps.length;
  for (let i = 0; i < steps.length; ) {
    const step = steps[i];
    if (!step) break;
    let end = i;
    while (step.decision === 'patch' && steps[end + 1]?.decision === 'patch' && steps[end + 1]?.thread === step.thread) end++;
    if (end - i + 1 > FOLD_PATCH_RUN) {
      out.push(`steps ${step.index}–${steps[end]?.index ?? step.index}/${total}${threadWords(steps, step)} ${decision('patch', c)}`);
      i = end + 1;
    } else {
      out.push(stepLine(step, total, c, threadWords(steps, step)));
      i++;
    }
  }
  return out;
}

/** ` thread 2` for a step of an interleaved request log, else ''. */
function threadWords(steps: readonly StepReport[], step: StepReport): string {
  const thread = shownThread(steps, step);
  return thread === undefined ? '' : ` thread ${thread}`;
}

/** `step 3/12 ABORT compaction tool-result-orphaned schema-dropped · cache −48,213 tokens` (`step 3/12 thread 2 …` in a threaded log). */
export function stepLine(step: StepReport, total: number, c: Palette, thread = ''): string {
  const parts = [`step ${step.index}/${total}${thread}`, decision(step.decision, c), esc(step.source)];
  if (!step.applied) parts.push(c.dim('(not applied)'));
  if (step.rules.length > 0) parts.push(esc(step.rules.join(' ')));
  if (step.cacheImpact.invalidatedTokens > 0) {
    parts.push(`· cache −${formatNumber(step.cacheImpact.invalidatedTokens)} tokens`);
  }
  return parts.join(' ');
}

function decision(d: Decision, c: Palette): string {
  const word = d.toUpperCase();
  return d === 'abort' ? c.red(c.bold(word)) : d === 'defer' ? c.yellow(word) : c.green(word);
}

function severity(s: Severity, c: Palette): string {
  return s === 'error' ? c.red(s) : s === 'warning' ? c.yellow(s) : c.cyan(s);
}
