/**
 * Helpers shared by every reader: reading JSONL lines into positioned JSON,
 * turning parse errors and skipped records into located findings, mapping
 * role names, building neutral blocks with their source ranges. Node
 * accessors (`rangeOf`, `asString`, …) live in `json/nodes.ts`.
 */
import { finding, type Finding } from '../findings';
import type { Block, Message, Role } from '../model';
import { parseJson, type JsonNode, type JsonString } from '../json/parse';
import { asString, prop, rangeOf } from '../json/nodes';
import { splitLines, type SourceRange, type SourceLine } from '../text';
import type { TranscriptEvent, TranscriptInput } from '../transcript';
import { partitionPoint } from '../../shared/search';

/** One parsed JSONL line, or the finding for a line that did not parse. */
export type ParsedLine =
  | { readonly ok: true; readonly node: JsonNode; readonly line: SourceLine; readonly range: SourceRange }
  | { readonly ok: false; readonly finding: Finding; readonly line: SourceLine };

/** The range of a line's text (without its terminator). */
export function lineRange(line: SourceLine): SourceRange {
  return { start: line.offset, end: line.offset + line.text.length };
}

/** An `invalid-json` finding at the parse error's offset, one character wide (or empty at the end). */
export function invalidJson(message: string, offset: number, limit: number, where = ''): Finding {
  const start = Math.max(0, Math.min(offset, limit));
  return finding('invalid-json', { start, end: Math.min(start + 1, limit) }, `${where}${message}`);
}

/**
 * The finding for a last line with no line end that does not parse: a log
 * still being written, not a broken one. Info, on the whole line; the line is
 * read again when it completes.
 */
export function incompleteLine(line: SourceLine): Finding {
  return finding(
    'invalid-json',
    lineRange(line),
    `Line ${line.index + 1} is incomplete: the last line has no line end yet and does not parse (a log still being written); it is read when it completes`,
    { severity: 'info' },
  );
}

/** Parses every non-blank line of a JSONL input; bad lines become `invalid-json` findings (an unfinished last line, info). */
export function* parseJsonLines(input: TranscriptInput): Generator<ParsedLine> {
  for (const line of input.lines()) {
    const parsed = parseJsonLine(line);
    if (parsed) yield parsed;
  }
}

/** One JSONL line parsed; undefined for a blank line. */
export function parseJsonLine(line: SourceLine): ParsedLine | undefined {
  if (line.text.trim() === '') return undefined;
  const parsed = parseJson(line.text, line.offset);
  const range = lineRange(line);
  if (parsed.ok) return { ok: true, node: parsed.node, line, range };
  return { ok: false, line, finding: line.unterminated ? incompleteLine(line) : invalidJson(parsed.error.message, parsed.error.offset, range.end) };
}

/** The first non-blank line of a text (for `FormatAdapter.lineReader`); undefined when it has none. */
export function firstLineOf(text: string): string | undefined {
  for (const line of splitLines(text)) if (line.text.trim() !== '') return line.text;
  return undefined;
}

export function findingEvent(f: Finding): TranscriptEvent {
  return { kind: 'finding', finding: f };
}

const NOT_CONTEXT = "not part of the model's context as far as this reader knows";
/** At most this many further occurrences of a cause are listed as related locations. */
const MAX_RELATED = 20;

/** The most occurrences an `Unseen` keeps the ranges of (`logged`): past it, it is not spliced. */
const MAX_LOGGED = 1 << 18;

interface Cause {
  readonly noun: string;
  readonly why: string;
  readonly verb: string;
  readonly first: SourceRange;
  /** "line L", or the place of a first occurrence that has no line (a zip entry). */
  readonly at: string;
  count: number;
  readonly others: SourceRange[];
  /** Every occurrence's start and end, in order (a logging `Unseen`'s, shared with its copies up to `count`). */
  log?: number[] | undefined;
}

