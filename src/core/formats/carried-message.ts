/**
 * A request log's messages kept as places in the line, for a check that keeps
 * no windows (`TranscriptInput.firstReadings`). Each message is read once, in
 * the request that first has it, and every later request repeats its bytes,
 * so what it holds would be held for the rest of the log: ~480 bytes of
 * objects (the message, its range, its blocks array, its blocks with their
 * ids, texts and payloads) for ~160 bytes of JSON. A `CarriedMessage` keeps
 * its role, its messages array's range and three numbers: where it starts in
 * the line it was first read in, how long it is, and where it starts relative
 * to the line's messages array (the same in every line that carries it), in a
 * row of its reader's `CarriedRows`. Its
 * blocks are the reader's until RECENT more messages were read or asked for
 * (the rows' ring); after that they
 * are read again when asked, from the newest line that carries the message
 * (`Home`): its element's text parsed with the offsets of its first reading
 * and read by the same reader, so it is the message the reader made, with
 * the same offsets.
 *
 * A line that carries all of the elements of the line before it moves that
 * line's `Home` to itself (one write, not one per message); a line that
 * carries fewer (an edit in its history, a compaction) gets a `Home` of its
 * own and moves the carried messages to it, so the messages it does not
 * carry keep reading from the line they are in.
 */
import { parseJson, unsliced, type JsonNode } from '../json/parse';
import type { Block, Message, Role } from '../model';
import type { OwnMeasure, RenderMeasure } from '../render';
import type { KnowsText } from '../session';
import { lineSlice, type SourceLine, type SourceRange } from '../text';

/** How a carrier reads one element of its messages array (the array's range given): the reader's own message reader. */
export type ElementReader = (node: JsonNode, container: SourceRange | undefined) => Message;

/** How many messages keep the blocks their reader made (or that were read again) before they are let go. */
export const RECENT = 32;

/** A row's small integers in `CarriedRows.ints`: its kind (`kindOf`), its element's length and start relative to its home's base, its render's length and tokens (-1: not measured), the walk's mark (0: none), its slot in the ring (-1: none). */
const KIND = 0;
const LENGTH = 1;
const AT = 2;
const CHARS = 3;
const TOKENS = 4;
const WALKED = 5;
const SLOT = 6;
/** Its messages array's range: its start relative to the message's, its length (-1: none). */
const CONTAINER_FROM = 7;
const CONTAINER_LENGTH = 8;
const INTS = 9;

/**
 * The numbers of a reader's carried messages, a row each (struct of arrays:
 * nine 32-bit integers and a file offset, 44 bytes, where they were eight
 * fields of 8 bytes of each message object; the integers are under 2^30 as
 * they are offsets and lengths within one line, a string's length), and the
 * messages whose blocks are held, newest last: a ring, each message let go
 * (its blocks dropped) when RECENT others came after it. One per reader (its
 * homes share it), so it lives no longer than what it holds. The rows are
 * typed arrays: their bytes are ArrayBuffers', outside the V8 heap's count
 * (`heapUsed`; the bench's `peak-external`).
 */
export class CarriedRows {
  private ints = new Int32Array(INTS * 64);
  /** Each row's start in the file, in the line it was first read in (a file may pass 2^31 bytes). */
  private starts = new Float64Array(64);
  private count = 0;
  private readonly ring = new Array<CarriedMessage | undefined>(RECENT);
  private readonly blocks = new Array<readonly Block[] | undefined>(RECENT);
  private next = 0;
  /** The walk whose marks the rows keep (the first to mark one: a check's own); another walk keeps its marks itself. */
  private walk: symbol | undefined = undefined;

  /** A new row: its kind, start, length, start relative to its home's base, and its messages array's range. */
  add(kind: number, start: number, length: number, at: number, container: SourceRange | undefined): number {
    const row = this.count++;
    if (row === this.starts.length) this.grow();
    const ints = this.ints;
    const k = row * INTS;
    ints[k + KIND] = kind;
    ints[k + LENGTH] = length;
    ints[k + AT] = at;
    ints[k + CHARS] = -1;
    ints[k + TOKENS] = -1;
    ints[k + SLOT] = -1;
    ints[k + CONTAINER_FROM] = container ? container.start - start : 0;
    ints[k + CONTAINER_LENGTH] = container ? container.end - container.start : -1;
    this.starts[row] = start;
    return row;
  }

  int(row: number, field: number): number {
    return this.ints[row * INTS + field] as number;
  }

  /**
   * A small integer when it is one: a number read from a Float64Array is a
   * double to V8, and a double stored in a `{start, end}` range turns every
   * range of that shape into boxed numbers (16 bytes more a field).
   */
  start(row: number): number {
    const start = this.starts[row] as number;
    return start < 2 ** 30 ? start | 0 : start;
  }

  setMeasure(row: number, chars: number, tokens: number): void {
    this.ints[row * INTS + CHARS] = chars;
    this.ints[row * INTS + TOKENS] = tokens;
  }

