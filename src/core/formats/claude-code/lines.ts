/**
 * A Claude Code session read line by line (a whole file and a followed one
 * alike), each record walked as it comes, so a followed file costs what it
 * appends. The main conversation's rewrites are given with the line that made
 * them; the side-chains (walked as their lines come) and each conversation's
 * last window are given at the end, after the main conversation's rewrites,
 * as a walk of the whole file orders them.
 *
 * A few lines change what was walked before them: a compaction's preserved
 * message written after it (`SessionWalk.awaiting`: the main conversation's
 * rewrites are held back from then on), a side-chain line whose parent comes
 * later or is written again (`SideChainKeys.exact`). When one
 * comes, the end walks the whole file again and the walks go on from there
 * (`rebuild`), so the events are always those of a walk of the whole file and
 * the appends after it cost what they append again.
 */
import type { SourceLine } from '../../text';
import type { LineReader, ThreadInfo, TranscriptEvent } from '../../transcript';
import { findingEvent } from '../common';
import { conversationEvents, finalEvent, rewindEvents } from './events';
import { RecordReader, type CcRecord } from './records';
import { groupSideChains, SideChainKeys, splitSideChains, TaskCalls, threadOf } from './side-chains';
import { SessionWalk, walkSession, type MessageCache, type Rewind } from './tree';

/** One conversation's records and its walk (walked up to `walked`), with the rewrites not given yet. */
class Conversation {
  readonly walk: SessionWalk;
  rewinds: Rewind[] = [];
  hasMessage: boolean;
  private walked = 0;

  /** `records`: the conversation's records so far (its own array, grown by `add`), walked unless `walk` is false. */
  constructor(
    cache: MessageCache,
    readonly records: CcRecord[] = [],
    walk = true,
  ) {
    this.walk = new SessionWalk(this.records, cache);
    this.hasMessage = records.some((r) => r.kind === 'message');
    if (walk) this.catchUp();
  }

  add(record: CcRecord, walk = true): void {
    this.records.push(record);
    if (record.kind === 'message') this.hasMessage = true;
    if (walk) this.catchUp();
  }

  catchUp(): void {
    while (this.walked < this.records.length) this.walk.add(this.records[this.walked++] as CcRecord, (rewind) => this.rewinds.push(rewind));
  }

  /** The rewrites not given yet, then the last window. */
  events(thread: ThreadInfo | undefined): TranscriptEvent[] {
    return [...this.rewinds.flatMap((rewind) => rewindEvents(rewind, thread)), finalEvent(this.walk.context(), thread)];
  }
}

/** Where a fork left its origin: the records read and the main events given then. */
interface ForkPoint {
  readonly records: number;
  readonly given: number;
}

export class ClaudeCodeLines implements LineReader {
  private readonly records = new RecordReader();
  private readonly messages: MessageCache = new WeakMap();
  /** The lines not on a side-chain. */
  private main = new Conversation(this.messages);
  /** Main-conversation rewrites given so far (a walk of the whole file gives them first). */
  private given = 0;
  /** Every line, while no main-conversation message came: a file of side-chain lines only is its own main conversation. */
  private whole: Conversation | undefined = new Conversation(this.messages);
  /** The side-chains by group key, in order of first appearance; walked once a main message came. */
  private sides = new Map<string, Conversation>();
  private keys = new SideChainKeys();
  private readonly calls = new TaskCalls();

  line(source: SourceLine): TranscriptEvent[] {
    const { record, finding } = this.records.line(source);
    if (finding) return [findingEvent(finding)];
    if (!record) return [];
    if (record.sidechain) {
      this.whole?.add(record);
      this.sideOf(this.keys.key(record)).add(record, this.whole === undefined);
      return [];
    }
    this.calls.add(record);
    if (record.kind === 'message' && this.whole) {
      this.whole = undefined;
      for (const side of this.sides.values()) side.catchUp();
    }
    this.whole?.add(record);
    this.main.add(record);
    return this.mainRewrites();
  }

