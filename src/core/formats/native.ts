/**
 * The native trace (`docs/trace-format.md`): JSONL, a header line
 * `{"type":"prefix-lens/trace","version":1}`, then `window`, `generate`,
 * `append` and `rewrite` events. Each rewrite is one step, judged against the
 * state just before it; unless `applied` is false the proposal becomes the state.
 * The adapter keeps a historical registry of every tool version seen.
 */
import { finding, type Finding } from '../findings';
import { parseJson, type JsonNode } from '../json/parse';
import type { ContextWindow, Message, RewriteSource } from '../model';
import { RenderCache } from '../render';
import type { SourceLine, SourceRange } from '../text';
import { readByLines, type FormatAdapter, type LineReader, type TranscriptEvent, type TranscriptInput } from '../transcript';
import { prop, propString, rangeOf } from '../json/nodes';
import { parseMessages, type SkipSink } from './native-parse';
import { proposalWindow, readWindowFields, withHistory } from './native-object';
import { incompleteLine, Unseen } from './common';

export { windowFromObject } from './native-object';

export const TRACE_TYPE = 'prefix-lens/trace';
export const TRACE_VERSION = 1;

const SOURCES: ReadonlySet<string> = new Set(['policy', 'compaction', 'self_edit', 'runtime']);

export const nativeAdapter: FormatAdapter = {
  id: 'native',
  label: 'Prefix Lens trace (JSONL)',
  sniff: (head) => {
    const firstLine = head.slice(0, head.indexOf('\n') === -1 ? head.length : head.indexOf('\n')).trim();
    const parsed = parseJson(firstLine);
    return parsed.ok && propString(parsed.node, 'type') === TRACE_TYPE;
  },
  read: (input: TranscriptInput) => readByLines(input, new TraceLines()),
  lineReader: () => new TraceLines(),
};

function lineRange(line: SourceLine): SourceRange {
  return { start: line.offset, end: line.offset + line.text.length };
}

/**
 * A trace read line by line: the window so far, whether it changed since it
 * was last a `window` event, what was skipped. `owned` is the state's messages
 * when this reader made the array since the last event it returned (only
 * appends since) and no fork shares it: the next append pushes onto it
 * instead of copying the whole window (which made many appends quadratic).
 */
class TraceLines implements LineReader {
  owned: Message[] | undefined;

  constructor(
    private readonly cache = new RenderCache(),
    private readonly unseen = new Unseen(),
    private state: ContextWindow | undefined = undefined,
    private dirty = false,
    private sawHeader = false,
  ) {}

  line(line: SourceLine): readonly TranscriptEvent[] {
    if (!line.text.trim()) return [];
    const parsed = parseJson(line.text, line.offset);
    if (!parsed.ok) {
      const at = parsed.error.offset;
      return [{ kind: 'finding', finding: line.unterminated ? incompleteLine(line) : invalidJson(at, line, parsed.error.message) }];
    }
    const sink: SkipSink = (s) => this.unseen.note(s.cause, s.range, line.index + 1, s.noun, s.why, s.verb);
    const type = propString(parsed.node, 'type');
    if (!this.sawHeader && type === TRACE_TYPE) {
      this.sawHeader = true;
      const version = prop(parsed.node, 'version');
      if (version?.type !== 'number' || Number(version.raw) !== TRACE_VERSION) {
        sink({ noun: 'trace header', cause: `of another version as version ${TRACE_VERSION}`, why: `this reader knows version ${TRACE_VERSION}`, verb: 'Read', range: lineRange(line) });
      }
      return [];
    }
    if (type !== 'append' && type !== 'generate') this.owned = undefined;
    const outcome = applyEvent(type, parsed.node, this.state, line, this.cache, sink, this);
    if (outcome.state !== this.state) this.dirty = !outcome.yieldedWindow;
    this.state = outcome.state;
    return outcome.events;
  }

  end(): TranscriptEvent[] {
    return [...(this.dirty && this.state ? [{ kind: 'window', window: this.state } as const] : []), ...this.unseen.events()];
  }

  fork(): LineReader {
    this.owned = undefined;
    return new TraceLines(this.cache, this.unseen.clone(), this.state, this.dirty, this.sawHeader);
  }
}

function invalidJson(at: number, line: SourceLine, message: string): Finding {
  const end = line.offset + line.text.length;
  const start = Math.max(line.offset, Math.min(at, end));
  return finding('invalid-json', { start, end: Math.min(start + 1, end) }, `Invalid JSON: ${message}`);
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
  owner: { owned: Message[] | undefined },
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
      const all = owner.owned === base.messages ? owner.owned : (owner.owned = [...base.messages]);
      for (const message of messages) all.push(message);
      const next: ContextWindow = { ...base, messages: all, boundary: type === 'generate' ? all.length : base.boundary, source };
      return { state: next, events: [], yieldedWindow: false };
    }
    case 'rewrite':
      return rewriteEvent(node, state ?? proposalWindow({}, undefined, cache), source, cache, sink);
    default:
      sink({ noun: 'event', cause: type === undefined ? 'without a string `type`' : `of type ${JSON.stringify(type)}`, why: "not part of the model's context as far as this reader knows", range: source });
      return { state, events: [], yieldedWindow: false };
  }
}

function rewriteEvent(node: JsonNode, before: ContextWindow, range: SourceRange, cache: RenderCache, sink: SkipSink): EventOutcome {
  const sourceNode = prop(node, 'source');
  let source: RewriteSource = 'runtime';
  if (sourceNode?.type === 'string' && SOURCES.has(sourceNode.value)) source = sourceNode.value as RewriteSource;
  else sink({ noun: 'rewrite', cause: 'without a valid `source` as runtime', why: '`source` is policy, compaction, self_edit or runtime', verb: 'Read', range: rangeOf(sourceNode) ?? range });
  const appliedNode = prop(node, 'applied');
  const applied = !(appliedNode?.type === 'boolean' && !appliedNode.value);
  const after: ContextWindow = { ...proposalWindow(readWindowFields(node, sink), before, cache), source: range };
  const step: TranscriptEvent = { kind: 'step', rewrite: { source, before, after, applied, range } };
  if (!applied) return { state: before, events: [step], yieldedWindow: false };
  return { state: after, events: [step, { kind: 'window', window: after }], yieldedWindow: true };
}
