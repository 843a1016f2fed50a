/**
 * `prefix-lens check --follow FILE`: checks the file's complete lines, then
 * again each time it grows, printing only the steps and findings not printed
 * yet; a half-written last line waits for its line end. A file that shrank or
 * whose checked part changed (truncated, replaced, rotated) is checked again
 * from the start. Ctrl+C (SIGINT) prints the summary; the exit status is then
 * that of `check` (1 when an error-level finding was seen).
 */
import * as fs from 'node:fs';
import type { Report } from '../core/results';
import { checkTranscript, UnknownFormatError } from '../core/check';
import type { Finding } from '../core/findings';
import type { FormatId } from '../core/model';
import { summaryLine } from '../core/report/markdown';
import { escapeControls, LineIndex } from '../core/text';
import { findingLine, paletteFor, stepLine, type Palette } from './plain';

/** What has been checked and printed so far. */
interface FollowState {
  /** The text checked last (complete lines only). */
  checked: string;
  printedSteps: number;
  readonly printedFindings: Set<string>;
  report?: Report;
  waitingSaid: boolean;
}

const POLL_MS = 100;

export function followFile(file: string, format: FormatId | undefined, write: (text: string) => void = (t) => process.stdout.write(t)): Promise<number> {
  const c = paletteFor(process.stdout.isTTY === true, process.env);
  const state: FollowState = { checked: '', printedSteps: 0, printedFindings: new Set(), waitingSaid: false };
  const tick = () => {
    try {
      write(update(file, format, state, c));
    } catch (error) {
      write(`prefix-lens: ${escapeControls(file)}: ${(error as Error).message}\n`);
    }
  };
  tick();
  let watcher: fs.FSWatcher | undefined;
  try {
    watcher = fs.watch(file, tick);
  } catch {
    // Polling alone (below) still follows the file.
  }
  const poll = setInterval(tick, POLL_MS);
  return new Promise((resolve) => {
    process.once('SIGINT', () => {
      clearInterval(poll);
      watcher?.close();
      tick();
      const report = state.report;
      write(report ? `${c.bold(escapeControls(file))}: ${summaryLine(report).replace(/`/g, '')}\n` : `${escapeControls(file)}: nothing checked\n`);
      resolve(report?.findings.some((f) => f.severity === 'error') ? 1 : 0);
    });
  });
}

/** Checks the file if it changed; returns the lines to print. */
function update(file: string, format: FormatId | undefined, state: FollowState, c: Palette): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    return state.waitingSaid ? '' : said(state, `prefix-lens: ${escapeControls(file)}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); waiting\n`);
  }
  const complete = text.slice(0, text.lastIndexOf('\n') + 1);
  if (complete === state.checked) return '';
  let out = '';
  if (!complete.startsWith(state.checked)) {
    out += `prefix-lens: ${escapeControls(file)} was truncated or replaced; checking it again from the start\n`;
    Object.assign(state, { printedSteps: 0, report: undefined });
    state.printedFindings.clear();
  }
  state.checked = complete;
  if (complete.trim() === '') return out;
  let report: Report;
  try {
    report = checkTranscript({ file, text: complete }, { ...(format && { format }) });
  } catch (error) {
    if (error instanceof UnknownFormatError) return state.waitingSaid ? out : out + said(state, `prefix-lens: ${escapeControls(file)}: ${error.message.split('\n')[0]}; waiting for more lines\n`);
    throw error;
  }
  state.report = report;
  return out + newLines(report, state, c);
}

function said(state: FollowState, text: string): string {
  state.waitingSaid = true;
  return text;
}

/** The findings and steps of a report not printed yet, each step after its findings. */
function newLines(report: Report, state: FollowState, c: Palette): string {
  const lines = LineIndex.fromStarts(report.lineStarts);
  const out: string[] = [];
  const fresh = (f: Finding) => {
    const key = `${f.rule}\u0000${f.range.start}\u0000${f.step ?? ''}\u0000${f.message}`;
    return !state.printedFindings.has(key) && !!state.printedFindings.add(key);
  };
  const print = (f: Finding) => out.push(findingLine(report.file, f, lines, c));
  for (const f of report.findings) if (f.step === undefined && fresh(f)) print(f);
  for (const step of report.steps.slice(state.printedSteps)) {
    for (const f of report.findings) if (f.step === step.index && fresh(f)) print(f);
    out.push(stepLine(step, report.steps.length, c).replace(`/${report.steps.length}`, ''));
  }
  state.printedSteps = report.steps.length;
  return out.length ? `${out.join('\n')}\n` : '';
}