  end(): TranscriptEvent[] {
    return this.endWith(this.records, { records: this.records.read.length, given: this.given }, false);
  }

  fork(): LineReader {
    return new ForkedLines(this, this.records.fork(), { records: this.records.read.length, given: this.given }, false);
  }

  /**
   * The end of `records` (this reader's, or a fork's made at `at`): the walks
   * so far (made again first when a line changed what was walked before it),
   * or the whole file walked again when a fork read records of its own
   * (`moved`) or this reader went on after the fork.
   */
  endWith(records: RecordReader, at: ForkPoint, moved: boolean): TranscriptEvent[] {
    const read = records.end([]);
    const events = read.findings.map(findingEvent);
    if (moved || at.records !== this.records.read.length) return [...events, ...this.walkAgain(read.records, at.given)];
    if (this.diverged()) this.rebuild();
    if (this.whole) return [...events, ...this.whole.events(undefined)];
    events.push(...this.main.events(undefined));
    let id = 2;
    for (const [key, side] of this.sides) if (side.hasMessage) events.push(...side.events(threadOf(id++, key, side.records, this.calls)));
    return events;
  }

  /** A line came that a walk of the whole file would have walked differently (or grouped differently) before it. */
  private diverged(): boolean {
    const walks = [this.main, ...(this.whole ? [this.whole] : []), ...this.sides.values()];
    return !this.keys.exact || walks.some((c) => c.walk.diverged);
  }

  /** The walks made again from every record read, as a walk of the whole file leaves them, to go on from with the next lines. */
  private rebuild(): void {
    const records = this.records.read;
    const { groups, keys } = groupSideChains(records);
    this.whole = records.some((r) => r.kind === 'message' && !r.sidechain) ? undefined : new Conversation(this.messages, [...records]);
    this.main = new Conversation(this.messages, records.filter((r) => !r.sidechain));
    this.main.rewinds.splice(0, this.given);
    this.sides = new Map([...groups].map(([key, group]) => [key, new Conversation(this.messages, group, this.whole === undefined)]));
    this.keys = keys;
  }

  /** The events of `records` walked whole, but for the main conversation's first `given` rewrites. */
  private walkAgain(records: readonly CcRecord[], given: number): TranscriptEvent[] {
    const { main, sideChains } = splitSideChains(records);
    const rewinds: Rewind[] = [];
    const final = walkSession(main, (rewind) => rewinds.push(rewind), this.messages);
    const events = [...rewinds.slice(given).flatMap((rewind) => rewindEvents(rewind, undefined)), finalEvent(final, undefined)];
    for (const chain of sideChains) events.push(...conversationEvents(chain.records, chain.thread, this.messages));
    return events;
  }

  private sideOf(key: string): Conversation {
    let side = this.sides.get(key);
    if (!side) this.sides.set(key, (side = new Conversation(this.messages)));
    return side;
  }

  /** The main conversation's new rewrites, unless a compaction awaits a preserved message (held back to the end). */
  private mainRewrites(): TranscriptEvent[] {
    if (this.main.rewinds.length === 0 || this.main.walk.awaiting) return [];
    const events = this.main.rewinds.flatMap((rewind) => rewindEvents(rewind, undefined));
    this.given += this.main.rewinds.length;
    this.main.rewinds = [];
    return events;
  }
}

/** A fork (a followed file's report): reads lines on its own records only, and ends as its origin would at the fork. */
class ForkedLines implements LineReader {
  constructor(
    private readonly origin: ClaudeCodeLines,
    private readonly records: RecordReader,
    private readonly at: ForkPoint,
    private moved: boolean,
  ) {}

  line(source: SourceLine): TranscriptEvent[] {
    const { record, finding } = this.records.line(source);
    if (record) this.moved = true;
    return finding ? [findingEvent(finding)] : [];
  }

  end(): TranscriptEvent[] {
    return this.origin.endWith(this.records, this.at, this.moved);
  }

  fork(): LineReader {
    return new ForkedLines(this.origin, this.records.fork(), this.at, this.moved);
  }
}
