/**
 * Codex CLI rollout JSONL (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).
 *
 * Every line is `{timestamp, type, payload}`. The model input is rebuilt from
 * `session_meta.payload.base_instructions` (the system message) and the
 * `response_item` payloads, one message per item, read like OpenAI Responses
 * items (paired by `call_id`). `event_msg` lines are UI copies and turn
 * markers, `turn_context` lines are settings: neither is a message. A
 * `compacted` line replaces the input with its `replacement_history` (a
 * `compaction` item in it marks the elision): a step with source `compaction`.
 * Unknown record types are `record-skipped` info.
 *
 * Unfinished turns: a call with no output at the end of a turn that never got
 * `task_complete` (or got `turn_aborted`) is reported as a `tool-use-orphaned`
 * warning (the session stopped, or is still running, before the tool
 * returned). Once a later user message follows it (the session resumed, a new
 * turn began) it is an error orphan: the next request would be rejected. A
 * call left without output in a turn that did complete is an error too.
 */
import { finding, type Finding } from '../findings';
import type { JsonArray, JsonNode } from '../json/parse';
import { toolPairs, type Block, type ContextWindow, type Message } from '../model';
import type { SourceLine, SourceRange } from '../text';
import { readByLines, type FormatAdapter, type LineReader, type TranscriptEvent } from '../transcript';
import { readItem } from './openai-responses';
import { asArray, asString, prop, rangeOf } from '../json/nodes';
import { consumedBoundary, findingEvent, lineMatches, parseJsonLine, Unseen } from './common';

