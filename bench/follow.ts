/**
 * Following a growing file (`npm run bench` runs this in a child process and
 * merges the numbers into bench/results.json), each against the full re-check
 * of the same text measured in the same run:
 *
 * - `follow.<format>.append`: CPU time to read one appended line and give the
 *   report of the whole file (core Follower, as `check --follow` and the
 *   editor's sessions use it), against `checkTranscript` of the whole text
 *   (what a re-check cost before). Generated files of each growing format
 *   (deterministic): an Anthropic request log, a Claude Code session, a Codex
 *   rollout, a native trace, a few MB each.
 * - `follow.on-disk.append-to-report`: wall time from an append on disk to the
 *   updated report on the editor's path (the session's `fs.watch` fires,
 *   `DocumentFollower.readAppended` of extension/engine.ts reads the new bytes
 *   from the file and reports), against the same append with the whole file
 *   read and `checkRequest` (the full re-check) in place of the follower, on
 *   the Claude Code session.
 * - `follow.edit.{last-line,middle-line,middle-line-typed}`: CPU time of the editor's re-check
 *   after an edit (`DocumentFollower` told of it: read again from the
 *   checkpoint before the changed line, tokens counted, windows kept) of the
 *   last / the 150th line of a 20.9 MB, 300-request Anthropic log
 *   (bench/generate.ts), against `checkRequest` of the same edited text (the
 *   full re-check every edit cost before); least of 3 each. The edit is one
 *   change of a word by another of its length, as the editor reports it (or,
 *   `typed`, a space typed and deleted in turn: the text after it moves): the
 *   requests after the next are kept, not read again (core/follow-reuse.ts).
 * - `follow.edit.middle-line-typing`: 20 keys typed in the 150th line, a
 *   re-check after each (the mean), against full checks of the same texts.
 * - `follow.edit.{line-break,delete-line}`: Enter pressed in a string of the
 *   150th line and removed, in turn; the line deleted and pasted back, in
 *   turn; `further-down`: a word of the last line replaced after Enter
 *   pressed or removed in the 150th (not timed); least of 3 re-checks
 *   against the least of full checks of the same texts.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkTranscript } from '../src/core/check';
import { Follower } from '../src/core/follow';
import type { FormatId } from '../src/core/model';
import type { TextChange } from '../src/core/index';
import { checkRequest, DocumentFollower, type TranscriptRequest } from '../src/extension/engine';
import { generateLog } from './generate';
import { result, type BenchResult } from './results';

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const cpuMs = (f: () => void) => {
  const start = process.cpuUsage();
  f();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};
const line = (value: unknown) => `${JSON.stringify(value)}\n`;
const filler = (i: number) => `Line ${i} of the file under review: ${'lorem ipsum dolor sit amet '.repeat(6)}`;

/** A Claude Code session: a user turn, then tool calls and results, one record per line, chained by parentUuid. */
function claudeCodeSession(records: number): string[] {
  const lines: string[] = [];
  let parent: string | null = null;
  const base = { isSidechain: false, userType: 'external', cwd: '/work', sessionId: 'bench', version: '1.0.0' };
  for (let i = 0; i < records; i++) {
    const uuid = `u${i}`;
    const timestamp = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
    const turn = Math.floor(i / 2);
    const message =
      i === 0
        ? { role: 'user', content: 'Review the files under src/.' }
        : i % 2 === 1
          ? { id: `msg_${turn}`, type: 'message', role: 'assistant', model: 'claude-bench', content: [{ type: 'tool_use', id: `toolu_${turn}`, name: 'Read', input: { file_path: `/work/src/f${turn}.ts` } }], usage: { input_tokens: 10, cache_read_input_tokens: 1000 + i, output_tokens: 5 } }
          : { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${turn - 1}`, content: filler(i) }] };
    lines.push(line({ parentUuid: parent, ...base, type: message.role, message, uuid, timestamp }));
    parent = uuid;
  }
  return lines;
}

/** A Codex rollout: the session meta, then a call and its output per turn. */
function codexRollout(items: number): string[] {
  const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
  const lines = [line({ timestamp: at(0), type: 'session_meta', payload: { id: 'bench', base_instructions: { text: 'You are a coding agent.' } } })];
  lines.push(line({ timestamp: at(0), type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Review src/.' }] } }));
  for (let i = 1; i < items; i++) {
    const call = `call_${Math.ceil(i / 2)}`;
    const payload = i % 2 === 1 ? { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['cat', `src/f${i}.ts`] }), call_id: call } : { type: 'function_call_output', call_id: call, output: filler(i) };
    lines.push(line({ timestamp: at(i), type: 'response_item', payload }));
  }
  return lines;
}

/** A native trace: a window, then the agent's generate / append events. */
function nativeTrace(events: number): string[] {
  const lines = [line({ type: 'prefix-lens/trace', version: 1 }), line({ type: 'window', tools: [], messages: [{ role: 'user', content: 'Review src/.' }], boundary: 0 })];
  for (let i = 0; i < events; i++) {
    const id = `toolu_${i}`;
    lines.push(line({ type: 'generate', messages: [{ role: 'assistant', content: [{ type: 'tool_use', id, name: 'Read', input: { path: `src/f${i}.ts` } }] }] }));
    lines.push(line({ type: 'append', messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: filler(i) }] }] }));
  }
  return lines;
}

/** An Anthropic request log: each request repeats the history and adds the last answer and a user turn. */
function requestLog(requests: number, start: number): string[] {
  const messages: unknown[] = [];
  for (let i = 0; i < start; i++) messages.push(i % 2 === 0 ? { role: 'user', content: filler(i) } : { role: 'assistant', content: [{ type: 'text', text: `Answer ${i}` }] });
  const lines: string[] = [];
  for (let i = 0; i < requests; i++) {
    messages.push({ role: 'user', content: `Next question ${i}` });
    const response = { id: `msg_${i}`, type: 'message', role: 'assistant', content: [{ type: 'text', text: `Answer to ${i}` }], usage: { input_tokens: 10, output_tokens: 5 } };
    lines.push(line({ request: { model: 'claude-bench', max_tokens: 100, messages }, response }));
    messages.push({ role: 'assistant', content: response.content });
  }
  return lines;
}

const FORMATS: readonly { readonly name: string; readonly file: string; readonly lines: () => string[] }[] = [
  { name: 'anthropic', file: 'log.jsonl', lines: () => requestLog(160, 2000) },
  { name: 'claude-code', file: 'session.jsonl', lines: () => claudeCodeSession(12_000) },
  { name: 'codex', file: 'rollout.jsonl', lines: () => codexRollout(12_001) },
  { name: 'native', file: 'agent.trace.jsonl', lines: () => nativeTrace(6_000) },
];

/** Appends timed one line each, after the file's first lines were read; the full check of the final text, timed a few times. */
const APPENDS = 15;

function formatResults(): BenchResult[] {
  return FORMATS.flatMap(({ name, file, lines: make }) => {
    const lines = make();
    const head = lines.slice(0, -APPENDS).join('');
    const options = { tokens: false as const, format: name as FormatId };
    const follower = new Follower(file, options);
    follower.append(head);
    const appends = lines.slice(-APPENDS).map((l) => cpuMs(() => follower.append(l)));
    process.stderr.write(`follow ${name}: appends median ${median(appends).toFixed(1)} ms, max ${Math.max(...appends).toFixed(1)} ms CPU\n`);
    const text = lines.join('');
    const full = [0, 1, 2].map(() => cpuMs(() => checkTranscript({ file, text }, options)));
    const report = checkTranscript({ file, text }, options);
    const errors = report.findings.filter((f) => f.severity === 'error').length;
    process.stderr.write(`follow ${name}: ${(text.length / 1e6).toFixed(1)} MB, ${lines.length} lines, ${report.steps.length} steps, ${errors} errors (expected 0)\n`);
    return [result(`follow.${name}.append`, median(appends), 'ms', median(full))];
  });
}

/** Append on disk → fs.watch → the report: the follower reading the new bytes from the file, and a full check of the whole file. */
async function onDisk(): Promise<BenchResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pl-bench-follow-'));
  const file = path.join(dir, 'session.jsonl');
  const lines = claudeCodeSession(12_000);
  const request = (text: string): TranscriptRequest => ({ kind: 'transcript', file, text, tokens: 'o200k_base', limits: {} });
  const follower = new DocumentFollower();
  const paths = {
    follow: () => follower.readAppended(file),
    full: () => checkRequest(request(fs.readFileSync(file, 'utf8'))),
  };
  const times: Record<keyof typeof paths, number[]> = { follow: [], full: [] };
  fs.writeFileSync(file, lines.slice(0, -2 * APPENDS).join(''));
  follower.check(request(fs.readFileSync(file, 'utf8')), 0, -1);
  for (let i = 0; i < 2 * APPENDS; i++) {
    const which = i % 2 === 0 ? 'follow' : 'full';
    const start = process.hrtime.bigint();
    await new Promise<void>((resolve) => {
      const watcher = fs.watch(file, () => {
        watcher.close();
        if (!paths[which]()) throw new Error('the append was not read from the file');
        resolve();
      });
      fs.appendFileSync(file, lines[lines.length - 2 * APPENDS + i] as string);
    });
    times[which].push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  fs.rmSync(dir, { recursive: true, force: true });
  const spread = (xs: readonly number[]) => `median ${median(xs).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms over ${xs.length}`;
  process.stderr.write(`follow on disk: appends read from the file ${spread(times.follow)}; full re-checks ${spread(times.full)}\n`);
  return result('follow.on-disk.append-to-report', median(times.follow), 'ms', median(times.full));
}

/** Re-checks after an edit of one line (a word changed, then changed back, ...) against full checks of the same texts. */
function edits(): BenchResult[] {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pl-bench-edit-')), 'requests.jsonl');
  generateLog(file, { requests: 300, bytesPerTurn: 200, seed: 42 });
  let text = fs.readFileSync(file, 'utf8');
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  const request = (t: string): TranscriptRequest => ({ kind: 'transcript', file, text: t, tokens: 'o200k_base', limits: {} });
  const follower = new DocumentFollower();
  let version = 1;
  follower.check(request(text), version, -1);
  const lineStart = (n: number) => {
    let at = 0;
    for (let i = 0; i < n; i++) at = text.indexOf('\n', at) + 1;
    return at;
  };
  // A word replaced by another of its length; or a space typed, deleted, typed (the text after it moves).
  const replaced = (at: number): TextChange => ({ from: at, removed: 3, inserted: text.slice(at, at + 3) === 'the' ? 'our' : 'the' });
  const typed = (at: number): TextChange => (text[at] === ' ' ? { from: at, removed: 1, inserted: '' } : { from: at, removed: 0, inserted: ' ' });
  const each = ([['last-line', 299, replaced], ['middle-line', 149, replaced], ['middle-line-typed', 149, typed]] as const).map(([name, line, change]) => {
    const at = text.indexOf('"text":"', lineStart(line)) + '"text":"'.length;
    // The edits first, then the full checks of the same texts: the garbage of a full check is not collected in an edit's time.
    const texts: string[] = [];
    const edit = [0, 1, 2].map(() => {
      const made = change(at);
      text = `${text.slice(0, at)}${made.inserted}${text.slice(at + made.removed)}`;
      texts.push(text);
      follower.edited(++version, at, made);
      const edited = request(text);
      return cpuMs(() => follower.check(edited, version, version));
    });
    const full = texts.map((t) => cpuMs(() => checkRequest(request(t))));
    const times = { edit, full };
    process.stderr.write(`follow edit of the ${name} of a ${(text.length / 1e6).toFixed(1)} MB log: re-check ${times.edit.map((t) => t.toFixed(0)).join(' / ')} ms CPU, full check ${times.full.map((t) => t.toFixed(0)).join(' / ')} ms (least of 3 counts)\n`);
    return result(`follow.edit.${name}`, Math.min(...times.edit), 'ms', Math.min(...times.full));
  });
  const typedOn = typing(text, lineStart(149), follower, () => ++version, request);
  return [...each, typedOn.result, ...lineEdits(typedOn.text, follower, () => ++version, request)];
}

/**
 * Edits that add or remove a line in the 150th request: Enter pressed in a
 * string of it and removed, in turn; the line deleted and pasted back, in
 * turn (as the editor reports each: one change); a word of the last line
 * after Enter in the 150th. Least of 3 re-checks against the least of full
 * checks of the same texts, each printed.
 */
function lineEdits(start: string, follower: DocumentFollower, next: () => number, request: (t: string) => TranscriptRequest): BenchResult[] {
  let text = start;
  const lineStart = (n: number) => {
    let at = 0;
    for (let i = 0; i < n; i++) at = text.indexOf('\n', at) + 1;
    return at;
  };
  const apply = (made: TextChange) => {
    text = `${text.slice(0, made.from)}${made.inserted}${text.slice(made.from + made.removed)}`;
    const version = next();
    follower.edited(version, made.from, made);
    return version;
  };
  const at = text.indexOf('"text":"', lineStart(149)) + '"text":"'.length + 2;
  const enter = (): TextChange => (text[at] === '\n' ? { from: at, removed: 1, inserted: '' } : { from: at, removed: 0, inserted: '\n' });
  // A word of the last request replaced, after Enter pressed or removed in the 150th (not timed): read from a checkpoint after the 150th.
  const further = (): TextChange => {
    const version = apply(enter());
    follower.check(request(text), version, version);
    const below = text.indexOf('"text":"', lineStart(text[at] === '\n' ? 300 : 299)) + '"text":"'.length;
    return { from: below, removed: 3, inserted: text.slice(below, below + 3) === 'the' ? 'our' : 'the' };
  };
  let deleted: { from: number; text: string } | undefined;
  const deletion = (): TextChange => {
    if (deleted) {
      const { from, text: inserted } = deleted;
      deleted = undefined;
      return { from, removed: 0, inserted };
    }
    const [from, to] = [lineStart(149), lineStart(150)];
    deleted = { from, text: text.slice(from, to) };
    return { from, removed: to - from, inserted: '' };
  };
  return ([['line-break', enter], ['further-down', further], ['delete-line', deletion]] as const).map(([name, change]) => {
    const texts: string[] = [];
    const edit = [0, 1, 2].map(() => {
      const version = apply(change());
      texts.push(text);
      const edited = request(text);
      return cpuMs(() => follower.check(edited, version, version));
    });
    const full = texts.map((t) => cpuMs(() => checkRequest(request(t))));
    process.stderr.write(`follow edit ${name} (the 150th line): re-check ${edit.map((t) => t.toFixed(0)).join(' / ')} ms CPU, full check ${full.map((t) => t.toFixed(0)).join(' / ')} ms\n`);
    return result(`follow.edit.${name}`, Math.min(...edit), 'ms', Math.min(...full));
  });
}

/**
 * Typing in the 150th line: 20 keys (every fifth a deletion), a re-check
 * after each, as the editor makes them once typing pauses. The mean CPU of a
 * re-check against the mean of full checks of five of the same texts, the
 * slowest re-check printed (each kept step used to be moved at most 4 times:
 * every fifth re-check read on to the end).
 */
function typing(start: string, lineStart: number, follower: DocumentFollower, next: () => number, request: (t: string) => TranscriptRequest): { result: BenchResult; text: string } {
  let text = start;
  const at = text.indexOf('"text":"', lineStart) + '"text":"'.length;
  const [edit, texts]: [number[], string[]] = [[], []];
  for (let i = 0; i < 20; i++) {
    const made: TextChange = i % 5 === 4 ? { from: at, removed: 1, inserted: '' } : { from: at, removed: 0, inserted: 'abcd'[i % 5] as string };
    text = `${text.slice(0, at)}${made.inserted}${text.slice(at + made.removed)}`;
    const version = next();
    follower.edited(version, at, made);
    const edited = request(text);
    edit.push(cpuMs(() => follower.check(edited, version, version)));
    if (i % 4 === 3) texts.push(text);
  }
  const full = texts.map((t) => cpuMs(() => checkRequest(request(t))));
  const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  process.stderr.write(`follow edit typing in the middle line: re-checks ${edit.map((t) => t.toFixed(0)).join(' ')} ms CPU (mean ${mean(edit).toFixed(0)}, max ${Math.max(...edit).toFixed(0)}), full checks ${full.map((t) => t.toFixed(0)).join(' / ')} ms\n`);
  return { result: result('follow.edit.middle-line-typing', mean(edit), 'ms', mean(full)), text };
}

async function main(): Promise<void> {
  const entries = [...formatResults(), await onDisk(), ...edits()];
  process.stdout.write(JSON.stringify(entries));
}

void main();
