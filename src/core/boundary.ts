/**
 * Boundary positions (consumed messages, rendered offset, consumed tokens),
 * computed once per window object, and for a window that extends the last
 * window measured with everything consumed (a request log's next step: the
 * previous request plus its response, then the next request) from that
 * window's position plus its new messages, instead of the whole layout and a
 * token lookup per message of every window. The offset and the tokens are
 * sums over the rendered messages, so the two ways give the same numbers
 * (`test/unit/boundary-position.test.ts`).
 */
import type { BoundaryPosition } from './results';
import { CARRIED_FROM, type ContextWindow, type Message } from './model';
import { toolsRenderAlike, type RenderCache } from './render';
import type { TokenCounter } from './tokens';

export class BoundaryPositions {
  private readonly known = new WeakMap<ContextWindow, BoundaryPosition>();
  /**
   * The last window measured whose every message is consumed (at least one):
   * its messages and tools, not the window. A request log's consumed window
   * holds its request's window (its `EXACT_WINDOW`), so keeping it kept a
   * second messages array of the previous request for the rest of a step.
   */
  private last: { readonly messages: readonly Message[]; readonly tools: ContextWindow['tools']; readonly position: BoundaryPosition } | undefined;

  constructor(
    private readonly render: RenderCache,
    private readonly tokens: TokenCounter | undefined,
  ) {}

  /** The position of `window`'s boundary; `full` computes it from the whole window. */
  of(window: ContextWindow, full: () => BoundaryPosition): BoundaryPosition {
    let position = this.known.get(window);
    if (position) return position;
    position = this.extended(window) ?? full();
    this.known.set(window, position);
    if (position.messages > 0 && position.messages === window.messages.length) this.last = { messages: window.messages, tools: window.tools, position };
    return position;
  }

  /** The position from the last window's, when `window` keeps its tools and messages (read alike) and consumes them all. */
  private extended(window: ContextWindow): BoundaryPosition | undefined {
    const last = this.last;
    if (!last) return undefined;
    const from = last.position.messages;
    const to = Math.min(window.boundary, window.messages.length);
    if (to < from || !toolsRenderAlike(last.tools, window.tools) || !this.samePrefix(last.messages, window.messages, from)) return undefined;
    let offset = last.position.offset;
    let tokens = last.position.tokens;
    const count = this.tokens && ((text: string) => this.tokens?.countUncached?.(text) ?? this.tokens?.count(text) ?? 0);
    for (let i = from; i < to; i++) {
      const measure = this.render.measure(window.messages[i] as Message, count);
      offset += 1 + measure.chars;
      if (count) tokens += measure.tokens;
    }
    return { messages: to, offset, tokens };
  }

  /** True when the first `count` messages of `b` render as those of `a`. */
  private samePrefix(a: readonly Message[], b: readonly Message[], count: number): boolean {
    if (a === b) return true;
    for (let i = 0; i < count; i++) {
      const x = a[i] as Message;
      const y = b[i] as Message;
      if (x !== y && (x[CARRIED_FROM] ?? x) !== (y[CARRIED_FROM] ?? y) && this.render.messageText(x) !== this.render.messageText(y)) return false;
    }
    return true;
  }
}