export const codexAdapter: FormatAdapter = {
  id: 'codex',
  label: 'Codex CLI rollout JSONL',
  sniff: (head) =>
    lineMatches(
      head,
      /^[ \t\r]*\{\s*"timestamp"\s*:\s*"[^"]*"\s*,\s*"type"\s*:\s*"(session_meta|response_item|turn_context|event_msg|compacted)"\s*,\s*"payload"\s*:/,
      [/^[ \t\r]*\{\s*"type"\s*:\s*"(session_meta|response_item|turn_context|compacted)"\s*,/, /"payload"\s*:/],
    ),
  read: (input) => readByLines(input, new CodexLines()),
  lineReader: () => new CodexLines(),
};

/** `response_item` payload types Codex keeps for itself and never sends to the model (`ghost_snapshot`: the undo checkpoint, kept across compactions). */
const HARNESS_ITEMS: ReadonlySet<string> = new Set(['ghost_snapshot']);

/** `response_item` payload types that are part of the model input. */
const INPUT_ITEMS = new Set([
  'message',
  'reasoning',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'local_shell_call',
  'local_shell_call_output',
  'web_search_call',
  'tool_search_call',
  'tool_search_output',
  'compaction',
]);

/** Where the last turn stands, from the `event_msg` turn markers. */
interface TurnState {
  status: 'none' | 'open' | 'completed' | 'aborted';
}

/** A rollout read line by line: the model input so far, the turn markers, what was skipped. */
class CodexLines implements LineReader {
  constructor(
    private system: Message | undefined = undefined,
    private messages: Message[] = [],
    private readonly turn: TurnState = { status: 'none' },
    private readonly unseen = new Unseen(),
  ) {}

  line(source: SourceLine): TranscriptEvent[] {
    const line = parseJsonLine(source);
    if (!line) return [];
    if (!line.ok) return [findingEvent(line.finding)];
    const type = asString(prop(line.node, 'type'))?.value ?? '';
    const payload = prop(line.node, 'payload');
    const payloadType = asString(prop(payload, 'type'))?.value ?? '';
    if (type === 'session_meta') {
      this.system ??= baseInstructions(payload);
    } else if (type === 'response_item') {
      if (INPUT_ITEMS.has(payloadType) && payload) this.messages.push(lineMessage(payload, line.range, line.line.index + 1));
      else if (!HARNESS_ITEMS.has(payloadType)) this.unseen.note(`of Codex response_item type "${payloadType || '?'}"`, line.range, line.line.index + 1);
    } else if (type === 'compacted') {
      const before = codexWindow(this.system, this.messages);
      this.messages = replacement(payload, line.line.index + 1);
      return [
        { kind: 'window', window: before },
        { kind: 'step', rewrite: { source: 'compaction', before, after: codexWindow(this.system, this.messages), applied: true, range: line.range } },
      ];
    } else if (type === 'event_msg') {
      trackTurn(this.turn, payloadType);
    } else if (type !== 'turn_context') {
      this.unseen.note(`of Codex type "${type || '?'}"`, line.range, line.line.index + 1);
    }
    return [];
  }

  end(): TranscriptEvent[] {
    const final = codexWindow(this.system, this.messages);
    return [{ kind: 'window', window: final }, ...unfinishedCalls(final, this.turn).map(findingEvent), ...this.unseen.events()];
  }

  fork(): LineReader {
    return new CodexLines(this.system, [...this.messages], { ...this.turn }, this.unseen.clone());
  }
}

function trackTurn(turn: TurnState, eventType: string): void {
  if (eventType === 'task_started') turn.status = 'open';
  else if (eventType === 'task_complete') turn.status = 'completed';
  else if (eventType === 'turn_aborted') turn.status = 'aborted';
}

function codexWindow(system: Message | undefined, messages: readonly Message[]): ContextWindow {
  const all = system ? [system, ...messages] : [...messages];
  return { format: 'codex', tools: [], messages: all, boundary: consumedBoundary(all), live: true };
}

/** `base_instructions` is a string, or `{text}` in newer rollouts. */
function baseInstructions(payload: JsonNode | undefined): Message | undefined {
  const node = prop(payload, 'base_instructions');
  const text = asString(node) ?? asString(prop(node, 'text'));
  if (!text) return undefined;
  const source = rangeOf(text);
  return { role: 'system', blocks: [{ kind: 'text', text: text.value, source }], source };
}

/** One response item of its own line: the message points at the whole line (edits remove the line) and is named by it. */
function lineMessage(payload: JsonNode, line: SourceRange, lineNumber: number): Message {
  const container: JsonArray = { type: 'array', start: -1, end: -1, items: [payload] };
  const message = readItem(payload, container);
  return { ...message, source: line, container: undefined, place: `line ${lineNumber}`, blocks: message.blocks.map(withoutContainer) };
}

function withoutContainer(block: Block): Block {
  return block.kind === 'tool_call' || block.kind === 'tool_result' ? { ...block, container: undefined } : block;
}

/** The new model input of a `compacted` line: its `replacement_history`, or the bare summary of older rollouts. */
function replacement(payload: JsonNode | undefined, lineNumber: number): Message[] {
  const history = asArray(prop(payload, 'replacement_history'));
  if (history) {
    const sent = [...history.items.entries()].filter(([, item]) => !HARNESS_ITEMS.has(asString(prop(item, 'type'))?.value ?? ''));
    return sent.map(([i, item]) => ({ ...readItem(item, history), place: `replacement_history[${i}] on line ${lineNumber}` }));
  }
  const summary = asString(prop(payload, 'message'));
  if (!summary) return [];
  const source = rangeOf(summary);
  return [{ role: 'user', blocks: [{ kind: 'text', text: summary.value, source }], source, elision: true, place: `the summary on line ${lineNumber}` }];
}

/**
 * Calls with no output in the final window. After the last user message the
 * engine treats them as pending at the frontier; here the turn markers tell
 * whether the turn finished without them (error) or never finished (warning).
 * Before a later user message with no assistant turn after it (a session
 * resumed after an interrupted turn), the engine would also see them as
 * pending, yet the next request of the session carries the call without its
 * output and is rejected: an error. With a later assistant turn the engine
 * reports them itself.
 */
function unfinishedCalls(window: ContextWindow, turn: TurnState): Finding[] {
  const lastUser = lastIndex(window, 'user');
  const lastAssistant = lastIndex(window, 'assistant');
  const out: Finding[] = [];
  for (const pair of toolPairs(window).values()) {
    if (!pair.call || pair.results.length > 0) continue;
    const call = pair.call.value;
    const range = call.idSource ?? call.source ?? { start: 0, end: 0 };
    if (pair.call.message < lastUser) {
      if (lastAssistant <= lastUser) out.push(resumedWithout(call.id, call.name, range));
    } else if (turn.status !== 'none') {
      out.push(turn.status === 'completed' ? completedWithout(call.id, call.name, range) : abandoned(call.id, call.name, range, turn.status === 'aborted'));
    }
  }
  return out;
}

function lastIndex(window: ContextWindow, role: Message['role']): number {
  let last = -1;
  window.messages.forEach((m, i) => {
    if (m.role === role) last = i;
  });
  return last;
}

function resumedWithout(id: string, name: string, range: SourceRange): Finding {
  return finding(
    'tool-use-orphaned',
    range,
    `Codex call ${id} (${name}) has no output, yet the session went on with a later user message (a resumed session or a new turn): its next request is rejected ("No tool output found for function call")`,
    { toolCallId: id },
  );
}

function completedWithout(id: string, name: string, range: SourceRange): Finding {
  return finding('tool-use-orphaned', range, `Codex call ${id} (${name}) has no function_call_output, yet its turn completed (task_complete): the call is orphaned`, { toolCallId: id });
}

function abandoned(id: string, name: string, range: SourceRange, aborted: boolean): Finding {
  const why = aborted ? 'its turn was aborted (turn_aborted)' : 'its turn never completed (task_started without task_complete)';
  return finding(
    'tool-use-orphaned',
    range,
    `Codex call ${id} (${name}) has no output and ${why}: the session stopped before the tool returned. Pending while the session is live; an error orphan once a later turn follows it`,
    { toolCallId: id, severity: 'warning' },
  );
}
