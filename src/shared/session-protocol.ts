/**
 * The session view's message protocol, in the inspector's style (see
 * protocol.ts): one module shared by the host (`src/extension/session-view/`)
 * and the webview (`webview/session.ts`), plain data only. The webview posts
 * `ready`; the host answers with a full `session` snapshot, and sends a new
 * snapshot whenever the file changes (a growing file shows as it grows).
 * Transcript text travels as data and is only ever shown as text.
 */
import type { Decision, RuleId, Severity } from '../core/findings';
import type { PairState } from '../core/pairing';
import type { Role } from '../core/model';
import type { PairCounts, SessionSummary, UsageTotals } from '../core/session';
import type { SourceRange } from '../core/text';
import { isCount, isRecord, readRange } from './protocol';

export const SESSION_PROTOCOL_VERSION = 3;
export const SESSION_VIEW_TYPE = 'prefixLens.session';

/** A finding shown at its message (or step). */
export interface RowFinding {
  readonly rule: RuleId;
  readonly severity: Severity;
  readonly message: string;
  readonly range: SourceRange;
}

/** A tool call or result inside a message row. */
export interface RowTool {
  readonly role: 'call' | 'result';
  readonly id: string;
  readonly name: string;
  /** The input (call) or content (result) as text, capped; `size` is the full length. */
  readonly text: string;
  readonly size: number;
  readonly state: PairState;
  /** Row index of the partner (the result of a call, the call of a result), when it is in the timeline. */
  readonly partner?: number;
  readonly isError?: boolean;
  /** A call that started a conversation of its own (a sub-agent): the row of that thread's header. */
  readonly threadRow?: number;
}

/**
 * Every row but a header belongs to a conversation of the file: `thread` is its
 * id (`ThreadInfo.id`), absent for the main one. Rows of the other threads
 * follow their thread's header, nested under the row where the thread started.
 * `file` (an index into `SessionView.files`) marks the rows of a sub-agent's own
 * file: their ranges, steps and findings are in that file, absent for the session's.
 */
export type TimelineRow =
  | {
      readonly kind: 'message';
      readonly thread?: number;
      readonly file?: number;
      readonly role: Role;
      /** The message's text blocks, joined (capped; `size` is the full length). */
      readonly text: string;
      readonly size: number;
      readonly tools: readonly RowTool[];
      /** Other blocks (thinking, images, compaction items), by type. */
      readonly opaque: readonly string[];
      readonly elision: boolean;
      /** Not in the last window: history a rewrite dropped. */
      readonly dropped: boolean;
      readonly findings: readonly RowFinding[];
      readonly range?: SourceRange;
      /** The request whose usage the log reports on this message's line (1-based index into `summary.cache`, or its file's `fileCache`). */
      readonly cache?: number;
    }
  | {
      readonly kind: 'step';
      readonly thread?: number;
      readonly file?: number;
      readonly index: number;
      readonly decision: Decision;
      readonly source: string;
      readonly rules: readonly RuleId[];
      readonly findings: readonly RowFinding[];
      readonly range?: SourceRange;
      /** The request whose usage the log reports on this step's record (1-based index into `summary.cache`, or its file's `fileCache`). */
      readonly cache?: number;
    }
  | {
      /** The header of a conversation besides the main one (a sub-agent, a request log's thread). */
      readonly kind: 'thread';
      readonly thread: number;
      readonly file?: number;
      readonly threadKind: 'main' | 'thread' | 'side-chain';
      readonly label: string;
      readonly messages: number;
      readonly turns: number;
      readonly pairs: PairCounts;
      /** The row of the call that started it, when the file says which. */
      readonly parentRow?: number;
      readonly findings: readonly RowFinding[];
      readonly range?: SourceRange;
      /** A sub-agent file that could not be read, and why (its conversation is not shown, nor checked). */
      readonly unread?: string;
      /** Errors and warnings in a sub-agent's file. */
      readonly problems?: number;
      /** What a sub-agent file's log says its requests used. */
      readonly usage?: UsageTotals;
    };

/** A conversation of the file, for the one-thread filter. */
export interface ViewThread {
  readonly id: number;
  readonly label: string;
}

