/**
 * What a reading found, moved by edits that changed the text's length
 * (follow-reuse.ts): every offset at or after `at` moved by `delta`, as a
 * reading of the edited text gives it. Copies, each object once (a window's
 * messages are shared with the windows of the steps around it, and stay so);
 * strings are shared. Nodes made in code (start -1) stay as they are.
 *
 * An `OffsetMap` is any number of such moves composed: a piecewise
 * translation of the offsets as first read. A kept step is moved by one map
 * from its step as read (`Shift.step`): the map of its earlier moves composed
 * with the edit's (`Shift.after`), never a move of a move, so however many
 * edits move it, reading its windows copies them once, from what was read.
 */
import type { Finding } from './findings';
import type { JsonNode, JsonProperty } from './json/parse';
import { CARRIED_FROM, type Block, type ContextWindow, type Message, type Rewrite, type ToolSchema } from './model';
import type { StepReport } from './results';
import { sameNumber } from './numbered';
import type { SourceLine, SourceRange } from './text';
import { partitionPoint } from '../shared/search';

/** Key of a moved step's step as read (`Shift.step`, `unmoved`). */
const UNMOVED: unique symbol = Symbol('unmoved');
/** Key of the map that moved a step from its step as read (`Shift.step`, `movedBy`). */
const MOVED_BY: unique symbol = Symbol('movedBy');

/** The step as its reading made it, before any `Shift.step` moved it (its windows' counts and roles are the moved step's). */
export function unmoved(step: StepReport): StepReport {
  return (step as { [UNMOVED]?: StepReport })[UNMOVED] ?? step;
}

/** The map that moved the step from its step as read (`unmoved`), if it was moved. */
export function movedBy(step: StepReport): OffsetMap | undefined {
  return (step as { [MOVED_BY]?: OffsetMap })[MOVED_BY];
}

/**
 * Offsets moved piecewise: from each of `froms` (ascending) up to the next,
 * by the `deltas` at the same index; offsets before the first stay.
 */
export class OffsetMap {
  /** Each object's copy (weak: a copy is held by what holds it, and a step's windows are moved when asked). */
  private readonly done = new WeakMap<object, unknown>();
  /** True when no offset moves (moves that add up to nothing). */
  readonly identity: boolean;

  protected constructor(
    readonly froms: readonly number[],
    readonly deltas: readonly number[],
  ) {
    this.identity = deltas.every((d) => d === 0);
  }

  /** How many translations it is made of. */
  get pieces(): number {
    return this.froms.length;
  }

  offset(n: number): number {
    const i = this.froms.length === 1 ? (n >= (this.froms[0] as number) ? 1 : 0) : partitionPoint(this.froms.length, (k) => (this.froms[k] as number) <= n);
    return i === 0 ? n : n + (this.deltas[i - 1] as number);
  }

  range<R extends SourceRange | undefined>(range: R): R {
    return (range && !this.identity ? { start: this.offset(range.start), end: this.offset(range.end) } : range) as R;
  }

  line(line: SourceLine): SourceLine {
    return this.identity ? line : { ...line, offset: this.offset(line.offset) };
  }

  finding(f: Finding): Finding {
    if (this.identity) return f;
    const related = f.related?.map((r) => ({ ...r, range: this.range(r.range) }));
    return sameNumber(f, { ...f, range: this.range(f.range), ...(related && { related }) });
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
    if (this.identity || node.start < (this.froms[0] as number)) return node;
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

  /** A rewrite with its windows and range moved (from the rewrite as read: see `Shift.step`). */
  rewrite(rewrite: Rewrite): Rewrite {
    return this.once(rewrite, () => ({ ...rewrite, before: this.window(rewrite.before), after: this.window(rewrite.after), ...(rewrite.range && { range: this.range(rewrite.range) }) }));
  }

  protected once<T extends object>(value: T, move: () => T): T {
    return this.identity ? value : this.memo(value, move);
  }

  /** `value`'s copy, made once. */
  protected memo<T extends object>(value: T, move: () => T): T {
    const known = this.done.get(value) as T | undefined;
    if (known) return known;
    const moved = move();
    this.done.set(value, moved);
    return moved;
  }
}

/** The move of one edit: every offset from `at` on (where the old text after the edit starts) by `delta`. */
export class Shift extends OffsetMap {
  /** `after(prior)` for each map `prior` asked: the steps that `prior` moved share one map after this edit too (and so the copies of their shared messages). */
  private readonly composed = new WeakMap<OffsetMap, OffsetMap>();