  /** Marks a row walked by `walk`, the `at`th it marked; false when the rows keep another walk's marks. */
  markWalked(row: number, walk: symbol, at: number): boolean {
    if (this.walk !== undefined && this.walk !== walk) return false;
    this.walk = walk;
    this.ints[row * INTS + WALKED] = at;
    return true;
  }

  walkedAt(row: number, walk: symbol): number | undefined {
    const at = this.ints[row * INTS + WALKED] as number;
    return this.walk === walk && at > 0 ? at : undefined;
  }

  /** The blocks `message` (of row `row`) holds, if it is still in the ring. */
  held(message: CarriedMessage, row: number): readonly Block[] | undefined {
    const slot = this.ints[row * INTS + SLOT] as number;
    return slot >= 0 && this.ring[slot] === message ? this.blocks[slot] : undefined;
  }

  /** `message` holds `blocks` until RECENT others came after it (the oldest in the ring lets go of its own). */
  hold(message: CarriedMessage, row: number, blocks: readonly Block[]): void {
    const at = this.next;
    this.ring[at] = message;
    this.blocks[at] = blocks;
    this.ints[row * INTS + SLOT] = at;
    this.next = at + 1 === RECENT ? 0 : at + 1;
  }

  /** `message` lets go of its blocks. */
  drop(message: CarriedMessage, row: number): void {
    const slot = this.ints[row * INTS + SLOT] as number;
    if (slot >= 0 && this.ring[slot] === message) this.blocks[slot] = undefined;
  }

  /** A quarter more room (not twice: the room to grow is held too, outside the heap's count but in the process's). */
  private grow(): void {
    const rows = this.starts.length + (this.starts.length >> 2);
    const ints = new Int32Array(rows * INTS);
    ints.set(this.ints);
    this.ints = ints;
    const starts = new Float64Array(rows);
    starts.set(this.starts);
    this.starts = starts;
  }
}

/** The newest line that carries some messages, and how their elements are read. */
export class Home {
  constructor(
    /** The line, its text at `base` in the file (the offsets of a message's element relative to it are the same in every line that carries it). */
    public line: SourceLine,
    public base: number,
    readonly read: ElementReader,
    /** The numbers of this reader's carried messages and those holding their blocks (shared by the homes of one reader). */
    readonly rows: CarriedRows = new CarriedRows(),
  ) {}

  /** The text of the element at `start` (relative to `base`), `length` characters. */
  text(start: number, length: number): string {
    const at = this.base + start - this.line.offset;
    return lineSlice(this.line, at, at + length);
  }
}

const NO_LINE: SourceLine = { text: '', offset: 0, index: -1 };

/** The home of a message no later line carries: its element's text alone, so that it keeps no line alive (a pair index may hold it for the rest of the log). */
class OwnText extends Home {
  constructor(
    private readonly own: string,
    read: ElementReader,
    rows: CarriedRows,
  ) {
    super(NO_LINE, 0, read, rows);
  }

  override text(): string {
    return this.own;
  }
}

const ROLES: readonly Role[] = ['system', 'user', 'assistant', 'tool'];
const ELISIONS: readonly (boolean | undefined)[] = [undefined, false, true];
/** The bit of a kind that says the message has a text block (`KnowsText` in session.ts). */
const HAS_TEXT = 16;

/**
 * A message's role, elision and whether it has a text block as one small
 * integer: the role's index in ROLES, times 4, plus the elision's in
 * ELISIONS, plus HAS_TEXT when it has one (read from the blocks in hand, so
 * that a session's turns are counted without parsing the message again).
 */
function kindOf(message: Message): number {
  const role = ROLES.indexOf(message.role);
  if (role < 0) throw new Error(`carried-message: unknown role ${String(message.role)}`);
  const text = message.blocks.some((b) => b.kind === 'text') ? HAS_TEXT : 0;
  return text + 4 * role + ELISIONS.indexOf(message.elision);
}

/**
 * A message of a request log kept as its place in the line (see the module
 * comment): its home and its row of its reader's `CarriedRows`, which holds
 * its numbers (its messages array's range among them: made when read, as its
 * `source`, not an object per line held by the messages first read in it)
 * and, for a while, its blocks. Two fields: 40 bytes, 112 with its numbers
 * and blocks in the object. No own enumerable property: a request log's
 * windows of first readings are never compared by value (`sameValue`: the
 * follower's reuse keeps rewrites, so its messages are objects).
 */
export class CarriedMessage implements Message, OwnMeasure, KnowsText {
  #home: Home;
  readonly #row: number;

