/**
 * The inspector's message protocol: the ONE module shared by the extension
 * host (`src/extension/inspector/`) and the webview (`webview/`). Plain data
 * only (structured-cloneable). The host sends engine results; the webview never
 * parses a transcript.
 *
 * Handshake: the webview posts `ready` (with the step it restored from its
 * state, if any); the host answers with a full `transcript` view. Afterwards the host
 * sends `transcript` when the report or the transcript changes and, when only
 * the selected step changes, `stepEdit` (the two pane texts as edits of the
 * step the webview shows: an append step sends its new tail, not both
 * windows) or `step` (both texts whole, when the webview shows no step). A
 * `transcript` of the file shown (it grew) carries its step the same way, as
 * `edit` in place of `view.detail`.
 *
 * Ahead of `]`: once a step is painted the webview posts `stepShown`; the host may answer with
 * `nextStep`, the step after it as the `stepEdit` it would send on `]`, which the webview lays out
 * hidden. The host still sends that `stepEdit` when the step is selected: the webview shows the step
 * laid out ahead only when the two are the same message (and otherwise applies the `stepEdit`).
 *
 * Texts shown in the diff are the engine's rendered bytes with a line break
 * inserted before every tool, message and block (display only); every offset in
 * a `PaneText` is an offset into that display text.
 */
import type { Decision, RuleId, Severity } from '../core/findings';
import type { RewriteSource } from '../core/model';
import type { PairState } from '../core/pairing';
import type { SourceRange } from '../core/text';

export const PROTOCOL_VERSION = 1;

export const VIEW_TYPE = 'prefixLens.inspector';

/** Whether a call/result has its partner in this window: the engine's pair state. */
export type { PairState } from '../core/pairing';

/**
 * One tool call or tool result block of a pane, in display offsets. Only these
 * are sent (not every message), so a 10k-message window stays a small message.
 */
export interface PaneSegment {
  readonly start: number;
  readonly end: number;
  /** 0-based index of the message holding the block. */
  readonly message: number;
  readonly callId: string;
  readonly role: 'call' | 'result';
  /** Index into the pair colour palette; equal for a call and its result, on both sides. */
  readonly colour: number;
  readonly state: PairState;
  /** Says what is missing (orphan) or awaited (pending); shown next to the segment. */
  readonly label?: string;
}

/** One side of the diff. */
export interface PaneText {
  readonly text: string;
  /** Display offset just past the consumed prefix. */
  readonly boundaryOffset: number;
  /** Consumed messages. */
  readonly boundaryMessages: number;
  /** Tokens in the consumed prefix; undefined when not counted for this side. */
  readonly boundaryTokens?: number;
  readonly messageCount: number;
  /** The window's tool calls and results, sorted by start. */
  readonly segments: readonly PaneSegment[];
}

/** A finding as the panel lists it. */
export interface FindingView {
  readonly rule: RuleId;
  readonly severity: Severity;
  readonly message: string;
  /** Range in the transcript file (UTF-16 offsets), sent back in `reveal`. */
  readonly range: SourceRange;
  /** 1-based line / column of the range start in the transcript. */
  readonly line: number;
  readonly column: number;
  readonly step?: number;
  readonly toolCallId?: string;
}

export interface CacheImpactView {
  readonly consumedTokens: number;
  readonly invalidatedTokens: number;
}

/** A step in the timeline. */
export interface StepSummary {
  /** 1-based. */
  readonly index: number;
  readonly decision: Decision;
  readonly source: RewriteSource;
  /** The model proposed it itself (self-edit): judged as untrusted. */
  readonly untrusted: boolean;
  readonly applied: boolean;
  readonly rules: readonly RuleId[];
  readonly cacheImpact: CacheImpactView;
  /** The conversation of a request log the step belongs to (1-based), only when the file holds more than one. */
  readonly thread?: number;
}

/** The planned whole-pair compaction of an aborting step. */
export interface FixPreview {
  readonly title: string;
  readonly description: string;
  /** The fixed window's re-judged decision (never abort). */
  readonly decision: Decision;
  readonly after: PaneText;
}

/** Everything the diff and the banner show for the current step. */
export interface StepDetail {
  readonly step: StepSummary;
  /** The consumed prefix as the model saw it (the window before the rewrite). */
  readonly before: PaneText;
  /** The proposed rewrite. */
  readonly after: PaneText;
  /** Display offset of the first changed byte inside the consumed prefix, if any. */
  readonly breakOffset?: number;
  /**
   * Where the two texts differ, by the engine's alignment of the two windows' messages: they are
   * equal before display offset `start` and from `beforeEnd` / `afterEnd` on (the diff runs between).
   */
  readonly changed?: { readonly start: number; readonly beforeEnd: number; readonly afterEnd: number };
  /** This step's findings: the reasons of its decision. */
  readonly findings: readonly FindingView[];
  readonly fix?: FixPreview;
  /** Why the diff is empty, when the report kept no rewrite for this step. */
  readonly unavailable?: string;
}

