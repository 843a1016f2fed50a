/**
 * A plain native-trace window read lazily, for the stateless guard
 * (`guardRewrite` on plain objects, guard.ts): each message is read into the
 * model only when a rule asks for its blocks, and what the fast judges need
 * of the whole window (which pair an id has, which messages reach across a
 * cut, which message renders as another) is found from one pass over the
 * plain objects' ids.
 *
 * Why its verdict is that of the window read whole (`test/unit/lazy-judge.test.ts`
 * checks it against `judgeFully` on random windows and proposals):
 * - A `LazyMessage` is the reader's own message (`readPlainMessage`) behind
 *   getters; its role, read at once, is the reader's (`plainRole`), and is
 *   not read again (a getter need not give it twice). Every
 *   element must be a message (none skipped), so indexes are the reader's.
 * - The pass lists, per message, every id the reader may make a call or
 *   result of (`tool_use` ids, `tool_result` / `tool_call_id` ids,
 *   `tool_calls` ids, read as plain properties, inherited or not enumerable
 *   ones too, which the reader skips): a superset of its blocks' ids while
 *   each property gives one value (a getter that gives the reader another one
 *   is an object changed while judged: it gets a verdict, maybe not
 *   `createGuard`'s). Pairs and calls are read
 *   from the messages that mention their id; a wider span of reaching
 *   messages only judges more pairs (cut-step.ts says why that is the same).
 * - Two messages render alike only with the same role and the same blocks'
 *   renders, and a call or result renders as no other block (a part typed
 *   `tool_use` / `tool_result` is one, or is skipped): so the message an
 *   after message with an id renders as mentions that id; others are looked
 *   for among the messages of the same role whose first block is the same
 *   text when its first block is text (`plainFirstText`, read unread).
 * An empty id (a block that stands alone, keyed by place) is left to the
 * reading of the whole window.
 */
import { indexedFinder, textIndex, type TextFinder } from '../align';
import type { PairLookup } from '../append-step';
import type { CutSources, IdMembers, Span } from '../cut-step';
import type { CallMember } from '../id-index';
import { pairId, type Block, type ContextWindow, type Message, type Role, type ToolCall, type ToolPair, type ToolResult } from '../model';
import type { RenderCache } from '../render';
import { partitionPoint } from '../../shared/search';
import { own, plainRead, windowFromObject, type PlainBase } from './native-object';
import { plainFirstText, plainRole, readPlainMessageAs } from './native-plain';

/** A message of a plain window, read (`readPlainMessageAs`, with the role the pass read) when its blocks are first asked for. */
class LazyMessage implements Message {
  private read: Message | undefined;

  constructor(
    private readonly plain: unknown,
    readonly role: Role,
  ) {}

  private message(): Message {
    return (this.read ??= readPlainMessageAs(this.plain, this.role));
  }

  get blocks(): readonly Block[] {
    return this.message().blocks;
  }

  get elision(): boolean | undefined {
    return this.message().elision;
  }

  /** The text of its first block when that is text, without reading it (`plainFirstText`). */
  firstText(): string | undefined {
    return this.read ? firstText(this.read) : plainFirstText(this.plain, this.role);
  }
}

function firstText(message: Message): string | undefined {
  const first = message.blocks[0];
  return first?.kind === 'text' ? first.text : undefined;
}

/** The ids the plain messages mention (see the module comment), in message order: message m's are `id[starts[m]]` to `id[starts[m + 1] - 1]`. */
interface Mentions {
  readonly starts: readonly number[];
  readonly id: string[];
  /** `mentionsOfId` of the ids looked up so far (a cut's pairs and its alignment ask for the same ones). */
  found?: Map<string, number[]>;
}

type Plain = { readonly [key: string]: unknown };

/** A plain window read lazily: the window, what it was read from (for a proposal's reading) and its sources for the fast judges. */
export interface LazyWindow {
  readonly window: ContextWindow;
  readonly base: PlainBase;
  readonly pairs: PairLookup;
  readonly cut: CutSources;
}

/** `windowFromObject(value)` read lazily, or undefined when `value` is not a record whose `messages` are all messages with no empty id. */
export function lazyWindow(value: unknown, render: RenderCache): LazyWindow | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const plain = own(value, 'messages');
  if (!Array.isArray(plain)) return undefined;
  const scanned = scan(plain);
  if (!scanned) return undefined;
  const { messages, mentions } = scanned;
  const window = windowFromObject(value, undefined, undefined, render, messages);
  // What a proposal is read against (`plainBaseOf`, without copying the messages array: the window lives for one judgement).
  const tools = plainRead(own(value, 'tools'), window.tools);
  const base: PlainBase = { messages: { plain, read: messages }, ...(tools && { tools }) };
  return { window, base, pairs: pairLookup(messages, mentions), cut: cutSources(messages, mentions, render) };
}

