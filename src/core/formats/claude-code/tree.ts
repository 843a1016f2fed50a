/**
 * Rebuilds the context a Claude Code model saw from the `uuid`/`parentUuid`
 * tree, in file order, and notices every place the active context was
 * rewritten (a compaction, a rewind to an earlier message).
 *
 * Lines are grouped into units: all assistant lines sharing `message.id` are
 * one model output; all user lines holding only `tool_result` blocks that hang
 * off one model output are one results unit (parallel calls write their results
 * as sibling lines, so a plain parent walk would lose some of them). The active
 * context is the unit path from the root to the newest unit.
 */
import type { Message } from '../../model';
import type { SourceRange } from '../../text';
import { messagesOf, PathMessages, type MessageCache } from './messages';
import { preservedUuids, type CcRecord } from './records';

export type { MessageCache } from './messages';

export interface Unit {
  readonly role: 'user' | 'assistant';
  readonly lines: CcRecord[];
  readonly parent: Unit | undefined;
  /** For a results unit: the model output it answers. */
  readonly answers?: Unit;
  /** The compaction summary: marks elided history. */
  readonly elision: boolean;
  /** Messages a compaction kept after its summary (`compactMetadata.preservedMessages`). */
  readonly preserved?: readonly CcRecord[][];
}

/**
 * A place where the active context was replaced rather than extended. For a
 * branch, `before` is the context at the branch point (what the new branch
 * shares with the old one, intact), `left` the context of the old branch.
 */
export interface Rewind {
  readonly kind: 'compaction' | 'branch';
  readonly before: readonly Message[];
  readonly after: readonly Message[];
  readonly range: SourceRange;
  readonly left?: readonly Message[];
}

/** Walks the records in file order; calls `onRewind` at each rewrite, returns the final context. */
export function walkSession(records: readonly CcRecord[], onRewind: (rewind: Rewind) => void, cache: MessageCache = new WeakMap()): readonly Message[] {
  const walk = new SessionWalk(records, cache);
  for (const record of records) walk.add(record, onRewind);
  return walk.context();
}

/**
 * One conversation walked record by record. Given its records as they come
 * (`records` grows as they are added: a followed file), it walks as a walk of
 * the whole conversation does, but for one thing only the whole knows: a
 * compaction's preserved message written after it. Such a walk says so
 * (`awaiting`, then `diverged` if the message comes).
 */
export class SessionWalk {
  leaf: Unit | undefined;
  /** Preserved uuids a compaction listed that were not among the records so far. */
  awaiting: Set<string> | undefined;
  /** A record came that a walk of the whole conversation would have taken among a compaction's preserved messages. */
  diverged = false;
  /** The context at the leaf, kept from one call to the next. */
  private readonly path: PathMessages;
  /** For every uuid seen: the unit it resolves to (transparent lines resolve to their parent's unit). */
  private readonly effective = new Map<string, Unit | undefined>();
  private readonly groups = new Map<string, Unit>();
  private readonly results = new Map<Unit, Unit>();
  private boundary: CcRecord | undefined;

  /** `records`: one conversation's lines (the main one, or one side-chain: see side-chains.ts). */
  constructor(
    private readonly records: readonly CcRecord[],
    private readonly cache: MessageCache,
  ) {
    this.path = new PathMessages(cache);
  }

  add(record: CcRecord, onRewind: (rewind: Rewind) => void): void {
    if (record.kind === 'message' && record.uuid && this.awaiting?.has(record.uuid)) this.diverged = true;
    if (record.kind === 'boundary') {
      this.boundary = record;
      if (record.uuid) this.effective.set(record.uuid, undefined);
      return;
    }
    if (record.kind === 'transparent') {
      if (record.uuid) this.effective.set(record.uuid, this.parentOf(record));
      return;
    }
    if (record.kind === 'message') this.addMessage(record, onRewind);
  }

  /** The context at the newest unit. */
  context(): readonly Message[] {
    return this.leaf ? this.path.of(this.leaf) : [];
  }

  private parentOf(record: CcRecord): Unit | undefined {
    if (record.parentUuid === null) return undefined;
    if (record.parentUuid !== undefined && this.effective.has(record.parentUuid)) return this.effective.get(record.parentUuid);
    // A parent outside the file (an excerpt, a side-chain's parent session) continues the current branch.
    return this.leaf;
  }

  private addMessage(record: CcRecord, onRewind: (rewind: Rewind) => void): void {
    const origin = this.parentOf(record);
    const parent = this.continuation(record, origin);
    const existing = this.joinExisting(record, origin);
    if (existing) {
      if (record.uuid) this.effective.set(record.uuid, existing);
      return;
    }
    const unit = this.newUnit(record, parent, outputOf(origin));
    if (record.uuid) this.effective.set(record.uuid, unit);
    this.noticeRewind(unit, record, onRewind);
    this.leaf = unit;
  }