  constructor(message: Message, source: SourceRange, home: Home) {
    this.#home = home;
    const rows = home.rows;
    this.#row = rows.add(kindOf(message), source.start, source.end - source.start, source.start - home.base, message.container);
    rows.hold(this, this.#row, message.blocks);
  }

  get role(): Role {
    return ROLES[(this.#home.rows.int(this.#row, KIND) >> 2) & 3] as Role;
  }

  get elision(): boolean | undefined {
    return ELISIONS[this.#home.rows.int(this.#row, KIND) & 3];
  }

  get source(): SourceRange {
    const rows = this.#home.rows;
    const start = rows.start(this.#row);
    return { start, end: start + rows.int(this.#row, LENGTH) };
  }

  get container(): SourceRange | undefined {
    const rows = this.#home.rows;
    const length = rows.int(this.#row, CONTAINER_LENGTH);
    if (length < 0) return undefined;
    const start = rows.start(this.#row) + rows.int(this.#row, CONTAINER_FROM);
    return { start, end: start + length };
  }

  get blocks(): readonly Block[] {
    return this.#home.rows.held(this, this.#row) ?? this.reread();
  }

  hasText(): boolean {
    return (this.#home.rows.int(this.#row, KIND) & HAS_TEXT) !== 0;
  }

  ownMeasure(): RenderMeasure | undefined {
    const rows = this.#home.rows;
    const chars = rows.int(this.#row, CHARS);
    return chars < 0 ? undefined : { chars, tokens: rows.int(this.#row, TOKENS) };
  }

  keepMeasure(measure: RenderMeasure): void {
    this.#home.rows.setMeasure(this.#row, measure.chars, measure.tokens);
  }

  /**
   * Marks it walked by the walk whose token is `walk` (unread-parts.ts `Walked`), the
   * `at`th message that walk marked; false when another walk's marks are in its
   * reader's rows (that walk keeps it in a table of its own). A number of its
   * row rather than an entry of a WeakMap per message of a long log (its table,
   * kept at most half full, took ~38 bytes a message).
   */
  markWalked(walk: symbol, at: number): boolean {
    return this.#home.rows.markWalked(this.#row, walk, at);
  }

  /** The mark the walk whose token is `walk` left here, if any. */
  walkedAt(walk: symbol): number | undefined {
    return this.#home.rows.walkedAt(this.#row, walk);
  }

  /** Whether it holds its blocks now (for tests and probes: at most RECENT messages do). */
  holdsBlocks(): boolean {
    return this.#home.rows.held(this, this.#row) !== undefined;
  }

  /** Its blocks let go: read again when next asked for. */
  drop(): void {
    this.#home.rows.drop(this, this.#row);
  }

  /** Its element's text kept alone from now on: the line it lives in is not carried on. */
  keepOwnText(): void {
    const home = this.#home;
    // A copy: a slice of the line's text would keep the whole line alive.
    this.#home = new OwnText(unsliced(home.text(home.rows.int(this.#row, AT), home.rows.int(this.#row, LENGTH))), home.read, home.rows);
  }

  /** Its element is read from `home` from now on (a line that carries it, at the same place relative to its base). */
  moveTo(home: Home): void {
    this.#home = home;
  }

  private reread(): readonly Block[] {
    const home = this.#home;
    const row = this.#row;
    const text = home.text(home.rows.int(row, AT), home.rows.int(row, LENGTH));
    const parsed = parseJson(text, home.rows.start(row));
    if (!parsed.ok) throw new Error('carried-message: a carried element no longer parses');
    const blocks = home.read(parsed.node, this.container).blocks;
    home.rows.hold(this, row, blocks);
    return blocks;
  }
}

/**
 * The messages of a line's elements from `from` on (the ones first read in
 * it), made `CarriedMessage`s in place, in `items` and where `messages` holds
 * them (from `at`): both are the reader's own arrays, made for this request
 * and not seen by anything yet. A message without a range (none is) is kept
 * as read.
 */
export function carriedMessages(items: readonly Message[], from: number, messages: readonly Message[], at: number, home: Home): void {
  for (let k = from; k < items.length; k++) {
    const message = items[k] as Message;
    const source = message.source;
    if (!source) continue;
    const carried = new CarriedMessage(message, source, home);
    (items as Message[])[k] = carried;
    if (messages !== items) (messages as Message[])[at + k] = carried;
  }
}

/**
 * The home of a line that carries `count` elements of the line `from` (at
 * `fromBase`, its messages `items`, its home `before`): `before` itself, moved
 * to the line, when it carries all of them and `before` is still that line's
 * (a reader's fork may have moved it on); otherwise a new home, the carried
 * messages moved to it (they are in the line too).
 */
export function homeOf(before: Home | undefined, from: { readonly line?: SourceLine | undefined; readonly base: number; readonly items: readonly Message[] }, count: number, line: SourceLine, base: number, read: ElementReader): Home {
  const items = from.items;
  if (before && before.read === read && count === items.length && before.line === from.line && before.base === from.base) {
    before.line = line;
    before.base = base;
    return before;
  }
  const home = new Home(line, base, read, before?.rows);
  for (let k = 0; k < count; k++) {
    const message = items[k];
    if (message instanceof CarriedMessage) message.moveTo(home);
  }
  for (let k = count; k < items.length; k++) {
    const message = items[k];
    if (message instanceof CarriedMessage) message.keepOwnText();
  }
  return home;
}
