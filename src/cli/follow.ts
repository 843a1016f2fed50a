/**
 * `prefix-lens check --follow FILE`: checks the file's complete lines, then
 * each time it grows reads only the bytes added and checks only the new lines
 * (`core/follow.ts`), printing only the steps and findings not printed yet; a
 * half-written last line waits for its line end. A file that shrank, was
 * replaced (another inode) or whose last bytes read changed (rewritten in
 * place) is checked again from the start. Ctrl+C (SIGINT) prints the summary;
 * the exit status is then that of `check` (1 when an error-level finding was seen).
 */
import * as fs from 'node:fs';
import type { Report } from '../core/results';
import { UnknownFormatError } from '../core/check';
import { Follower } from '../core/follow';
import type { Finding } from '../core/findings';
import type { FormatId } from '../core/model';
import { summaryLine } from '../core/report/markdown';
import { escapeControls, lineColumn } from '../core/text';
import { findingLine, paletteFor, stepLine, type Palette } from './plain';

/** What has been read, checked and printed so far. */
interface FollowState {
  follower: Follower;
  /** Bytes read from the file, the file they were read from, and the last of them (to see an in-place rewrite). */
  offset: number;
  ino?: number;
  last: Buffer;
  decoder: TextDecoder;
  /** Decoded text after the last line end, waiting for it. */
  partial: string;
  printedSteps: number;
  readonly printedFindings: Set<string>;
  report?: Report;
  waitingSaid: boolean;
}

/** Bytes kept from before the read offset: a file rewritten in place differs there. */
const KEEP_BYTES = 64;

const POLL_MS = 100;

/**
 * Follows `file` until `stop` (Ctrl+C), then prints the summary; the exit
 * status. `write` is given what each read of the file prints ('' when it
 * printed nothing), once per read.
 */
export function followFile(
  file: string,
  format: FormatId | undefined,
  write: (text: string) => void = (t) => process.stdout.write(t),
  stop: Promise<unknown> = new Promise((resolve) => process.once('SIGINT', resolve)),
): Promise<number> {
  const c = paletteFor(process.stdout.isTTY === true, process.env);
  const state: FollowState = { follower: new Follower(file, { ...(format && { format }) }), ...fromStart(), printedSteps: 0, printedFindings: new Set(), waitingSaid: false };
  const tick = () => {
    try {
      write(update(file, state, c));
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
  return stop.then(() => {
    clearInterval(poll);
    watcher?.close();
    tick();
    const report = state.report;
    write(report ? `${c.bold(escapeControls(file))}: ${summaryLine(report).replace(/`/g, '')}\n` : `${escapeControls(file)}: nothing checked\n`);
    return report?.findings.some((f) => f.severity === 'error') ? 1 : 0;
  });
}

function fromStart(): Pick<FollowState, 'offset' | 'last' | 'decoder' | 'partial'> {
  return { offset: 0, last: Buffer.alloc(0), decoder: new TextDecoder(), partial: '' };
}

/** Reads what the file gained and checks its new complete lines; returns the lines to print. */
function update(file: string, state: FollowState, c: Palette): string {
  let grown: { text: string; restarted: boolean } | undefined;
  try {
    grown = readGrowth(file, state);
  } catch (error) {
    return state.waitingSaid ? '' : said(state, `prefix-lens: ${escapeControls(file)}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); waiting\n`);
  }
  let out = '';
  if (grown.restarted) {
    if (state.follower.position > 0 || state.report) out += `prefix-lens: ${escapeControls(file)} was truncated or replaced; checking it again from the start\n`;
    state.follower.restart();
    Object.assign(state, { printedSteps: 0, report: undefined });
    state.printedFindings.clear();
  }
  const text = state.partial + grown.text;
  const complete = text.slice(0, text.lastIndexOf('\n') + 1);
  state.partial = text.slice(complete.length);
  if (complete === '') return out;
  let report: Report;
  try {
    report = state.follower.append(complete);
  } catch (error) {
    if (error instanceof UnknownFormatError) return state.waitingSaid ? out : out + said(state, `prefix-lens: ${escapeControls(file)}: ${error.message.split('\n')[0]}; waiting for more lines\n`);
    throw error;
  }
  state.report = report;
  return out + newLines(report, state, c);
}

/** The text the file gained since the last read; `restarted` when it was truncated or replaced (then the whole file). */
function readGrowth(file: string, state: FollowState): { text: string; restarted: boolean } {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new Error('not a regular file');
    const keep = Math.min(state.offset, KEEP_BYTES);
    const before = Buffer.alloc(keep);
    const same = stat.ino === (state.ino ?? stat.ino) && stat.size >= state.offset && fs.readSync(fd, before, 0, keep, state.offset - keep) === keep && before.equals(state.last);
    const restarted = !same;
    if (restarted) Object.assign(state, fromStart());
    state.ino = stat.ino;
    const bytes = Buffer.alloc(stat.size - state.offset);
    const read = bytes.length === 0 ? 0 : fs.readSync(fd, bytes, 0, bytes.length, state.offset);
    const added = bytes.subarray(0, read);
    state.offset += read;
    state.last = Buffer.from(Buffer.concat([state.last, added.subarray(-KEEP_BYTES)]).subarray(-KEEP_BYTES));
    return { text: state.decoder.decode(added, { stream: true }), restarted };
  } finally {
    fs.closeSync(fd);
  }
}

function said(state: FollowState, text: string): string {
  state.waitingSaid = true;
  return text;
}

/**
 * The findings and steps of a report not printed yet, each step after its
 * findings and with its thread when the reader threads the file (`step 5 thread 2 …`).
 * One pass over the findings: those of earlier steps were printed with them.
 */
function newLines(report: Report, state: FollowState, c: Palette): string {
  const lines = { position: (offset: number) => lineColumn(report.lineStarts, offset) };
  const out: string[] = [];
  const fresh = (f: Finding) => {
    const key = `${f.rule}\u0000${f.range.start}\u0000${f.step ?? ''}\u0000${f.message}`;
    return !state.printedFindings.has(key) && !!state.printedFindings.add(key);
  };
  const print = (f: Finding) => out.push(findingLine(report.file, f, lines, c));
  const ofNewSteps = new Map<number, Finding[]>();
  for (const f of report.findings) {
    if (f.step === undefined) {
      if (fresh(f)) print(f);
    } else if (f.step > state.printedSteps) (ofNewSteps.get(f.step) ?? ofNewSteps.set(f.step, []).get(f.step)!).push(f);
  }
  for (const step of report.steps.slice(state.printedSteps)) {
    for (const f of ofNewSteps.get(step.index) ?? []) if (fresh(f)) print(f);
    // Said whenever the reader threads the file: whether a second conversation comes is not known yet.
    const thread = step.thread !== undefined ? ` thread ${step.thread}` : '';
    out.push(stepLine(step, report.steps.length, c, thread).replace(`/${report.steps.length}`, ''));
  }
  state.printedSteps = report.steps.length;
  return out.length ? `${out.join('\n')}\n` : '';
}