function scan(plain: readonly unknown[]): { messages: LazyMessage[]; mentions: Mentions } | undefined {
  const messages = new Array<LazyMessage>(plain.length);
  const starts = new Array<number>(plain.length + 1);
  const id: string[] = [];
  // Read once: each read of an imported binding may be a call (module interop).
  const roleOf = plainRole;
  for (let m = 0; m < plain.length; m++) {
    const value = plain[m];
    const role = roleOf(value);
    starts[m] = id.length;
    if (role === undefined || !mention(value as Plain, id)) return undefined;
    messages[m] = new LazyMessage(value, role);
  }
  starts[plain.length] = id.length;
  return { messages, mentions: { starts, id } };
}

/** Adds `id` when it is a string; false when it is empty. */
function add(id: unknown, into: string[]): boolean {
  if (typeof id !== 'string') return true;
  if (id === '') return false;
  into.push(id);
  return true;
}

/** Adds the ids a message mentions; false when one is empty. */
function mention(value: Plain, into: string[]): boolean {
  const callId = value.tool_call_id;
  if (callId !== undefined && !add(callId, into)) return false;
  const content = value.content;
  if (Array.isArray(content)) {
    // As the reader iterates them (for…of).
    for (const part of content as unknown[]) {
      if (typeof part !== 'object' || part === null) continue;
      const type = (part as Plain).type;
      const id = type === 'tool_use' ? (part as Plain).id : type === 'tool_result' ? (part as Plain).tool_use_id : undefined;
      if (id !== undefined && !add(id, into)) return false;
    }
  }
  const calls = value.tool_calls;
  if (!Array.isArray(calls)) return true;
  for (const call of calls as unknown[]) {
    if (typeof call === 'object' && call !== null && !add((call as Plain).id, into)) return false;
  }
  return true;
}

/** The distinct messages mentioning each id (of `ids`, else all), in order. */
function mentioning(mentions: Mentions, ids?: ReadonlySet<string>): Map<string, number[]> {
  const out = new Map<string, number[]>();
  const { starts, id: all } = mentions;
  for (let m = 0; m + 1 < starts.length; m++) {
    for (let k = starts[m] as number; k < (starts[m + 1] as number); k++) {
      const id = all[k] as string;
      if (ids && !ids.has(id)) continue;
      const list = out.get(id);
      if (!list) out.set(id, [m]);
      else if (list[list.length - 1] !== m) list.push(m);
    }
  }
  return out;
}

/** The message of mention k. */
function messageOf(mentions: Mentions, k: number): number {
  const starts = mentions.starts;
  return partitionPoint(starts.length - 1, (m) => (starts[m + 1] as number) <= k);
}

/** The distinct messages mentioning `id`, in order (`mentioning` of one id, by a scan). */
function mentionsOfId(mentions: Mentions, id: string): number[] {
  const known = mentions.found?.get(id);
  if (known) return known;
  const out: number[] = [];
  (mentions.found ??= new Map()).set(id, out);
  // By the builtin search (fast from the first call: a cut's few ids are looked up once per judgement).
  for (let k = mentions.id.indexOf(id); k >= 0; k = mentions.id.indexOf(id, k + 1)) {
    const m = messageOf(mentions, k);
    if (out[out.length - 1] !== m) out.push(m);
  }
  return out;
}

/** The pair of `id` and every call of it, read from the messages `at` (those mentioning it). */
function membersOf(messages: readonly Message[], id: string, at: readonly number[] = []): IdMembers {
  const calls: CallMember[] = [];
  const results: ToolPair['results'][number][] = [];
  for (const m of at) {
    const blocks = (messages[m] as Message).blocks;
    for (let b = 0; b < blocks.length; b++) {
      const block = blocks[b] as Block;
      if (block.kind === 'tool_call' && block.id === id) calls.push({ message: m, block: b, value: block });
      else if (block.kind === 'tool_result' && block.callId === id) results.push({ message: m, block: b, value: block });
    }
  }
  const pair = calls.length || results.length ? { id, results, ...(calls[0] && { call: calls[0] }) } : undefined;
  return { pair, calls };
}

/** `toolPairs(window).get`, reading only the messages that mention the id asked for. */
function pairLookup(messages: readonly Message[], mentions: Mentions): PairLookup {
  let index: Map<string, number[]> | undefined;
  const found = new Map<string, ToolPair | undefined>();
  return {
    get(key) {
      if (!found.has(key)) found.set(key, membersOf(messages, key, (index ??= mentioning(mentions)).get(key)).pair);
      return found.get(key);
    },
  };
}

function cutSources(messages: readonly LazyMessage[], mentions: Mentions, render: RenderCache): CutSources {
  return {
    reachingFrom: (cut) => reaching(mentions, cut, true),
    reachingBefore: (cut) => reaching(mentions, cut, false),
    members: (ids) => {
      // A cut touches few ids: each is found by a scan, more at once through a set.
      const at = ids.size > SCANS_BEFORE_INDEX ? mentioning(mentions, ids) : undefined;
      return (id) => membersOf(messages, id, at ? at.get(id) : mentionsOfId(mentions, id));
    },
    findText: (after) => textFinder(messages, mentions, render, after),
  };
}