/** Part of a pane's text replaced: `[start, end)` of the text it showed becomes `text`. */
export interface TextSplice {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/**
 * A pane's segments as kept from the same pane of the step shown before: its first `keepHead` as they
 * were, its last `keepTail` moved by the change in text length and message count, `insert` between.
 */
export interface SegmentSplice {
  readonly keepHead: number;
  readonly keepTail: number;
  readonly insert: readonly PaneSegment[];
}

/** One pane of a step sent as splices of the same pane of the step shown before. */
export type PaneSplice = Omit<PaneText, 'text' | 'segments'> & {
  readonly splice: TextSplice;
  /** The text's length once spliced. */
  readonly length: number;
  readonly segments: SegmentSplice;
};

/** A step's detail whose two pane texts are splices of the step shown before (`StepEdit.from`). */
export type StepDetailSplices = Omit<StepDetail, 'before' | 'after'> & { readonly before: PaneSplice; readonly after: PaneSplice };

/** The `stepEdit` message: step `selected`, its texts given against step `from`'s. */
export interface StepEdit {
  readonly type: 'stepEdit';
  readonly selected: number;
  readonly from: number;
  readonly detail: StepDetailSplices;
}

/**
 * A segment of the tail of a pane moved by `offset` characters and `messages` messages. Its fields
 * written out (in the order the views build them), not spread: a compaction's splice moves every
 * segment after the dropped messages (~6.6k of a 10k-message window) on the step's critical path.
 */
export function movedSegment(s: PaneSegment, offset: number, messages: number): PaneSegment {
  const moved = { start: s.start + offset, end: s.end + offset, message: s.message + messages, callId: s.callId, role: s.role, colour: s.colour, state: s.state };
  return s.label === undefined ? moved : { ...moved, label: s.label };
}

function splicePane(base: PaneText, pane: PaneSplice): PaneText | undefined {
  const { splice, length, segments, ...rest } = pane;
  if (splice.end > base.text.length || splice.start > splice.end) return undefined;
  if (segments.keepHead + segments.keepTail > base.segments.length) return undefined;
  const text = base.text.slice(0, splice.start) + splice.text + base.text.slice(splice.end);
  if (text.length !== length) return undefined;
  const offset = length - base.text.length;
  const messages = pane.messageCount - base.messageCount;
  const kept = base.segments;
  const spliced = kept.slice(0, segments.keepHead);
  for (const s of segments.insert) spliced.push(s);
  for (let i = kept.length - segments.keepTail; i < kept.length; i++) spliced.push(movedSegment(kept[i]!, offset, messages));
  return { ...rest, text, segments: spliced };
}

/** The full detail of a `stepEdit`, from the detail of the step it was computed against; undefined when `base` is not that step's. */
export function applyStepEdit(base: StepDetail | undefined, message: StepEdit): StepDetail | undefined {
  if (!base || base.step.index !== message.from) return undefined;
  const before = splicePane(base.before, message.detail.before);
  const after = splicePane(base.after, message.detail.after);
  return before && after ? { ...message.detail, before, after } : undefined;
}

export interface TranscriptView {
  readonly protocol: typeof PROTOCOL_VERSION;
  /** The transcript's path, for the title. */
  readonly file: string;
  readonly format: string;
  /** e.g. "o200k_base (approximate)". */
  readonly tokenizer?: string;
  readonly steps: readonly StepSummary[];
  /** Findings not tied to a step (window-level), capped; see `findingsTotal`. */
  readonly windowFindings: readonly FindingView[];
  readonly findingsTotal: number;
  /** The selected step (1-based), undefined when the transcript has no step. */
  readonly selected?: number;
  readonly detail?: StepDetail;
  /** With no step to show: the tool calls and results of the transcript's last window, for the Tool pairs tab. */
  readonly pairs?: readonly PaneSegment[];
}

/** Host → webview. */
export type HostMessage =
  | { readonly type: 'transcript'; readonly view: TranscriptView; readonly edit?: StepEdit }
  | { readonly type: 'step'; readonly selected: number; readonly detail: StepDetail }
  | StepEdit
  | { readonly type: 'nextStep'; readonly edit: StepEdit }
  | { readonly type: 'empty'; readonly reason: string }
  | { readonly type: 'fixResult'; readonly step: number; readonly applied: boolean; readonly message: string };

/** Webview → host. */
export type WebviewMessage =
  | { readonly type: 'ready'; readonly protocol: number; readonly restoredStep?: number }
  | { readonly type: 'selectStep'; readonly step: number }
  | { readonly type: 'stepShown'; readonly step: number }
  | { readonly type: 'reveal'; readonly range: SourceRange }
  | { readonly type: 'applyFix'; readonly step: number };

/** What the webview keeps in `vscode.setState` (and the serializer restores). */
export interface InspectorState {
  readonly file?: string;
  readonly step?: number;
  readonly previewFix?: boolean;
  /** Follow: a growing file's newest step is kept in view. */
  readonly follow?: boolean;
}

/** Compile-time exhaustiveness: every `switch` on a message type ends with this. */
export function assertNever(value: never, what = 'message'): never {
  throw new Error(`Unexpected ${what}: ${JSON.stringify(value)}`);
}

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
export const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;
const isText = (value: unknown): value is string => typeof value === 'string';

/** A source range from untrusted data: two counts, `end` not before `start`. */
export function readRange(value: unknown): SourceRange | undefined {
  if (!isRecord(value) || !isCount(value.start) || !isCount(value.end) || value.end < value.start) return undefined;
  return { start: value.start, end: value.end };
}

type MessageOf<T extends WebviewMessage['type']> = Extract<WebviewMessage, { readonly type: T }>;

/**
 * How each webview message type is read from untrusted data. Keyed by every
 * `WebviewMessage` type, so a new message type does not compile until it has
 * an entry here.
 */
const WEBVIEW_MESSAGE_READERS: { readonly [T in WebviewMessage['type']]: (message: Record<string, unknown>) => MessageOf<T> | undefined } = {
  ready: (m) => {
    if (typeof m.protocol !== 'number') return undefined;
    return isCount(m.restoredStep) ? { type: 'ready', protocol: m.protocol, restoredStep: m.restoredStep } : { type: 'ready', protocol: m.protocol };
  },
  selectStep: (m) => (isCount(m.step) ? { type: 'selectStep', step: m.step } : undefined),
  stepShown: (m) => (isCount(m.step) ? { type: 'stepShown', step: m.step } : undefined),
  applyFix: (m) => (isCount(m.step) ? { type: 'applyFix', step: m.step } : undefined),
  reveal: (m) => {
    const range = readRange(m.range);
    return range && { type: 'reveal', range };
  },
};

/** Validates a message from the webview (untrusted input) before the host acts on it. */
export function parseWebviewMessage(value: unknown): WebviewMessage | undefined {
  if (!isRecord(value) || !isText(value.type) || !Object.hasOwn(WEBVIEW_MESSAGE_READERS, value.type)) return undefined;
  return WEBVIEW_MESSAGE_READERS[value.type as WebviewMessage['type']](value);
}

/**
 * What a host message of each type must carry. Keyed by every `HostMessage`
 * type, so a new message type does not compile until it has an entry here.
 */
const HOST_MESSAGE_FIELDS: { readonly [T in HostMessage['type']]: (message: Record<string, unknown>) => boolean } = {
  transcript: (m) => isRecord(m.view) && (m.edit === undefined || (isRecord(m.edit) && isStepEdit(m.edit))),
  step: (m) => isCount(m.selected) && isRecord(m.detail),
  stepEdit: (m) => isStepEdit(m),
  nextStep: (m) => isRecord(m.edit) && isStepEdit(m.edit),
  empty: (m) => isText(m.reason),
  fixResult: (m) => isCount(m.step) && typeof m.applied === 'boolean' && isText(m.message),
};

function isPaneSplice(value: unknown): boolean {
  if (!isRecord(value) || !isCount(value.length) || !isCount(value.messageCount) || !isRecord(value.splice) || !isRecord(value.segments)) return false;
  const { start, end, text } = value.splice;
  const { keepHead, keepTail, insert } = value.segments;
  return isCount(start) && isCount(end) && start <= end && isText(text) && isCount(keepHead) && isCount(keepTail) && Array.isArray(insert);
}

function isStepEdit(m: Record<string, unknown>): boolean {
  return m.type === 'stepEdit' && isCount(m.selected) && isCount(m.from) && isRecord(m.detail) && isPaneSplice(m.detail.before) && isPaneSplice(m.detail.after);
}

/** Validates a message from the host; the webview ignores anything else. */
export function isHostMessage(value: unknown): value is HostMessage {
  if (!isRecord(value) || !isText(value.type) || !Object.hasOwn(HOST_MESSAGE_FIELDS, value.type)) return false;
  return HOST_MESSAGE_FIELDS[value.type as HostMessage['type']](value);
}

/** The webview state restored by VS Code (`getState`, the serializer): kept only where well-formed. */
export function parseInspectorState(value: unknown): InspectorState {
  if (!isRecord(value)) return {};
  return {
    ...(isText(value.file) ? { file: value.file } : {}),
    ...(isCount(value.step) && value.step > 0 ? { step: value.step } : {}),
    ...(typeof value.previewFix === 'boolean' ? { previewFix: value.previewFix } : {}),
    ...(typeof value.follow === 'boolean' ? { follow: value.follow } : {}),
  };
}
