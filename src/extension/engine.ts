/**
 * The extension's one door to the engine (`src/core`): every engine type and
 * call the extension uses comes through here (a unit test keeps it so). The
 * extension host and the worker thread both check through `checkRequest`, so
 * a file gives the same report on either side. No `vscode` import (the worker
 * runs plain Node).
 */
import * as fs from 'node:fs';
import type { CheckOptions, Report, TextChange, TokenEncoding } from '../core/index';
import { checkAgainst, checkTranscript, detectFormat, Follower, inputFromFile } from '../core/index';
import { checkSubAgentFile, type CheckedSubAgent } from '../core/sub-agents';
import { fileTooLarge, resolveLimits, type Limits } from '../core/limits';
import { unsliced } from '../core/json/parse';
import { boundedTextInput, utf8OnlyInput } from '../core/io';
export { fileTooLarge, resolveLimits };

export type {
  CheckOptions,
  ContextWindow,
  Decision,
  Finding,
  FixPlan,
  PairState,
  RelatedLocation,
  RenderedWindow,
  Report,
  Rewrite,
  RuleId,
  Severity,
  SourceRange,
  StepReport,
  TextEdit,
  TokenEncoding,
  ToolPair,
  JsonNode,
  Message,
  SessionSummary,
  ThreadWindow,
  ThreadInfo,
  ThreadSummary,
  SubAgent,
} from '../core/index';
export { LineIndex, pairKey, pairStates, planFix, relatedLocations, renderWindow, RULES, toolPairs, CARRIED_FROM, renderJson, renderMessage } from '../core/index';
export { addPlaceholderResult, removeOrphanedResult } from '../core/fix/single';
export { alignMessages, SAME } from '../core/align';
export { lineColumn } from '../core/text';
export { applyEdits } from '../core/fix/edits';
export { toMarkdown } from '../core/report/markdown';
export { toSarif } from '../core/report/sarif';
export { shownThread } from '../core/report/json';
export { agentIdOfFile, firstThreadOf, linkSubAgents, MAX_META_BYTES, OVER_COUNT, scanLinks, subAgentNames, tooLarge } from '../core/sub-agents';
export type { CheckedSubAgent };
export { startProxy, type RunningProxy } from '../core/live/proxy';
export type { Limits };

/** A document's text and the name it is reported under. */
export interface FileText {
  readonly file: string;
  readonly text: string;
}

/** How a check counts tokens and how far it reads (`prefixLens.tokenizer`, `prefixLens.limits.*`). */
interface RequestOptions {
  readonly tokens: TokenEncoding | false;
  readonly limits: Partial<Limits>;
  /** False: a report for the diagnostics alone, without the windows (the CLI's faster check); default true. */
  readonly keepRewrites?: false;
}

/** A sub-agent file beside a Claude Code session, as the host read it: its text, or why it was not read. */
export interface SubAgentFile {
  readonly agentId: string;
  readonly file: string;
  readonly text?: string;
  /** Its `agent-<id>.meta.json`, when there is one. */
  readonly meta?: string;
  readonly unread?: string;
}

/**
 * What one check needs: plain data, so it crosses to a worker thread
 * unchanged. `transcript`: a document on its own; `file`: a UTF-8 file on
 * disk of `bytes`, read by the thread that checks it (the host thread neither
 * reads nor copies it first); `zip`: a zipped file on disk of `bytes` (an
 * Inspect `.eval`), read by the thread that checks it as the engine reads
 * files; `against`: `newer` judged as a rewrite of `older` ("Compare with…").
 */
export type CheckRequest =
  | ({ readonly kind: 'transcript' } & FileText & RequestOptions)
  | ({ readonly kind: 'file'; readonly file: string; readonly bytes: number } & RequestOptions)
  | ({ readonly kind: 'zip'; readonly file: string; readonly bytes: number } & RequestOptions)
  | ({ readonly kind: 'against'; readonly older: FileText; readonly newer: FileText } & RequestOptions);

/**
 * A file's findings alone (a large file's first diagnostics, before its document): no windows kept, the file read
 * by the thread that checks it, no tokens counted (7–10 % of this check): findings never depend on the counts, only
 * the steps' cache impact, which the editor's check gives next (test/unit/findings-request.test.ts).
 */