/**
 * What a reader could not see (records it skipped, parts it kept as bytes) or
 * read with a fallback, grouped by cause: one `record-skipped` info per cause
 * per file, with the count, "first at line L" and its range, the next few as
 * related locations. A reader notes each occurrence and yields `findings()`
 * once it is done. One made `logged` keeps every occurrence's range too (up
 * to `MAX_LOGGED` in all), so that a followed log's can be spliced after an
 * edit (`spliced`).
 */
export class Unseen {
  private readonly causes = new Map<string, Cause>();
  /** Occurrences logged, or -1 once past `MAX_LOGGED` (or not logging). */
  private logged: number;

  constructor(logged = false) {
    this.logged = logged ? 0 : -1;
  }

  /**
   * `cause` names what was not seen ("of Codex type \"x\""); `line` is
   * 1-based, or a function computing it (called for the first occurrence
   * only), or the name of a place without lines (a zip entry). `verb` says
   * what was done ("Skipped", or a fallback such as "Read … as runtime").
   */
  note(cause: string, range: SourceRange, line: number | string | (() => number), noun = 'record', why = NOT_CONTEXT, verb = 'Skipped'): void {
    const known = this.causes.get(cause);
    if (!known) {
      const at = typeof line === 'string' ? `in ${line}` : `at line ${typeof line === 'number' ? line : line()}`;
      this.causes.set(cause, { noun, why, verb, first: range, at, count: 1, others: [], ...(this.logged >= 0 && { log: [range.start, range.end] }) });
      return this.log();
    }
    if (known.log) {
      // Shared with a copy that noted more: its own from here.
      if (known.log.length !== 2 * known.count) known.log = known.log.slice(0, 2 * known.count);
      known.log.push(range.start, range.end);
    }
    known.count++;
    if (known.others.length < MAX_RELATED) known.others.push(range);
    this.log();
  }

  private log(): void {
    if (this.logged < 0 || ++this.logged <= MAX_LOGGED) return;
    this.logged = -1;
    for (const c of this.causes.values()) c.log = undefined;
  }

  /** True when nothing was noted. */
  get empty(): boolean {
    return this.causes.size === 0;
  }

  findings(): Finding[] {
    return [...this.causes].map(([cause, c]) => {
      const what = `${c.count.toLocaleString('en-US')} ${c.noun}${c.count === 1 ? '' : 's'} ${cause}`;
      const related = c.others.map((range) => ({ range, message: `Also ${c.verb.toLowerCase()}: ${c.noun} ${cause}` }));
      return finding('record-skipped', c.first, `${c.verb} ${what} (first ${c.at}): ${c.why}`, related.length > 0 ? { related } : {});
    });
  }

  events(): TranscriptEvent[] {
    return this.findings().map(findingEvent);
  }

  /** True when every record noted is at `at` or after it. */
  from(at: number): boolean {
    for (const c of this.causes.values()) if (c.first.start < at) return false;
    return true;
  }

  /** An independent copy (a followed file's reader is forked to read its end); what it logged is shared until either notes more. */
  clone(): Unseen {
    const copy = new Unseen();
    copy.logged = this.logged;
    for (const [cause, c] of this.causes) copy.causes.set(cause, { ...c, others: [...c.others] });
    return copy;
  }

  /** A copy whose records' ranges are moved (an edit before them changed the text's length); it logs no more. */
  moved(shift: { range(range: SourceRange): SourceRange }): Unseen {
    const copy = new Unseen();
    for (const [cause, c] of this.causes) copy.causes.set(cause, { ...c, first: shift.range(c.first), others: c.others.map((r) => shift.range(r)), log: undefined });
    return copy;
  }