  /**
   * Tool results and injected (`isMeta`) lines are written against the model
   * output they follow, as siblings of each other. When the lines since that
   * output are all user lines, such a line continues after them: no rewind.
   * (A user prompt written against an earlier output is a real fork.)
   */
  private continuation(record: CcRecord, origin: Unit | undefined): Unit | undefined {
    if (!origin || origin.role !== 'assistant' || !this.leaf || this.leaf === origin) return origin;
    if (!record.toolResultsOnly && !record.meta && this.results.get(origin) !== this.leaf) return origin;
    for (let u: Unit | undefined = this.leaf; u; u = u.parent) {
      if (u.parent === origin) return u.role === 'user' ? this.leaf : origin;
      if (u.role !== 'user') return origin;
    }
    return origin;
  }

  /** An assistant line of a model output already seen, or a tool-result line of a results unit. */
  private joinExisting(record: CcRecord, origin: Unit | undefined): Unit | undefined {
    if (record.role === 'assistant' && record.messageId) {
      const group = this.groups.get(record.messageId);
      if (group) this.path.joined(group, record);
      return group;
    }
    const output = outputOf(origin);
    if (record.role === 'user' && record.toolResultsOnly && output) {
      const unit = this.results.get(output);
      if (unit) this.path.joined(unit, record);
      return unit;
    }
    return undefined;
  }

  private newUnit(record: CcRecord, parent: Unit | undefined, output: Unit | undefined): Unit {
    const role = record.role ?? 'user';
    const answers = role === 'user' && record.toolResultsOnly && output && !this.results.has(output) ? output : undefined;
    const summary = record.compactSummary || (this.boundary !== undefined && parent === undefined);
    const unit: Unit = {
      role,
      lines: [record],
      parent,
      answers,
      elision: record.compactSummary,
      preserved: summary ? this.preserved(this.boundary) : undefined,
    };
    this.path.made(unit);
    if (role === 'assistant' && record.messageId) this.groups.set(record.messageId, unit);
    if (answers) this.results.set(answers, unit);
    return unit;
  }

  private noticeRewind(unit: Unit, record: CcRecord, onRewind: (rewind: Rewind) => void): void {
    const previous = this.leaf;
    const boundary = this.boundary;
    if (unit.parent === undefined && (boundary || record.compactSummary)) {
      this.boundary = undefined;
      // Outputs written again after the summary are new messages of the new context, not lines of the old ones.
      this.groups.clear();
      this.results.clear();
      const start = (boundary ?? record).range.start;
      onRewind({ kind: 'compaction', before: previous ? messagesOf(previous, this.cache) : [], after: messagesOf(unit, this.cache), range: { start, end: record.range.end } });
      return;
    }
    if (previous && unit.parent !== previous) {
      const fork = commonAncestor(previous, unit.parent);
      onRewind({ kind: 'branch', before: fork ? messagesOf(fork, this.cache) : [], after: messagesOf(unit, this.cache), range: record.range, left: messagesOf(previous, this.cache) });
    }
  }

  /** The preserved messages a boundary lists, as line groups (an assistant output may span lines). */
  private preserved(boundary: CcRecord | undefined): CcRecord[][] {
    const wanted = new Set(preservedUuids(boundary));
    if (wanted.size === 0) return [];
    const out: CcRecord[][] = [];
    const byId = new Map<string, CcRecord[]>();
    const seen = new Set<string>();
    for (const r of this.records) {
      // A preserved message may be written twice (before the boundary and re-emitted after it): take it once.
      if (r.kind !== 'message' || !r.uuid || !wanted.has(r.uuid) || seen.has(r.uuid)) continue;
      seen.add(r.uuid);
      const group = r.messageId ? byId.get(r.messageId) : undefined;
      if (group) group.push(r);
      else {
        const lines = [r];
        if (r.messageId) byId.set(r.messageId, lines);
        out.push(lines);
      }
    }
    for (const uuid of wanted) if (!seen.has(uuid)) (this.awaiting ??= new Set()).add(uuid);
    return out;
  }
}

/** The deepest unit on both paths from the root: where a branch leaves the old one. */
function commonAncestor(a: Unit, b: Unit | undefined): Unit | undefined {
  const onA = new Set<Unit>();
  for (let u: Unit | undefined = a; u; u = u.parent) onA.add(u);
  for (let u: Unit | undefined = b; u; u = u.parent) if (onA.has(u)) return u;
  return undefined;
}

/** The model output a line hangs off: the output itself, or the output a results unit answers. */
function outputOf(unit: Unit | undefined): Unit | undefined {
  return unit?.role === 'assistant' ? unit : unit?.answers;
}
