/**
 * The native trace (`docs/trace-format.md`): JSONL, a header line
 * `{"type":"prefix-lens/trace","version":1}`, then `window`, `generate`,
 * `append` and `rewrite` events. Each rewrite is one step, judged against the
 * state just before it; unless `applied` is false the proposal becomes the state.
 * The adapter keeps a historical registry of every tool version seen.
 */
import { alignMessages, inferBoundary } from '../align';
import { finding, type Finding } from '../findings';
import { fromValue, parseJson, prop, propString, type JsonNode } from '../json/parse';
import type { ContextWindow, Message, RewriteSource, ToolSchema } from '../model';
import { RenderCache } from '../render';
import type { SourceLine, SourceRange } from '../text';
import type { FormatAdapter, TranscriptEvent, TranscriptInput } from '../transcript';
import { rangeOf } from '../json/nodes';
import { parseMessages, parseTools, type SkipSink } from './native-parse';

export const TRACE_TYPE = 'prefix-lens/trace';
export const TRACE_VERSION = 1;

const SOURCES: ReadonlySet<string> = new Set(['policy', 'compaction', 'self_edit', 'runtime']);

/** The fields of a window-shaped object (a `window` or `rewrite` event, a library caller's object). */
interface WindowFields {
  readonly tools?: ToolSchema[];
  readonly toolsSource?: SourceRange;
  readonly messages?: Message[];
  readonly messagesSource?: SourceRange;
  readonly boundary?: number;
}

function readWindowFields(node: JsonNode, sink: SkipSink): WindowFields {
  const tools = prop(node, 'tools');
  const messages = prop(node, 'messages');
  const boundary = prop(node, 'boundary');
  const toolsSource = rangeOf(tools);
  const messagesSource = rangeOf(messages);
  let boundaryValue: number | undefined;
  if (boundary?.type === 'number' && Number.isInteger(Number(boundary.raw)) && Number(boundary.raw) >= 0) {
    boundaryValue = Number(boundary.raw);
  } else if (boundary) {
    sink(finding('record-skipped', rangeOf(boundary) ?? { start: 0, end: 0 }, '`boundary` must be a non-negative integer; ignored'));
  }
  return {
    ...(tools && { tools: parseTools(tools, sink) }),
    ...(toolsSource && { toolsSource }),
    ...(messages && { messages: parseMessages(messages, sink) }),
    ...(messagesSource && { messagesSource }),
    ...(boundaryValue !== undefined && { boundary: boundaryValue }),
  };
}

/** Adds tools to a historical registry (one entry per name and version, first declaration kept). */
function withHistory(history: readonly ToolSchema[], tools: readonly ToolSchema[]): readonly ToolSchema[] {
  const key = (t: ToolSchema) => `${t.name}\u0000${t.version ?? ''}`;
  const seen = new Set(history.map(key));
  const added = tools.filter((t) => !seen.has(key(t)) && seen.add(key(t)));
  return added.length ? [...history, ...added] : history;
}

/**
 * Builds the window a proposal describes on top of `base`: missing fields are
 * unchanged; a missing boundary is inferred by aligning the messages.
 */
function proposalWindow(fields: WindowFields, base: ContextWindow | undefined, cache: RenderCache): ContextWindow {
  const tools = fields.tools ?? base?.tools ?? [];
  const messages = fields.messages ?? base?.messages ?? [];
  let boundary = fields.boundary;
  if (boundary === undefined) {
    if (!base) boundary = messages.length;
    else if (!fields.messages) boundary = base.boundary;
    else {
      const texts = (list: readonly Message[]) => list.map((m) => cache.messageText(m));
      const roles = { before: base.messages.map((m) => m.role), after: messages.map((m) => m.role) };
      boundary = inferBoundary(alignMessages(texts(base.messages), texts(messages), roles), base.boundary);
    }
  }
  const toolsSource = fields.toolsSource ?? (fields.tools ? undefined : base?.toolsSource);
  const messagesSource = fields.messagesSource ?? (fields.messages ? undefined : base?.messagesSource);
  return {
    format: 'native',
    tools,
    historicalTools: withHistory(base?.historicalTools ?? base?.tools ?? [], tools),
    messages,
    boundary: Math.min(boundary, messages.length),
    live: true,
    ...(toolsSource && { toolsSource }),
    ...(messagesSource && { messagesSource }),
  };
}

/**
 * A window from a plain native-trace-shaped object `{tools?, messages, boundary?}`
 * (library callers). With `base`, missing fields are taken from it and the
 * boundary, when absent, is inferred against it.
 */
export function windowFromObject(value: unknown, base?: ContextWindow): ContextWindow {
  const node = fromValue(value);
  const fields = readWindowFields(node, () => undefined);
  return proposalWindow(fields, base, new RenderCache());
}