  /**
   * What `before` (a reading of an edited text up to offset `from` of this
   * one's text) noted, then what this one noted from `from` on, moved by
   * `shift`, each first occurrence of a cause at its line in the edited
   * text (`lineOf`, 1-based, of an offset in this one's text): as `before`
   * would have noted them reading on. Undefined when this one did not log
   * them all.
   */
  spliced(before: Unseen, from: number, shift: { range(range: SourceRange): SourceRange }, lineOf: (offset: number) => number): Unseen | undefined {
    const later: { readonly cause: string; readonly c: Cause; readonly k: number; readonly log: readonly number[] }[] = [];
    for (const [cause, c] of this.causes) {
      const log = c.log;
      if (!log || this.logged < 0) return undefined;
      const k = partitionPoint(c.count, (i) => (log[2 * i] as number) < from);
      if (k < c.count) later.push({ cause, c, k, log });
    }
    const copy = before.clone();
    // New causes in the order of their first occurrence after `from`, as a reading on would meet them.
    later.sort((a, b) => (a.log[2 * a.k] as number) - (b.log[2 * b.k] as number));
    for (const { cause, c, k, log } of later) {
      for (let i = k; i < c.count; i++) {
        const range = shift.range({ start: log[2 * i] as number, end: log[2 * i + 1] as number });
        copy.note(cause, range, () => lineOf(log[2 * i] as number), c.noun, c.why, c.verb);
      }
    }
    return copy;
  }
}

/** The 1-based line of an offset in a text (for readers of whole-JSON files). */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** A text block from a string node. */
export function textBlock(node: JsonString): Block {
  return { kind: 'text', text: node.value, source: rangeOf(node) };
}

/** The index just past the last assistant message: the model has read everything before its last output. */
export function consumedBoundary(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]?.role === 'assistant') return i + 1;
  return 0;
}

/**
 * Maps a role name onto the neutral roles, the same for every reader:
 * `developer` is a system turn, `model` (Gemini) and `ai` (LangChain) the
 * assistant, `function` and `ipython` (Llama) a tool result, `human` the user.
 */
export function neutralRole(role: string | undefined, fallback: Role = 'user'): Role {
  switch (role) {
    case 'system':
    case 'developer':
      return 'system';
    case 'assistant':
    case 'model':
    case 'ai':
      return 'assistant';
    case 'tool':
    case 'function':
    case 'ipython':
      return 'tool';
    case 'user':
    case 'human':
      return 'user';
    default:
      return fallback;
  }
}

/** The string literal of an id property, for `idSource`. */
export function idRange(node: JsonNode | undefined, key: string): SourceRange | undefined {
  return rangeOf(asString(prop(node, key)));
}

/** A pattern for one JSONL line: a regex, or [first, then]: `then` somewhere after the first match of `first`. */
export type LinePattern = RegExp | readonly [RegExp, RegExp];
// Each pattern must contain a `"` (it names a JSON key): lines without one are skipped.

/**
 * True when a line of the head matches one of the patterns (JSONL sniff
 * helper). Linear in the head: each line is tested on its own (no `^\s*` with
 * the `m` flag, which backtracks over every following blank line), and "A then
 * B on the same line" is two searches instead of `A[^\n]*B`, which rescans the
 * line from every A.
 */
export function lineMatches(head: string, ...patterns: LinePattern[]): boolean {
  // Every pattern names a JSON key, so only lines with a quote are tested.
  for (let quote = head.indexOf('"'); quote !== -1; ) {
    const start = head.lastIndexOf('\n', quote) + 1;
    const nl = head.indexOf('\n', quote);
    const line = head.slice(start, nl === -1 ? head.length : nl);
    if (patterns.some((p) => matchesLine(line, p))) return true;
    quote = nl === -1 ? -1 : head.indexOf('"', nl + 1);
  }
  return false;
}

function matchesLine(line: string, pattern: LinePattern): boolean {
  if (pattern instanceof RegExp) return pattern.test(line);
  const first = pattern[0].exec(line);
  return first !== null && pattern[1].test(line.slice(first.index + first[0].length));
}

/** True when any of the patterns matches the head (cheap sniff helper). */
export function headMatches(head: string, ...patterns: RegExp[]): boolean {
  return patterns.some((p) => p.test(head));
}
