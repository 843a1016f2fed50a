/**
 * The pairs of an index kept from window to window (the window tracker's, a
 * guard's: a request log's every pair, held for the rest of the log), each as
 * one object of fields: the call's and the first result's places and blocks,
 * any further results in an array. A `ToolPair` of member objects and a
 * results array took ~230 bytes a pair, this ~90; the members are made when
 * read (only the pairs a step touches are read).
 */
import type { ToolCall, ToolPair, ToolResult } from './model';

type CallMember = NonNullable<ToolPair['call']>;
type ResultMember = ToolPair['results'][number];

const NO_RESULTS: readonly ResultMember[] = Object.freeze([]);

class IndexedPair implements ToolPair {
  private readonly callMessage: number;
  private readonly callBlock: number;
  private readonly callValue: ToolCall | undefined;
  private readonly resultMessage: number;
  private readonly resultBlock: number;
  private readonly resultValue: ToolResult | undefined;
  /** The results after the first, when there are any. */
  private readonly later: readonly ResultMember[] | undefined;

  constructor(
    readonly id: string,
    call: CallMember | undefined,
    results: readonly ResultMember[],
  ) {
    this.callMessage = call?.message ?? -1;
    this.callBlock = call?.block ?? -1;
    this.callValue = call?.value;
    const first = results[0];
    this.resultMessage = first?.message ?? -1;
    this.resultBlock = first?.block ?? -1;
    this.resultValue = first?.value;
    this.later = results.length > 1 ? results.slice(1) : undefined;
  }

  get call(): CallMember | undefined {
    return this.callValue && { message: this.callMessage, block: this.callBlock, value: this.callValue };
  }

  get results(): readonly ResultMember[] {
    if (!this.resultValue) return NO_RESULTS;
    const first = { message: this.resultMessage, block: this.resultBlock, value: this.resultValue };
    return this.later ? [first, ...this.later] : [first];
  }
}

/** `pair` as an index keeps it: the same id, call and results, read as from `pair`. */
export function indexedPair(pair: ToolPair): ToolPair {
  return new IndexedPair(pair.id, pair.call, pair.results);
}
