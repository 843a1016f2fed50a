/**
 * The timeline order of a request body or a log of requests (request logs,
 * Inspect model events, trace generations: steps of source `request`). A
 * request is in its own order, not the file's (Anthropic's `system` follows
 * `messages` in the JSON but comes first). Every request
 * repeats the history before it, so the last window's messages all sit in the
 * last record of the file: ordering them by offset would put every step
 * before the whole conversation. Instead the last window is shown in its own
 * order, and each step just before the first message its request added (the
 * messages after what the previous request and its answer held). A step whose
 * request is not a prefix of the last window (history a later rewrite
 * replaced) comes first, in step order, with the history it dropped. Pure.
 */
import { CARRIED_FROM, renderMessage, type ContextWindow, type Message, type StepReport } from '../engine';

/** One timeline item in order: a message of the last window, a message a step dropped, or a step. */
export type Placed = { readonly kind: 'message'; readonly message: Message; readonly dropped: boolean } | { readonly kind: 'step'; readonly step: StepReport };

/** Two readings of the same message: the same object, carried from the same one, or the same render. */
function same(a: Message | undefined, b: Message | undefined): boolean {
  if (!a || !b) return false;
  return a === b || (a[CARRIED_FROM] ?? a) === (b[CARRIED_FROM] ?? b) || (a.role === b.role && renderMessage(a) === renderMessage(b));
}

/** Where a step goes among the last window's messages; -1 when its request is not a prefix of it. */
function positionOf(final: readonly Message[], step: StepReport): number {
  const rewrite = step.rewrite;
  if (!rewrite) return -1;
  const after = rewrite.after.messages;
  if (after.length > final.length || (after.length > 0 && !same(after[after.length - 1], final[after.length - 1]))) return -1;
  return Math.min(rewrite.before.messages.length, after.length);
}

export function requestOrder(final: ContextWindow | undefined, steps: readonly StepReport[]): Placed[] {
  const messages = final?.messages ?? [];
  const shown = new Set<Message>(messages.map((m) => m[CARRIED_FROM] ?? m));
  const slots: { pos: number; rank: number; seq: number; item: Placed }[] = [];
  messages.forEach((message, i) => slots.push({ pos: i, rank: 1, seq: i, item: { kind: 'message', message, dropped: false } }));
  steps.forEach((step, k) => {
    const pos = positionOf(messages, step);
    const rewrite = step.rewrite;
    if (rewrite && rewrite.after.messages.length < rewrite.before.messages.length) {
      for (const message of rewrite.before.messages) {
        const root = message[CARRIED_FROM] ?? message;
        if (shown.has(root) || messages.some((m) => same(m, message))) continue;
        shown.add(root);
        slots.push({ pos, rank: 0, seq: slots.length, item: { kind: 'message', message, dropped: true } });
      }
    }
    slots.push({ pos, rank: 0, seq: slots.length + k, item: { kind: 'step', step } });
  });
  return slots.sort((a, b) => a.pos - b.pos || a.rank - b.rank || a.seq - b.seq).map((s) => s.item);
}
