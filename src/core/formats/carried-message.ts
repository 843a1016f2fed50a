/**
 * A request log's messages kept as places in the line, for a check that keeps
 * no windows (`TranscriptInput.firstReadings`). Each message is read once, in
 * the request that first has it, and every later request repeats its bytes,
 * so what it holds would be held for the rest of the log: ~480 bytes of
 * objects (the message, its range, its blocks array, its blocks with their
 * ids, texts and payloads) for ~160 bytes of JSON. A `CarriedMessage` keeps
 * its role, its messages array's range (shared by the array's elements) and
 * three numbers: where it starts in the line it was first read in, how long it
 * is, and where it starts relative to the line's messages array (the same in
 * every line that carries it). Its blocks are the reader's until a few
 * hundred more messages were read or asked for (`Recent`); after that they
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
import { lineSlice, type SourceLine, type SourceRange } from '../text';

/** How a carrier reads one element of its messages array (the array's range given): the reader's own message reader. */
export type ElementReader = (node: JsonNode, container: SourceRange | undefined) => Message;

/** How many messages keep the blocks their reader made (or that were read again) before they are let go. */
export const RECENT = 32;

/**
 * The messages whose blocks are held, newest last: a ring, each message let
 * go (its blocks dropped) when RECENT others came after it. One per reader
 * (its homes share it), so it lives no longer than what it holds.
 */
export class Recent {
  private readonly ring = new Array<CarriedMessage | undefined>(RECENT);
  private next = 0;

  hold(message: CarriedMessage): void {
    const at = this.next;
    this.ring[at]?.drop();
    this.ring[at] = message;
    this.next = at + 1 === RECENT ? 0 : at + 1;
  }
}

/** The newest line that carries some messages, and how their elements are read. */
export class Home {
  constructor(
    /** The line, its text at `base` in the file (the offsets of a message's element relative to it are the same in every line that carries it). */
    public line: SourceLine,
    public base: number,
    readonly read: ElementReader,
    /** The messages of this reader holding their blocks (shared by the homes of one reader). */
    readonly recent: Recent = new Recent(),
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
    recent: Recent,
  ) {
    super(NO_LINE, 0, read, recent);
  }

  override text(): string {
    return this.own;
  }
}

const ROLES: readonly Role[] = ['system', 'user', 'assistant', 'tool'];
const ELISIONS: readonly (boolean | undefined)[] = [undefined, false, true];

/** A message's role and elision as one small integer: the role's index in ROLES, times 4, plus the elision's in ELISIONS. */
function kindOf(message: Message): number {
  const role = ROLES.indexOf(message.role);
  if (role < 0) throw new Error(`carried-message: unknown role ${String(message.role)}`);
  return 4 * role + ELISIONS.indexOf(message.elision);
}

/** A message of a request log kept as its place in the line (see the module comment). */
export class CarriedMessage implements Message, OwnMeasure {
  readonly container: SourceRange | undefined;
  /** Its role and elision as one small integer (`kindOf`): a field fewer in every carried message. */
  readonly #kind: number;
  #home: Home;
  /** Its start in the file, in the line it was first read in (the offsets of its reading). */
  readonly #start: number;
  readonly #length: number;
  /** Its start relative to its home's `base`. */
  readonly #at: number;
  #blocks: readonly Block[] | undefined;
  /** Its render's length and tokens (-1: not measured, not counted), kept here rather than in the render cache's map. */
  #chars = -1;
  #tokens = -1;
  /** The unread-parts walk that marked it walked (its token, undefined: none) and its mark there (`markWalked`). */
  #walkedBy: symbol | undefined = undefined;
  #walkedAt = 0;

  constructor(message: Message, source: SourceRange, home: Home) {
    this.#kind = kindOf(message);
    this.container = message.container;
    this.#home = home;
    this.#start = source.start;
    this.#length = source.end - source.start;
    this.#at = source.start - home.base;
    this.#blocks = message.blocks;
    home.recent.hold(this);
  }

  get role(): Role {
    return ROLES[this.#kind >> 2] as Role;
  }

  get elision(): boolean | undefined {
    return ELISIONS[this.#kind & 3];
  }

  get source(): SourceRange {
    return { start: this.#start, end: this.#start + this.#length };
  }

  get blocks(): readonly Block[] {
    return this.#blocks ?? this.reread();
  }

  ownMeasure(): RenderMeasure | undefined {
    return this.#chars < 0 ? undefined : { chars: this.#chars, tokens: this.#tokens };
  }

  keepMeasure(measure: RenderMeasure): void {
    this.#chars = measure.chars;
    this.#tokens = measure.tokens;
  }

  /**
   * Marks it walked by the walk whose token is `walk` (unread-parts.ts `Walked`), the
   * `at`th message that walk marked; false when another walk's mark is here
   * (that walk keeps it in a table of its own). Two fields in the message
   * rather than an entry of a WeakMap per message of a long log (its table,
   * kept at most half full, took ~38 bytes a message).
   */
  markWalked(walk: symbol, at: number): boolean {
    if (this.#walkedBy !== undefined && this.#walkedBy !== walk) return false;
    this.#walkedBy = walk;
    this.#walkedAt = at;
    return true;
  }

  /** The mark the walk whose token is `walk` left here, if any. */
  walkedAt(walk: symbol): number | undefined {
    return this.#walkedBy === walk ? this.#walkedAt : undefined;
  }

  /** Whether it holds its blocks now (for tests and probes: at most RECENT messages do). */
  holdsBlocks(): boolean {
    return this.#blocks !== undefined;
  }

  /** Its blocks let go: read again when next asked for. */
  drop(): void {
    this.#blocks = undefined;
  }

  /** Its element's text kept alone from now on: the line it lives in is not carried on. */
  keepOwnText(): void {
    const home = this.#home;
    // A copy: a slice of the line's text would keep the whole line alive.
    this.#home = new OwnText(unsliced(home.text(this.#at, this.#length)), home.read, home.recent);
  }

  /** Its element is read from `home` from now on (a line that carries it, at the same place relative to its base). */
  moveTo(home: Home): void {
    this.#home = home;
  }

  private reread(): readonly Block[] {
    const text = this.#home.text(this.#at, this.#length);
    const parsed = parseJson(text, this.#start);
    if (!parsed.ok) throw new Error('carried-message: a carried element no longer parses');
    const blocks = this.#home.read(parsed.node, this.container).blocks;
    this.#blocks = blocks;
    this.#home.recent.hold(this);
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
  const home = new Home(line, base, read, before?.recent);
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