export function findingsRequest(file: string, bytes: number, limits: Partial<Limits>): CheckRequest {
  return { kind: 'file', file, bytes, tokens: false, limits, keepRewrites: false };
}

/** Sub-agent files of a Claude Code session (`file`), each to be checked on its own. */
export type SubAgentsRequest = { readonly kind: 'sub-agents'; readonly file: string; readonly subAgents: readonly SubAgentFile[] } & RequestOptions;

/** What the worker thread is asked: a check, or sub-agent files to check. */
export type WorkerRequest = CheckRequest | SubAgentsRequest;

/** The file a request is reported under, and how much text it checks (UTF-16 units). */
export function requestSize(request: WorkerRequest): { readonly file: string; readonly length: number } {
  if (request.kind === 'transcript') return { file: request.file, length: request.text.length };
  if (request.kind === 'sub-agents') return { file: request.file, length: request.subAgents.reduce((n, s) => n + (s.text?.length ?? 0), 0) };
  if (request.kind === 'file' || request.kind === 'zip') return { file: request.file, length: request.bytes };
  return { file: request.newer.file, length: request.older.text.length + request.newer.text.length };
}

/** Checks a request (never throws for bad input: the engine turns it into findings; a `file` that is not UTF-8 throws, it is not checked). */
export function checkRequest(request: CheckRequest): Report {
  const options = checkOptions(request);
  const maxFileBytes = resolveLimits(request.limits).maxFileBytes;
  if (request.kind === 'against') return checkAgainst(boundedTextInput(request.older, maxFileBytes), boundedTextInput(request.newer, maxFileBytes), options);
  if (request.kind === 'zip') return checkTranscript(inputFromFile(request.file, request.limits), options);
  if (request.kind === 'file') {
    const file = utf8OnlyInput(inputFromFile(request.file, request.limits));
    const report = checkTranscript(file.input, options);
    // The engine says where a read stopped in its report; this file is not checked at all.
    if (file.refused()) throw new Error(`${request.file} is not UTF-8`);
    return report;
  }
  return checkTranscript(boundedTextInput(request, maxFileBytes), options);
}


/** Checks each sub-agent file on its own, reading it once (core/sub-agents.ts); never throws. */
export function checkSubAgentFiles(request: SubAgentsRequest): CheckedSubAgent[] {
  const options = checkOptions(request);
  const maxFileBytes = resolveLimits(request.limits).maxFileBytes;
  return request.subAgents.map(({ text, ...source }) => checkSubAgentFile({ ...source, ...(text !== undefined && { input: boundedTextInput({ file: source.file, text }, maxFileBytes) }) }, options));
}

/** Answers a worker request on this thread (the worker does the same on its own). */
export function answerRequest(request: WorkerRequest): Report | CheckedSubAgent[] {
  return request.kind === 'sub-agents' ? checkSubAgentFiles(request) : checkRequest(request);
}

function checkOptions(request: RequestOptions): CheckOptions {
  return { keepRewrites: request.keepRewrites ?? true, tokens: request.tokens, limits: request.limits };
}

/** A document's text, checked on its own. */
export type TranscriptRequest = Extract<CheckRequest, { kind: 'transcript' }>;

/** Characters before the read position compared at each check: a document changed there is read again. */
const GUARD_CHARS = 256;

/**
 * A document followed as it grows (core/follow.ts): what was read of it is
 * kept between checks, so the check after an append reads only the new lines
 * and gives the report `checkRequest` gives. It lives with its session, on
 * the extension host thread. After an edit it was told of (`edited`), the
 * document is read again from the last checkpoint of the check before the
 * first changed character (core/follow.ts `rewind`): the report before it is
 * kept; so is it after an edit during a read in slices (the read stops, the
 * next goes back to the checkpoint before the earliest edit; after an append
 * it goes on from where the read stopped). Any other change
 * (a truncation, a replaced file, other settings, an edit in the head) reads
 * the document again from the start.
 */