  constructor(
    readonly at: number,
    readonly delta: number,
  ) {
    super([at], [delta]);
  }

  /**
   * The map of `prior`'s moves then this edit's, as one map of the offsets
   * as first read: on each of `prior`'s pieces, the offsets its translation
   * takes to `at` or past it move by `delta` too. Pieces whose moves come to
   * the same are one: typing on in one line keeps one translation.
   */
  after(prior: OffsetMap | undefined): OffsetMap {
    if (!prior) return this;
    const known = this.composed.get(prior);
    if (known) return known;
    const pieces: [number, number][] = [];
    for (let i = -1; i < prior.froms.length; i++) {
      const [lo, hi, d] = [prior.froms[i] ?? -Infinity, prior.froms[i + 1] ?? Infinity, prior.deltas[i] ?? 0];
      const t = this.at - d;
      pieces.push([lo, t <= lo ? d + this.delta : d]);
      if (t > lo && t < hi) pieces.push([t, d + this.delta]);
    }
    const [froms, deltas] = [[] as number[], [] as number[]];
    for (const [from, delta] of pieces) if (delta !== (deltas.at(-1) ?? 0)) froms.push(from), deltas.push(delta);
    const map = new Composed(froms, deltas);
    this.composed.set(prior, map);
    return map;
  }

  /**
   * A step with its range moved, its windows moved when first read (an
   * enumerable getter: a report's reader, a deep comparison, a structured
   * clone all see the moved windows; only a step read is moved). A step
   * moved before is moved again from its step as read, by its earlier
   * moves and this one composed (`after`): what it holds is its step as
   * read, one map and, once read, one copy. Numbered `steps` later (the
   * edit added or removed steps before it).
   */
  step(step: StepReport, steps = 0): StepReport {
    if (this.identity) return steps === 0 ? step : this.memo(step, () => renumberedStep(step, steps));
    return this.once(step, () => {
      const moved: Record<string, unknown> = {};
      for (const key of Object.keys(step)) if (key !== 'rewrite') moved[key] = key === 'range' ? this.range(step.range) : key === 'index' ? step.index + steps : step[key as keyof StepReport];
      const [read, by] = [unmoved(step), this.after(movedBy(step))];
      if (read.rewrite) Object.defineProperty(moved, 'rewrite', { enumerable: true, get: movedRewrite(by, read.rewrite) });
      return Object.defineProperties(moved, { [UNMOVED]: { value: read }, [MOVED_BY]: { value: by } }) as unknown as StepReport;
    });
  }
}

/**
 * A step numbered `steps` later, nothing moved: its rewrite as it is (a
 * getter's kept as one), what it was read as and moved by kept.
 */
function renumberedStep(step: StepReport, steps: number): StepReport {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(step)) if (key !== 'rewrite') copy[key] = key === 'index' ? step.index + steps : step[key as keyof StepReport];
  const rewrite = Object.getOwnPropertyDescriptor(step, 'rewrite');
  if (rewrite) Object.defineProperty(copy, 'rewrite', rewrite);
  const [read, by] = [unmoved(step), movedBy(step)];
  if (read !== step) Object.defineProperty(copy, UNMOVED, { value: read });
  if (by) Object.defineProperty(copy, MOVED_BY, { value: by });
  return copy as unknown as StepReport;
}

/**
 * The getter of a moved step's rewrite. Made out here so that it holds only
 * the map and the rewrite as read: a closure made in `Shift.step` would hold
 * the step it moved (the one an earlier edit moved, and so on back).
 */
function movedRewrite(by: OffsetMap, rewrite: Rewrite): () => Rewrite {
  return () => by.rewrite(rewrite);
}

/** Moves composed (`Shift.after`). */
class Composed extends OffsetMap {
  constructor(froms: readonly number[], deltas: readonly number[]) {
    super(froms, deltas);
  }
}
