/**
 * Classifies the lines of a Claude Code session file. Only `user` and
 * `assistant` lines are messages; `progress` and `system` lines sit in the
 * `parentUuid` chain and are walked through; `compact_boundary` cuts the
 * chain; UI-only records (`file-history-snapshot`, `queue-operation`, legacy
 * `summary` titles) are dropped silently; unknown types are reported as
 * `record-skipped` info.
 */
import { finding, type Finding } from '../../findings';
import type { JsonNode } from '../../json/parse';
import { prop, propString } from '../../json/nodes';
import type { SourceLine, SourceRange } from '../../text';
import { parseJsonLine, Unseen } from '../common';
import { onlyToolResults } from './blocks';

export type RecordKind = 'message' | 'transparent' | 'boundary' | 'ignored';

export interface CcRecord {
  /** Order in the file (0-based among parsed lines). */
  readonly index: number;
  /** 1-based line number in the file. */
  readonly line: number;
  readonly node: JsonNode;
  readonly range: SourceRange;
  readonly kind: RecordKind;
  readonly type: string;
  readonly uuid?: string;
  /** `null` in the file → null; absent → undefined. */
  readonly parentUuid?: string | null;
  readonly sidechain: boolean;
  readonly role?: 'user' | 'assistant';
  /** `message.id` of assistant lines: one API response may span several lines. */
  readonly messageId?: string;
  readonly content?: JsonNode;
  readonly compactSummary: boolean;
  /** `isMeta`: injected, user-invisible context (hook reminders, caveats). */
  readonly meta: boolean;
  readonly toolResultsOnly: boolean;
}

/** Records that are never part of the model's context and are skipped without a finding. */
const UI_ONLY = new Set(['file-history-snapshot', 'queue-operation', 'summary', 'custom-title', 'tag', 'agent-name', 'last-prompt']);

/**
 * Record types this reader interprets: messages, or lines it walks through.
 * `attachment` lines (hook additional context, file mentions, in newer
 * versions) are hook output: walked through and skipped without a finding.
 */
const MODEL_TYPES = new Set(['user', 'assistant', 'system', 'progress', 'attachment']);

export interface ReadRecords {
  readonly records: CcRecord[];
  readonly findings: Finding[];
}

/**
 * The records of a session, read one line at a time (a followed file goes on
 * from where it stopped): a line's own finding comes at once, those counted
 * over the whole file at the end.
 */
export class RecordReader {
  constructor(
    private readonly records: CcRecord[] = [],
    private readonly unseen: UnseenParts = { lines: 0, toolParts: 0 },
    private readonly skippedTypes = new Unseen(),
  ) {}

  /** Reads a line: its record, or the finding of a line that does not parse (nothing for a blank line). */
  line(source: SourceLine): { readonly record?: CcRecord; readonly finding?: Finding } {
    const line = parseJsonLine(source);
    if (!line) return {};
    if (!line.ok) return { finding: line.finding };
    // A line with Gemini-style parts is said by the parts finding; its record type is not said again.
    const partsLine = countGeminiParts(line.node, line.range, line.line.index + 1, this.unseen);
    const record = classify(line.node, line.range, this.records.length, line.line.index + 1);
    if (!partsLine && !UI_ONLY.has(record.type) && !MODEL_TYPES.has(record.type)) {
      this.skippedTypes.note(`of Claude Code type "${record.type || '?'}"`, line.range, record.line);
    }
    this.records.push(record);
    return { record };
  }

  /** The records read so far. */
  get read(): readonly CcRecord[] {
    return this.records;
  }

  /** Every record so far, and `findings` followed by those counted over the file. */
  end(findings: Finding[]): ReadRecords {
    if (this.unseen.first) findings.push(unseenFinding(this.unseen, this.unseen.first));
    findings.push(...this.skippedTypes.findings());
    return { records: this.records, findings };
  }

  fork(): RecordReader {
    return new RecordReader([...this.records], { ...this.unseen }, this.skippedTypes.clone());
  }
}

/** Message lines written as Gemini `{role, parts}` (Qwen Code's envelope): content this reader cannot see. */
interface UnseenParts {
  lines: number;
  toolParts: number;
  first?: { readonly range: SourceRange; readonly line: number };
}

/** Counts a line whose message has `parts` instead of `content`; true when it is one. */
function countGeminiParts(node: JsonNode, range: SourceRange, lineNumber: number, unseen: UnseenParts): boolean {
  const message = prop(node, 'message');
  const parts = prop(message, 'parts');
  if (parts?.type !== 'array' || prop(message, 'content') !== undefined) return false;
  unseen.lines++;
  unseen.first ??= { range, line: lineNumber };
  for (const part of parts.items) if (prop(part, 'functionCall') || prop(part, 'functionResponse')) unseen.toolParts++;
  return true;
}

function unseenFinding(unseen: UnseenParts, first: { readonly range: SourceRange; readonly line: number }): Finding {
  return finding(
    'record-skipped',
    first.range,
    `${unseen.lines} message line(s) carry Gemini-style \`parts\` instead of \`content\` (${unseen.toolParts} functionCall/functionResponse part(s) among them; a Qwen Code session?): the Claude Code reader cannot see them, so their tool calls and results are not checked (first at line ${first.line})`,
  );
}

function classify(node: JsonNode, range: SourceRange, index: number, lineNumber: number): CcRecord {
  const type = propString(node, 'type') ?? '';
  const parent = prop(node, 'parentUuid');
  const sidechainNode = prop(node, 'isSidechain');
  const base = {
    index,
    line: lineNumber,
    node,
    range,
    type,
    uuid: propString(node, 'uuid'),
    parentUuid: parent?.type === 'string' ? parent.value : parent?.type === 'null' ? null : undefined,
    sidechain: sidechainNode?.type === 'boolean' && sidechainNode.value,
    compactSummary: isTrue(node, 'isCompactSummary'),
    meta: isTrue(node, 'isMeta'),
    toolResultsOnly: false,
  };
  if ((type === 'user' || type === 'assistant') && prop(node, 'message')?.type === 'object' && !isTrue(node, 'isApiErrorMessage')) {
    const message = prop(node, 'message');
    const content = prop(message, 'content');
    return {
      ...base,
      kind: 'message',
      role: type,
      messageId: type === 'assistant' ? propString(message, 'id') : undefined,
      content,
      toolResultsOnly: type === 'user' && onlyToolResults(content),
    };
  }
  if (type === 'system' && propString(node, 'subtype') === 'compact_boundary') return { ...base, kind: 'boundary' };
  if (MODEL_TYPES.has(type)) return { ...base, kind: 'transparent' };
  return { ...base, kind: base.uuid && !UI_ONLY.has(type) ? 'transparent' : 'ignored' };
}

function isTrue(node: JsonNode, key: string): boolean {
  const value = prop(node, key);
  return value?.type === 'boolean' && value.value;
}

/** The uuids listed in a boundary's `compactMetadata.preservedMessages.uuids`. */
export function preservedUuids(boundary: CcRecord | undefined): string[] {
  const list = prop(prop(prop(boundary?.node, 'compactMetadata'), 'preservedMessages'), 'uuids');
  if (list?.type !== 'array') return [];
  return list.items.flatMap((item) => (item.type === 'string' ? [item.value] : []));
}