export class DocumentFollower {
  private follower: Follower | undefined;
  private settings = '';
  /** The document version read last, and the text just before the read position. */
  private version = -1;
  private guard = '';
  /** The last report, and the position it was made at (a check with nothing new to read gives it again). */
  private last: { readonly report: Report; readonly position: number } | undefined;
  /** A slice-by-slice read in progress (`readInSlices`): its text and version (the guard and version read last are not the read position's meanwhile). */
  private reading: { readonly text: string; readonly version: number } | undefined;
  /** Counts the reads set up (`prepare`) and the edits made during one: a read in slices stops when a later one was set up or its text edited. */
  private reads = 0;
  /** The edits since the version read last: the document version after each, the first character it changed, and the change when it was one. */
  private edits: { readonly version: number; readonly from: number; readonly change?: TextChange | undefined }[] = [];

  /** Characters of the document read so far. */
  get position(): number {
    return this.follower?.position ?? 0;
  }

  /**
   * True when the check of `request` reads only what was appended: the
   * document's last change that was not an append (its version, `editedAt`)
   * is not later than the version read last (or being read in slices).
   */
  follows(request: TranscriptRequest, editedAt: number): boolean {
    const follower = this.follower;
    const reading = this.reading;
    if (!follower || editedAt > (reading?.version ?? this.version) || JSON.stringify([request.tokens, request.limits]) !== this.settings) return false;
    const at = follower.position;
    const guard = reading ? reading.text.slice(Math.max(0, at - GUARD_CHARS), at) : this.guard;
    return request.text.length >= at && request.text.slice(Math.max(0, at - GUARD_CHARS), at) === guard;
  }

  /**
   * The document was edited from character `from` on (not appended to at its
   * end); `version`: the version after the edit. A read in slices in progress
   * reads text that is no longer the document's: it stops at its next slice
   * (as when a later check takes over; that check goes back to the
   * checkpoint before the earliest edit), so typing does not compete with it.
   * `change`: what the edit replaced, when it was one change (the follower then
   * keeps what it read after the edit: core/follow-reuse.ts).
   */
  edited(version: number, from: number, change?: TextChange): void {
    this.edits.push({ version, from, change });
    if (this.reading) this.reads++;
  }

  /**
   * Sets up the read of `request` (a read in slices still running stops): on
   * from the read position after an append, from the last checkpoint before
   * the first character edited since the version read, or from the start.
   * Says which. Then `read` or `readInSlices` reads the rest.
   */
  prepare(request: TranscriptRequest, version: number, editedAt: number): 'appended' | 'rewound' | 'restarted' {
    this.reads++;
    const from = this.follows(request, editedAt) ? 'appended' : this.rewinds(request, version, editedAt) ? 'rewound' : 'restarted';
    if (from === 'restarted') this.restart(request);
    this.reading = undefined;
    return from;
  }

  /** `prepare`, then `read`: the report of `request`'s text. */
  check(request: TranscriptRequest, version: number, editedAt: number): Report {
    this.prepare(request, version, editedAt);
    return this.read(request, version);
  }

  /** Goes back to the last checkpoint before the edits since the version read (a read in slices between them included), when every one of them is known. */
  private rewinds(request: TranscriptRequest, version: number, editedAt: number): boolean {
    const follower = this.follower;
    const since = this.edits.filter((e) => e.version > this.version);
    if (!follower || since[since.length - 1]?.version !== editedAt || JSON.stringify([request.tokens, request.limits]) !== this.settings) return false;
    // The changes since the text read, when each edit was one (and no read in slices stopped between them).
    const changes = this.reading ? [] : since.flatMap((e) => (e.change ? [e.change] : []));
    if (!follower.rewind(Math.min(...since.map((e) => e.from)), changes.length === since.length ? changes : [])) return false;
    this.last = undefined;
    this.readUpTo(request.text, version);
    return true;
  }

  /** The report of `request`'s text, what `prepare` left to read read inline. */
  read(request: TranscriptRequest, version: number): Report {
    const follower = this.follower as Follower;
    const more = request.text.slice(follower.position);
    if (more === '' && this.last?.position === follower.position) {
      this.version = version;
      return this.last.report;
    }
    follower.read(more);
    this.readUpTo(request.text, version);
    return this.report(follower);
  }

