/**
 * The pairs of an index kept from window to window (the window tracker's, a
 * guard's: a request log's every pair, held for the rest of the log), each as
 * one object of fields: the call's and the first result's places and blocks,
 * any further results in an array. A `ToolPair` of member objects and a
 * results array took ~230 bytes a pair, this ~90; the members are made when
 * read (only the pairs a step touches are read).
 *
 * Given the messages of the window indexed, a member whose block is its
 * message's is kept as that message: its block is read from it when asked
 * for, so the index holds no block a message lets go of (a request log's
 * carried messages keep their blocks only for a while: carried-message.ts).
 */
import type { Block, Message, ToolCall, ToolPair, ToolResult } from './model';

type CallMember = NonNullable<ToolPair['call']>;
type ResultMember = ToolPair['results'][number];

const NO_RESULTS: readonly ResultMember[] = Object.freeze([]);

/** A member's block, or the message whose block it is. */
type Held<T extends Block> = T | Message;

function held<T extends Block>(member: { readonly message: number; readonly block: number; readonly value: T }, messages: readonly Message[] | undefined): Held<T> {
  const owner = messages?.[member.message];
  return owner && owner.blocks[member.block] === member.value ? owner : member.value;
}

function blockOf<T extends Block>(ref: Held<T>, block: number): T {
  return 'blocks' in ref ? (ref.blocks[block] as T) : ref;
}

class IndexedPair implements ToolPair {
  private readonly callMessage: number;
  private readonly callBlock: number;
  private readonly callValue: Held<ToolCall> | undefined;
  private readonly resultMessage: number;
  private readonly resultBlock: number;
  private readonly resultValue: Held<ToolResult> | undefined;
  /** The results after the first, when there are any. */
  private readonly later: readonly ResultMember[] | undefined;

  constructor(
    readonly id: string,
    call: CallMember | undefined,
    results: readonly ResultMember[],
    messages: readonly Message[] | undefined,
  ) {
    this.callMessage = call?.message ?? -1;
    this.callBlock = call?.block ?? -1;
    this.callValue = call && held(call, messages);
    const first = results[0];
    this.resultMessage = first?.message ?? -1;
    this.resultBlock = first?.block ?? -1;
    this.resultValue = first && held(first, messages);
    this.later = results.length > 1 ? results.slice(1) : undefined;
  }

  get call(): CallMember | undefined {
    return this.callValue && { message: this.callMessage, block: this.callBlock, value: blockOf(this.callValue, this.callBlock) };
  }

  get results(): readonly ResultMember[] {
    if (!this.resultValue) return NO_RESULTS;
    const first = { message: this.resultMessage, block: this.resultBlock, value: blockOf(this.resultValue, this.resultBlock) };
    return this.later ? [first, ...this.later] : [first];
  }
}

/** `pair` as an index keeps it: the same id, call and results, read as from `pair`; `messages`: the window's, when its members are its blocks. */
export function indexedPair(pair: ToolPair, messages?: readonly Message[]): ToolPair {
  return new IndexedPair(pair.id, pair.call, pair.results, messages);
}
