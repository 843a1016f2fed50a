/**
 * The inspector's diff, computed where the text changed. A step's two windows
 * share most of their lines (an append shares all but the end, a compaction all
 * but a few messages), so the lines both sides start and end with are matched
 * first and Monaco's own line diff runs only on what lies between, on the main
 * thread and at once, instead of copying both 1.4 MB texts to a worker stand-in
 * after a 200 ms debounce and diffing them whole.
 *
 * Installed as Monaco's diff provider service before any editor exists (Monaco
 * takes service overrides once, on its first use).
 */
import { Emitter } from 'monaco-editor/base/common/event.js';
import { linesDiffComputers } from 'monaco-editor/editor/common/diff/linesDiffComputers.js';
import { DetailedLineRangeMapping, RangeMapping } from 'monaco-editor/editor/common/diff/rangeMapping.js';
import { StandaloneServices } from 'monaco-editor/editor/standalone/browser/standaloneServices.js';
import type * as monaco from './monaco';

type Model = monaco.editor.ITextModel;

interface DiffOptions {
  readonly ignoreTrimWhitespace: boolean;
  readonly maxComputationTimeMs: number;
  readonly computeMoves: boolean;
}

/** The shape of Monaco's internal `IDocumentDiff`. */
interface DocumentDiff {
  readonly identical: boolean;
  readonly quitEarly: boolean;
  readonly changes: readonly DetailedLineRangeMapping[];
  readonly moves: readonly unknown[];
}

/** Lines equal at the start of both models, and then at their ends (not overlapping). */
function commonEnds(original: Model, modified: Model): { head: number; tail: number } {
  const originalCount = original.getLineCount();
  const modifiedCount = modified.getLineCount();
  const most = Math.min(originalCount, modifiedCount);
  let head = 0;
  while (head < most && original.getLineContent(head + 1) === modified.getLineContent(head + 1)) head++;
  let tail = 0;
  while (tail < most - head && original.getLineContent(originalCount - tail) === modified.getLineContent(modifiedCount - tail)) tail++;
  return { head, tail };
}

function lines(model: Model, from: number, to: number): string[] {
  const out: string[] = [];
  for (let line = from; line <= to; line++) out.push(model.getLineContent(line));
  return out;
}

/** Moves a mapping computed on lines from `head + 1` on back to model line numbers. */
function shifted(change: DetailedLineRangeMapping, head: number): DetailedLineRangeMapping {
  const inner = change.innerChanges?.map((r) => new RangeMapping(r.originalRange.delta(head), r.modifiedRange.delta(head)));
  return new DetailedLineRangeMapping(change.original.delta(head), change.modified.delta(head), inner);
}

/**
 * The middle's lines and characters below which its diff runs without a time limit (Monaco's
 * `maxComputationTimeMs: 0`). Monaco's time limit reads the clock in every cell of its dynamic
 * programming (an append's middle, a few lines of ~100 characters: ~20k cells, half the diff's time);
 * a middle this small costs at most a few milliseconds whatever it holds.
 */
const UNTIMED_LINES = 200;
const UNTIMED_CHARACTERS = 2000;

/** The diff's time limit: none for a small middle, else the editor's. */
function timeLimit(originalLines: readonly string[], modifiedLines: readonly string[], options: DiffOptions): number {
  if (originalLines.length + modifiedLines.length > UNTIMED_LINES) return options.maxComputationTimeMs;
  let characters = 0;
  for (const line of [...originalLines, ...modifiedLines]) characters += line.length;
  return characters <= UNTIMED_CHARACTERS ? 0 : options.maxComputationTimeMs;
}

/** Equal lines at the start and end of both models, known beforehand for these model versions. */
export interface KnownEnds {
  readonly head: number;
  readonly tail: number;
  readonly versions: readonly [number, number];
}

function computeDocumentDiff(original: Model, modified: Model, options: DiffOptions, known?: KnownEnds): DocumentDiff {
  const fresh = known && known.versions[0] === original.getVersionId() && known.versions[1] === modified.getVersionId();
  const ends = fresh ? known : commonEnds(original, modified);
  if (ends.head + ends.tail >= Math.max(original.getLineCount(), modified.getLineCount())) {
    return { identical: original.getValueLength() === modified.getValueLength(), quitEarly: false, changes: [], moves: [] };
  }
  // One equal line kept on each side of the middle: neither part is ever empty (Monaco diffs documents, which have a line).
  const head = Math.max(0, ends.head - 1);
  const tail = Math.max(0, ends.tail - 1);
  const originalEnd = original.getLineCount() - tail;
  const modifiedEnd = modified.getLineCount() - tail;
  const originalLines = lines(original, head + 1, originalEnd);
  const modifiedLines = lines(modified, head + 1, modifiedEnd);
  const result = linesDiffComputers.getDefault().computeDiff(originalLines, modifiedLines, { ...options, maxComputationTimeMs: timeLimit(originalLines, modifiedLines, options), computeMoves: false });
  const identical = result.changes.length === 0 && original.getValueLength() === modified.getValueLength();
  return { identical, quitEarly: result.hitTimeout, changes: result.changes.map((c) => shifted(c, head)), moves: [] };
}

/**
 * One diff editor's provider; `recompute()` asks that editor for a diff now, without its debounce,
 * with the models' equal ends when the host said where the step's texts differ.
 */
export class LocalDiffProvider {
  private readonly changed = new Emitter<void>();
  readonly onDidChange = this.changed.event;
  private known: KnownEnds | undefined;

  async computeDiff(original: Model, modified: Model, options: DiffOptions): Promise<DocumentDiff> {
    if (original.isDisposed() || modified.isDisposed()) return { identical: true, quitEarly: false, changes: [], moves: [] };
    return computeDocumentDiff(original, modified, options, this.known);
  }

  recompute(known?: KnownEnds): void {
    this.known = known;
    this.changed.fire();
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/**
 * The providers Monaco asks for, one per diff editor (the inspector has two: the step shown and the
 * next step laid out ahead). Each diff editor's provider must be its own: a `recompute` of one fires
 * only that editor's diff. Monaco creates it when the editor is given its models (`setModel`,
 * synchronously), so the `DiffView` takes it right after that (`claim`).
 */
class DiffProviders {
  private readonly unclaimed: LocalDiffProvider[] = [];

  create(): LocalDiffProvider {
    const provider = new LocalDiffProvider();
    this.unclaimed.push(provider);
    return provider;
  }

  /** The provider Monaco made for the diff editor just given its models. */
  claim(): LocalDiffProvider {
    const provider = this.unclaimed.pop();
    if (!provider || this.unclaimed.length > 0) throw new Error('a diff editor without its own diff provider');
    return provider;
  }
}

export const DIFF_PROVIDERS = new DiffProviders();

StandaloneServices.initialize({ diffProviderFactoryService: { createDiffProvider: () => DIFF_PROVIDERS.create() } });