export interface SessionView {
  readonly protocol: typeof SESSION_PROTOCOL_VERSION;
  readonly file: string;
  readonly summary: SessionSummary;
  /** Errors and warnings. */
  readonly problems: number;
  readonly rows: readonly TimelineRow[];
  /** Tool names, for the filter. */
  readonly tools: readonly string[];
  /** The file's conversations, main first, when it has more than one (else empty). */
  readonly threads: readonly ViewThread[];
  /** The file can be shown as text (reveal) and inspected (steps); false for a zip (`.eval`). */
  readonly textual: boolean;
  /** The sub-agent files read with a Claude Code session (`<session-id>/subagents/agent-<id>.jsonl`), by row `file` index. */
  readonly files: readonly string[];
  /** Each sub-agent file's requests with usage (its own summary's cache rows): a row's `cache` indexes its file's list. */
  readonly fileCache: readonly (readonly SessionSummary['cache'][number][])[];
  /** Which of the host's snapshots this is: a message about one of its `files` says it, so one from a replaced snapshot is refused. */
  readonly generation: number;
}

/** The cache rows a row's `cache` index refers to: its sub-agent file's, else the session's. */
export function cacheOf(view: SessionView, row: TimelineRow): SessionSummary['cache'][number] | undefined {
  if (row.kind === 'thread' || row.cache === undefined) return undefined;
  return (row.file === undefined ? view.summary.cache : view.fileCache[row.file])?.[row.cache - 1];
}

/** `notice`: why the latest check failed, shown (as text) with the last report. */
export type SessionHostMessage = { readonly type: 'session'; readonly view: SessionView; readonly notice?: string } | { readonly type: 'empty'; readonly reason: string };

/** The file a message is about: the session's own (no `file`), or `files[file]` of the snapshot `generation`. */
export type FileTag = { readonly file?: undefined } | { readonly file: number; readonly generation: number };

export type SessionWebviewMessage =
  | { readonly type: 'ready'; readonly protocol: number }
  | ({ readonly type: 'openStep'; readonly step: number } & FileTag)
  | ({ readonly type: 'reveal'; readonly range: SourceRange } & FileTag);

type MessageOf<T extends SessionWebviewMessage['type']> = Extract<SessionWebviewMessage, { readonly type: T }>;

/** How each session webview message type is read from untrusted data (the inspector's table, protocol.ts). */
const SESSION_MESSAGE_READERS: { readonly [T in SessionWebviewMessage['type']]: (message: Record<string, unknown>) => MessageOf<T> | undefined } = {
  ready: (m) => (typeof m.protocol === 'number' ? { type: 'ready', protocol: m.protocol } : undefined),
  openStep: (m) => (isCount(m.step) && m.step > 0 && fileOk(m) ? { type: 'openStep', step: m.step, ...fileOf(m) } : undefined),
  reveal: (m) => {
    const range = readRange(m.range);
    return range && fileOk(m) ? { type: 'reveal', range, ...fileOf(m) } : undefined;
  },
};

/** A message's `file` is absent (the session's own file) or a sub-agent file's index with its snapshot's generation. */
const fileOk = (m: Record<string, unknown>) => m.file === undefined || (isCount(m.file) && isCount(m.generation));
const fileOf = (m: Record<string, unknown>): FileTag => (isCount(m.file) && isCount(m.generation) ? { file: m.file, generation: m.generation } : {});

/**
 * The file a (validated) message is about: `session`, or the sub-agent file
 * of the snapshot last sent; none when the message came from an earlier
 * snapshot (its indexes may name other files) or names no file of it.
 */
export function fileOfMessage<T>(message: FileTag, session: T, sent: { readonly generation: number; readonly files: readonly T[] }): T | undefined {
  if (message.file === undefined) return session;
  return message.generation === sent.generation ? sent.files[message.file] : undefined;
}

/** Validates a message from the session webview (untrusted) before the host acts on it. */
export function parseSessionWebviewMessage(value: unknown): SessionWebviewMessage | undefined {
  if (!isRecord(value) || typeof value.type !== 'string' || !Object.hasOwn(SESSION_MESSAGE_READERS, value.type)) return undefined;
  return SESSION_MESSAGE_READERS[value.type as SessionWebviewMessage['type']](value);
}

/** Validates a message from the host; the webview ignores anything else. */
export function isSessionHostMessage(value: unknown): value is SessionHostMessage {
  if (!isRecord(value)) return false;
  if (value.type === 'session') return isRecord(value.view) && Array.isArray(value.view.rows) && isRecord(value.view.summary) && (value.notice === undefined || typeof value.notice === 'string');
  return value.type === 'empty' && typeof value.reason === 'string';
}
