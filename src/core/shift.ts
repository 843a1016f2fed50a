/**
 * What a reading found, moved by an edit that changed the text's length
 * (follow-reuse.ts): every offset at or after `at` moved by `delta`, as a
 * reading of the edited text gives it. Copies, each object once (a window's
 * messages are shared with the windows of the steps around it, and stay so);
 * strings are shared. Nodes made in code (start -1) stay as they are.
 */
import type { Finding } from './findings';
import type { JsonNode, JsonProperty } from './json/parse';
import { CARRIED_FROM, type Block, type ContextWindow, type Message, type Rewrite, type ToolSchema } from './model';
import type { StepReport } from './results';
import type { SourceLine, SourceRange } from './text';

/** Key of a moved step's step as read (`Shift.step`, `unmoved`). */
const UNMOVED: unique symbol = Symbol('unmoved');
/** Key of how many times a step was moved (`Shift.step`, `moves`). */
const MOVES: unique symbol = Symbol('moves');

/** The step as its reading made it, before any `Shift.step` moved it (its windows' counts and roles are the moved step's). */
export function unmoved(step: StepReport): StepReport {
  return (step as { [UNMOVED]?: StepReport })[UNMOVED] ?? step;
}

/**
 * How many `Shift.step`s moved the step. Each holds the one before it (its
 * windows, once read, are copied again by each), so a step moved on edit
 * after edit would hold ever more: follow-reuse.ts keeps no step moved
 * `MAX_MOVES` times.
 */
export function moves(step: StepReport): number {
  return (step as { [MOVES]?: number })[MOVES] ?? 0;
}

export class Shift {
  /** Each object's copy (weak: a copy is held by what holds it, and a step's windows are moved when asked). */
  private readonly done = new WeakMap<object, unknown>();

  constructor(
    /** The first offset moved (where the old text after the edit starts). */
    readonly at: number,
    readonly delta: number,
  ) {}

  offset(n: number): number {
    return n >= this.at ? n + this.delta : n;
  }

  range<R extends SourceRange | undefined>(range: R): R {
    return (range && this.delta !== 0 ? { start: this.offset(range.start), end: this.offset(range.end) } : range) as R;
  }

  line(line: SourceLine): SourceLine {
    return this.delta === 0 ? line : { ...line, offset: this.offset(line.offset) };
  }

  finding(f: Finding): Finding {
    if (this.delta === 0) return f;
    const related = f.related?.map((r) => ({ ...r, range: this.range(r.range) }));
    return { ...f, range: this.range(f.range), ...(related && { related }) };
  }

  window(window: ContextWindow): ContextWindow {
    return this.once(window, () => {
      const moved: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(window)) moved[key] = this.windowPart(key, value);
      return moved as unknown as ContextWindow;
    });
  }

  message(message: Message): Message {
    return this.once(message, () => {
      const moved: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(message)) moved[key] = key === 'blocks' ? (value as Block[]).map((b) => this.block(b)) : this.ranged(key, value);
      // Same bytes as the message it moves, so the same render (see CARRIED_FROM).
      return Object.defineProperty(moved, CARRIED_FROM, { value: message[CARRIED_FROM] ?? message }) as unknown as Message;
    });
  }

  node(node: JsonNode): JsonNode {
    if (this.delta === 0 || node.start < this.at) return node;
    const [start, end] = [this.offset(node.start), this.offset(node.end)];
    if (node.type === 'object') return { type: 'object', start, end, properties: node.properties.map((p) => this.property(p)) };
    if (node.type === 'array') return { type: 'array', start, end, items: node.items.map((n) => this.node(n)) };
    return { ...node, start, end };
  }

  private property(p: JsonProperty): JsonProperty {
    return { key: p.key, keyStart: this.offset(p.keyStart), keyEnd: this.offset(p.keyEnd), value: this.node(p.value) };
  }

  private block(block: Block): Block {
    const moved: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(block)) moved[key] = this.ranged(key, value);
    return moved as unknown as Block;
  }

  /** A field of a message or block: a range, a JSON value (a call's input, a result's content, an opaque value), or as it is. */
  private ranged(key: string, value: unknown): unknown {
    if (key === 'input' || key === 'content' || key === 'value') return value && typeof value === 'object' ? this.node(value as JsonNode) : value;
    if (key === 'source' || key === 'idSource' || key === 'container') return this.range(value as SourceRange | undefined);
    return value;
  }

  private windowPart(key: string, value: unknown): unknown {
    if (key === 'messages') return (value as Message[]).map((m) => this.message(m));
    if (key === 'tools' || key === 'historicalTools') return (value as ToolSchema[] | undefined)?.map((t) => this.tool(t));
    if (key === 'serverState') return value && { ...(value as object), ...('source' in (value as object) && { source: this.range((value as { source?: SourceRange }).source) }) };
    if (key === 'source' || key === 'toolsSource' || key === 'messagesSource') return this.range(value as SourceRange | undefined);
    return value;
  }

  private tool(tool: ToolSchema): ToolSchema {
    return this.once(tool, () => ({ ...tool, declaration: this.node(tool.declaration), ...(tool.source && { source: this.range(tool.source) }) }));
  }

  /**
   * A step with its range moved, its windows moved when first read (an
   * enumerable getter: a report's reader, a deep comparison, a structured
   * clone all see the moved windows; only a step read is moved). A step
   * moved before is moved again without reading its windows.
   */
  step(step: StepReport): StepReport {
    return this.once(step, () => {
      const moved: Record<string, unknown> = {};
      for (const key of Object.keys(step)) if (key !== 'rewrite') moved[key] = key === 'range' ? this.range(step.range) : step[key as keyof StepReport];
      const rewrite = Object.getOwnPropertyDescriptor(step, 'rewrite');
      const read = rewrite?.get ?? (() => rewrite?.value as Rewrite | undefined);
      if (rewrite) Object.defineProperty(moved, 'rewrite', { enumerable: true, get: () => this.rewrite(read() as Rewrite) });
      return Object.defineProperties(moved, { [UNMOVED]: { value: unmoved(step) }, [MOVES]: { value: moves(step) + 1 } }) as unknown as StepReport;
    });
  }

  private rewrite(rewrite: Rewrite): Rewrite {
    return this.once(rewrite, () => ({ ...rewrite, before: this.window(rewrite.before), after: this.window(rewrite.after), ...(rewrite.range && { range: this.range(rewrite.range) }) }));
  }

  private once<T extends object>(value: T, move: () => T): T {
    if (this.delta === 0) return value;
    const known = this.done.get(value) as T | undefined;
    if (known) return known;
    const moved = move();
    this.done.set(value, moved);
    return moved;
  }
}