  /**
   * Reads the lines appended to `file` on disk since the text read so far,
   * straight from the file (before the editor reloads the document, whose
   * check then finds them read): the report, or undefined when no whole line
   * was appended or the file does not hold the text read where it should
   * (another encoding, a byte order mark, a replaced file: the reload's check
   * reads it as the document has it).
   */
  readAppended(file: string): Report | undefined {
    const follower = this.follower;
    if (!follower || this.reading) return undefined;
    const guard = Buffer.from(this.guard, 'utf8');
    // Where the text read so far ends in the file (the follower counts the UTF-8 bytes of what it was given).
    const appended = readFrom(file, follower.bytes - guard.length, MAX_DISK_APPEND);
    if (!appended || !appended.subarray(0, guard.length).equals(guard)) return undefined;
    const end = appended.lastIndexOf(0x0a) + 1;
    if (end <= guard.length) return undefined;
    const more = appended.toString('utf8', guard.length, end);
    // Line ends or bytes the editor may turn into something else: left to the reload.
    if (more.includes('\r') || more.includes('\uFFFD')) return undefined;
    follower.read(more);
    this.guard = (this.guard + more).slice(-GUARD_CHARS);
    return this.report(follower);
  }

  private report(follower: Follower): Report {
    const report = follower.report();
    this.last = { report, position: follower.position };
    return report;
  }

  /**
   * The report of a large document, what `prepare` left to read read in
   * slices so other work runs between them (`pause`); what was read stays for
   * the next append. Undefined when a check of the document set up meanwhile
   * (`prepare`) took over: this read stops there. Throws as `read` does (the
   * text is not a transcript).
   */
  async readInSlices(request: TranscriptRequest, version: number, pause: () => Promise<void>, slice = 1 << 20): Promise<Report | undefined> {
    const follower = this.follower as Follower;
    const mine = this.reads;
    this.reading = { text: request.text, version };
    try {
      // From the follower's position each time: after an edit it may jump to the end of what it kept (follow-reuse.ts).
      for (let at = follower.position; at < request.text.length; at = follower.position) {
        await pause();
        if (this.reads !== mine) return undefined;
        follower.read(request.text.slice(at, at + slice));
      }
      await pause();
      if (this.reads !== mine) return undefined;
      this.readUpTo(request.text, version);
      return this.report(follower);
    } catch (error) {
      if (this.reads === mine) this.follower = undefined;
      throw error;
    } finally {
      if (this.reads === mine) this.reading = undefined;
    }
  }

  /**
   * Does the work a re-check after an edit left for after its report (the
   * checkpoints it kept after the edit: core/follow.ts `settle`). An error is
   * left to the next check, which meets it again and says so.
   */
  settle(): void {
    try {
      this.follower?.settle();
    } catch {
      // The next edit's check makes the same checkpoints first, and throws as a check does.
    }
  }

  /** Stops a read in slices in progress (it gives no report) and lets go of what was read: the next check reads from the start. */
  stop(): void {
    this.reads++;
    this.follower = undefined;
    this.reading = undefined;
  }

  private restart(request: TranscriptRequest): void {
    const limits = request.limits;
    this.follower = new Follower(request.file, { ...checkOptions(request), maxTextBytes: resolveLimits(limits).maxFileBytes, rewindable: true });
    this.settings = JSON.stringify([request.tokens, limits]);
    this.last = undefined;
  }

  private readUpTo(text: string, version: number): void {
    const at = this.follower?.position ?? 0;
    // A copy: a slice would keep the document's whole text (a string of its own at each check) until the next check.
    this.guard = unsliced(text.slice(Math.max(0, at - GUARD_CHARS), at));
    this.version = version;
    this.edits = this.edits.filter((e) => e.version > version);
  }
}

/** The most bytes an append read from disk may have (more: left to the document's reload and its check's rule). */
const MAX_DISK_APPEND = 4 << 20;

/** The bytes of `file` from `start` to its end (undefined: unreadable, not past `start`, or more than `max`). */
function readFrom(file: string, start: number, max: number): Buffer | undefined {
  if (start < 0) return undefined;
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const size = fs.fstatSync(fd).size;
    if (size <= start || size - start > max) return undefined;
    const buffer = Buffer.alloc(size - start);
    const read = fs.readSync(fd, buffer, 0, buffer.length, start);
    return buffer.subarray(0, read);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}


/** True when the engine recognises the first bytes as a transcript format. */
export function recognises(head: string): boolean {
  return detectFormat(head) !== undefined;
}

/** A file's first `maxChars` characters, the rest not read (throws for a file that is not a regular one). */
export function fileHead(path: string, maxChars: number): string {
  return inputFromFile(path).head(maxChars);
}