/**
 * The messages before `cut` mentioning an id also mentioned from `cut` on
 * (`fromBefore`: from the first of them to `cut`), or those from `cut` on
 * mentioning an id also mentioned before it (from `cut` to past the last).
 * The ids of the smaller side are gathered with where they are first (or
 * last) mentioned; the other side is looked up.
 */
function reaching(mentions: Mentions, cut: number, fromBefore: boolean): Span {
  const k = farthestCrossing(mentions.id, mentions.starts[cut] as number, fromBefore);
  if (k < 0) return { from: cut, to: cut };
  return fromBefore ? { from: messageOf(mentions, k), to: cut } : { from: cut, to: messageOf(mentions, k) + 1 };
}

/**
 * Of the mentions of an id mentioned both before `k0` and from it on, the
 * first one before `k0` (`first`), else the last one from `k0` on; -1 when
 * no id is mentioned on both sides. One side's ids are held (the smaller),
 * each at its first or last mention; the other side is looked up, past a
 * filter of the held ids' sketches (`sketch`: an id whose sketch no held id
 * has is not held, and costs no map lookup).
 */
function farthestCrossing(id: readonly string[], k0: number, first: boolean): number {
  const smallBefore = k0 <= id.length - k0;
  const [from, to] = smallBefore ? [0, k0] : [k0, id.length];
  const held = new Map<string, number>();
  const sketches = new Uint8Array(SKETCHES);
  // The mention kept per id (the last one set): the first one before k0 (`first`), the last from k0 on; any one on the side not asked for.
  if (!smallBefore && !first) for (let k = from; k < to; k++) hold(held, sketches, id[k] as string, k);
  else for (let k = to - 1; k >= from; k--) hold(held, sketches, id[k] as string, k);
  if (held.size === 0) return -1;
  const [lookFrom, lookTo] = smallBefore ? [k0, id.length] : [0, k0];
  let best = -1;
  for (let k = lookFrom; k < lookTo; k++) {
    const mentioned = id[k] as string;
    if (sketches[sketch(mentioned)] === 0) continue;
    const at = held.get(mentioned) ?? -1;
    // The mention asked for is the held one when it is on the asked side, else this one.
    const candidate = smallBefore === first ? at : k;
    // Every comparison made on each mention looked up, held or not: a cut with no crossing id leaves none of them without type feedback (V8 would drop its compiled code at the first crossing id).
    const unset = best < 0;
    const closer = first ? candidate < best : candidate > best;
    if (at >= 0 && (unset || closer)) best = candidate;
  }
  return best;
}

function hold(held: Map<string, number>, sketches: Uint8Array, id: string, k: number): void {
  held.set(id, k);
  sketches[sketch(id)] = 1;
}

/** How many sketches an id may have. */
const SKETCHES = 4096;

/** An id's sketch: its length and last three characters, mixed (ids differ most at their ends: counters, random tails). */
function sketch(id: string): number {
  const n = id.length;
  const h = ((n * 33 + id.charCodeAt(n - 1)) * 33 + (n > 1 ? id.charCodeAt(n - 2) : 0)) * 33 + (n > 2 ? id.charCodeAt(n - 3) : 0);
  return (h ^ (h >>> 12)) & (SKETCHES - 1);
}

/** Lookups of one id by a scan of the mentions before they are indexed. */
const SCANS_BEFORE_INDEX = 4;

/**
 * For after message i, the first before message from `next` on rendering as
 * it: among those mentioning its first id, else those of its role and
 * first text (see the module comment). Past as many renders as the window has messages, the
 * window's texts are indexed instead.
 */
function textFinder(messages: readonly LazyMessage[], mentions: Mentions, render: RenderCache, after: readonly Message[]): TextFinder {
  let budget = messages.length;
  let scans = 0;
  let byId: Map<string, number[]> | undefined;
  let indexed: TextFinder | undefined;
  const textOf = (m: Message) => render.messageText(m);
  const mentionsOf = (id: string): readonly number[] => {
    if (!byId && ++scans > SCANS_BEFORE_INDEX) byId = mentioning(mentions);
    return byId ? (byId.get(id) ?? []) : mentionsOfId(mentions, id);
  };
  return (i, next) => {
    if (indexed) return indexed(i, next);
    const message = after[i] as Message;
    const text = textOf(message);
    const first = firstText(message);
    const tool = message.blocks.find((b): b is ToolCall | ToolResult => b.kind === 'tool_call' || b.kind === 'tool_result');
    const candidates = tool ? mentionsOf(pairId(tool)) : undefined;
    const count = candidates ? candidates.length : messages.length;
    for (let c = candidates ? partitionPoint(count, (k) => (candidates[k] as number) < next) : next; c < count; c++) {
      const j = candidates ? (candidates[c] as number) : c;
      const other = messages[j] as LazyMessage;
      // Rendering alike needs the same role and the same first block: skip the others unread.
      if (other.role !== message.role || (first !== undefined && other !== message && other.firstText() !== first)) continue;
      if (--budget < 0) {
        indexed = indexedFinder(textIndex(messages.map(textOf)), (k) => textOf(after[k] as Message));
        return indexed(i, next);
      }
      if (other === message || textOf(other) === text) return j;
    }
    return -1;
  };
}