export const nativeAdapter: FormatAdapter = {
  id: 'native',
  label: 'Prefix Lens trace (JSONL)',
  sniff: (head) => {
    const firstLine = head.slice(0, head.indexOf('\n') === -1 ? head.length : head.indexOf('\n')).trim();
    const parsed = parseJson(firstLine);
    return parsed.ok && propString(parsed.node, 'type') === TRACE_TYPE;
  },
  read: (input: TranscriptInput) => readTrace(input),
};

function lineRange(line: SourceLine): SourceRange {
  return { start: line.offset, end: line.offset + line.text.length };
}

function* readTrace(input: TranscriptInput): Generator<TranscriptEvent> {
  const cache = new RenderCache();
  let state: ContextWindow | undefined;
  let dirty = false;
  let sawHeader = false;
  for (const line of input.lines()) {
    if (!line.text.trim()) continue;
    const parsed = parseJson(line.text, line.offset);
    if (!parsed.ok) {
      const at = parsed.error.offset;
      yield { kind: 'finding', finding: invalidJson(at, line, parsed.error.message) };
      continue;
    }
    const findings: Finding[] = [];
    const sink: SkipSink = (f) => findings.push(f);
    const type = propString(parsed.node, 'type');
    if (!sawHeader && type === TRACE_TYPE) {
      sawHeader = true;
      const version = prop(parsed.node, 'version');
      if (version?.type !== 'number' || Number(version.raw) !== TRACE_VERSION) {
        sink(finding('record-skipped', lineRange(line), `Unsupported trace version; reading it as version ${TRACE_VERSION}`));
      }
    } else {
      const outcome = applyEvent(type, parsed.node, state, line, cache, sink);
      yield* outcome.events;
      if (outcome.state !== state) dirty = !outcome.yieldedWindow;
      state = outcome.state;
    }
    for (const f of findings) yield { kind: 'finding', finding: f };
  }
  if (dirty && state) yield { kind: 'window', window: state };
}

function invalidJson(at: number, line: SourceLine, message: string): Finding {
  const end = line.offset + line.text.length;
  return finding('invalid-json', { start: Math.min(at, end), end: Math.max(Math.min(at, end) + 1, end) }, `Invalid JSON: ${message}`);
}

interface EventOutcome {
  readonly state: ContextWindow | undefined;
  readonly events: TranscriptEvent[];
  readonly yieldedWindow: boolean;
}

function applyEvent(
  type: string | undefined,
  node: JsonNode,
  state: ContextWindow | undefined,
  line: SourceLine,
  cache: RenderCache,
  sink: SkipSink,
): EventOutcome {
  const source = lineRange(line);
  switch (type) {
    case 'window': {
      const fields = readWindowFields(node, sink);
      const window = { ...proposalWindow({ ...fields, boundary: fields.boundary ?? fields.messages?.length ?? 0 }, undefined, cache), source };
      const historical = withHistory(state?.historicalTools ?? [], window.tools);
      const next = { ...window, historicalTools: historical };
      return { state: next, events: [{ kind: 'window', window: next }], yieldedWindow: true };
    }
    case 'generate':
    case 'append': {
      const added = prop(node, 'messages');
      const messages = added ? parseMessages(added, sink) : [];
      const base = state ?? proposalWindow({}, undefined, cache);
      const all = [...base.messages, ...messages];
      const next: ContextWindow = { ...base, messages: all, boundary: type === 'generate' ? all.length : base.boundary, source };
      return { state: next, events: [], yieldedWindow: false };
    }
    case 'rewrite':
      return rewriteEvent(node, state ?? proposalWindow({}, undefined, cache), source, cache, sink);
    default:
      sink(finding('record-skipped', source, `Skipped an event of type ${JSON.stringify(type ?? null)}`));
      return { state, events: [], yieldedWindow: false };
  }
}

function rewriteEvent(node: JsonNode, before: ContextWindow, range: SourceRange, cache: RenderCache, sink: SkipSink): EventOutcome {
  const sourceNode = prop(node, 'source');
  let source: RewriteSource = 'runtime';
  if (sourceNode?.type === 'string' && SOURCES.has(sourceNode.value)) source = sourceNode.value as RewriteSource;
  else sink(finding('record-skipped', rangeOf(sourceNode) ?? range, 'A rewrite needs `source`: policy, compaction, self_edit or runtime; read as runtime'));
  const appliedNode = prop(node, 'applied');
  const applied = !(appliedNode?.type === 'boolean' && !appliedNode.value);
  const after: ContextWindow = { ...proposalWindow(readWindowFields(node, sink), before, cache), source: range };
  const step: TranscriptEvent = { kind: 'step', rewrite: { source, before, after, applied, range } };
  if (!applied) return { state: before, events: [step], yieldedWindow: false };
  return { state: after, events: [step, { kind: 'window', window: after }], yieldedWindow: true };
}
