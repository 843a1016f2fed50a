/**
 * The messages of a Claude Code context: the path of units from the root to
 * a leaf (`tree.ts`), each unit's lines one message, preserved segments after
 * their compaction summary, consecutive user lines merged as the API gets
 * them. A walk's context is kept from one call to the next (`PathMessages`):
 * while the path only grows at its end, only the new units' messages are made.
 */
import type { Message } from '../../model';
import type { SourceRange } from '../../text';
import { anthropicBlocks } from './blocks';
import type { CcRecord } from './records';
import type { Unit } from './tree';

/**
 * The messages built from line groups, by the group's first line: a followed
 * session's context is made again at each append, and its messages are not
 * built again (nor read again by the checks, which know them by identity).
 */
export type MessageCache = WeakMap<CcRecord, { readonly last: CcRecord; readonly count: number; readonly elision: boolean; readonly message: Message }>;

interface Group {
  readonly role: 'user' | 'assistant';
  readonly lines: readonly CcRecord[];
  readonly elision: boolean;
}

/** The messages of the path from the root to `leaf`, with preserved segments after their summary. */
export function messagesOf(leaf: Unit, cache: MessageCache = new WeakMap()): Message[] {
  return [...new PathMessages(cache).of(leaf)];
}

/** One walk's context, made again only where its path changed since the last call. */
export class PathMessages {
  private leaf: Unit | undefined;
  private leafLines = 0;
  /** Each group's message along the path, and the merged messages with the group each starts at. */
  private groups: Message[] = [];
  private merged: Message[] = [];
  private starts: number[] = [];
  /** The uuids of the preserved segments shown: a unit on the path holding one hides its segment. */
  private shown = new Set<string | undefined>();
  /** Units made since the last call; a line added to an older one other than the leaf means the path is made again. */
  private readonly fresh = new Set<Unit>();
  private stale = false;

  constructor(private readonly cache: MessageCache) {}

  made(unit: Unit): void {
    this.fresh.add(unit);
  }

  /** `record` joins `unit` (a model output written over lines, parallel results). */
  joined(unit: Unit, record: CcRecord): void {
    unit.lines.push(record);
    if (unit !== this.leaf && !this.fresh.has(unit)) this.stale = true;
  }

  /** The context at `leaf` (a new array each time: windows keep theirs). */
  of(leaf: Unit): readonly Message[] {
    const added = this.stale ? undefined : this.addedUnits(leaf);
    if (added) this.extend(added);
    else this.rebuild(leaf);
    this.leaf = leaf;
    this.leafLines = leaf.lines.length;
    this.stale = false;
    this.fresh.clear();
    return [...this.merged];
  }

  /** The units after the last leaf up to `leaf`, when the path only grew at its end (nothing preserved on the way). */
  private addedUnits(leaf: Unit): Unit[] | undefined {
    // A leaf with preserved segments has them after its own message: made again.
    if (!this.leaf || this.leaf.preserved?.length) return undefined;
    const added: Unit[] = [];
    for (let u: Unit | undefined = leaf; u !== this.leaf; u = u.parent) {
      if (!u || !this.fresh.has(u) || u.preserved?.length) return undefined;
      added.push(u);
    }
    const lines = [...this.leaf.lines.slice(this.leafLines), ...added.flatMap((u) => u.lines)];
    return lines.some((l) => this.shown.has(l.uuid)) ? undefined : added.reverse();
  }

  private extend(added: readonly Unit[]): void {
    const leaf = this.leaf as Unit;
    if (leaf.lines.length !== this.leafLines) this.groups[this.groups.length - 1] = cachedMessage(leaf, this.cache);
    for (const unit of added) this.groups.push(cachedMessage(unit, this.cache));
    // The last merged message may merge with what follows: merged again from the group it starts at.
    const from = this.starts.pop() ?? 0;
    this.merged.pop();
    this.mergeFrom(from);
  }

  private rebuild(leaf: Unit): void {
    const path: Unit[] = [];
    for (let u: Unit | undefined = leaf; u; u = u.parent) path.push(u);
    path.reverse();
    const onPath = new Set(path.flatMap((u) => u.lines.map((l) => l.uuid)));
    const groups: Group[] = [];
    this.shown = new Set();
    for (const unit of path) {
      groups.push(unit);
      for (const lines of unit.preserved ?? []) {
        if (lines.some((l) => onPath.has(l.uuid))) continue;
        groups.push({ role: lines[0]?.role ?? 'user', lines, elision: false });
        for (const l of lines) this.shown.add(l.uuid);
      }
    }
    this.groups = groups.map((group) => cachedMessage(group, this.cache));
    this.merged = [];
    this.starts = [];
    this.mergeFrom(0);
  }

  /**
   * Consecutive user lines reach the API as one user message (the summary
   * marker stays on its own), tool results first: Claude Code puts them before
   * the text of other lines (a hook reminder written before a result), as the
   * API requires.
   */
  private mergeFrom(from: number): void {
    for (let i = from; i < this.groups.length; i++) {
      const message = this.groups[i] as Message;
      const last = this.merged[this.merged.length - 1];
      if (last && last.role === 'user' && message.role === 'user' && !last.elision && !message.elision) {
        const blocks = [...last.blocks, ...message.blocks];
        this.merged[this.merged.length - 1] = {
          role: 'user',
          blocks: [...blocks.filter((b) => b.kind === 'tool_result'), ...blocks.filter((b) => b.kind !== 'tool_result')],
          source: span(last.source, message.source),
          place: `${last.place ?? ''} and ${message.place ?? ''}`.replace(/^ and | and $/g, ''),
        };
      } else {
        this.merged.push(message);
        this.starts.push(i);
      }
    }
  }
}

function cachedMessage(group: Group, cache: MessageCache): Message {
  const [first, last, count] = [group.lines[0], group.lines[group.lines.length - 1], group.lines.length];
  if (!first || !last) return toMessage(group);
  const known = cache.get(first);
  if (known && known.last === last && known.count === count && known.elision === group.elision) return known.message;
  const message = toMessage(group);
  cache.set(first, { last, count, elision: group.elision, message });
  return message;
}

function toMessage(group: Group): Message {
  const blocks = group.lines.flatMap((l) => anthropicBlocks(l.content));
  const first = group.lines[0];
  const source = first ? { start: first.range.start, end: Math.max(...group.lines.map((l) => l.range.end)) } : undefined;
  const place = placeOf(group.lines.map((l) => l.line));
  return group.elision ? { role: group.role, blocks, source, place, elision: true } : { role: group.role, blocks, source, place };
}

/** `line 18`, or `lines 18–20` for a message written over several record lines. */
function placeOf(lines: readonly number[]): string {
  const first = Math.min(...lines);
  const last = Math.max(...lines);
  return first === last ? `line ${first}` : `lines ${first}–${last}`;
}

function span(a: SourceRange | undefined, b: SourceRange | undefined): SourceRange | undefined {
  if (!a || !b) return a ?? b;
  return { start: Math.min(a.start, b.start), end: Math.max(a.end, b.end) };
}
