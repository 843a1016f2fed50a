/**
 * The records of a request log, as its reader judges them: the lines of a
 * JSONL file (each parsed without the leading messages it repeats from the line
 * before it, see carry.ts) or the values of a whole `.json` file, and which of
 * the two a file is. Judging them is request-log.ts'.
 */
import type { Finding } from '../findings';
import { finding } from '../findings';
import type { JsonArray, JsonNode } from '../json/parse';
import { parseJson, type ParseResult } from '../json/parse';
import { planCarry, type CarryPlan, type CarrySource } from './carry';
import { lineLength, type SourceLine, type SourceRange } from '../text';
import type { TranscriptInput } from '../transcript';
import { incompleteLine } from './common';
import { numbered } from '../numbered';

/** One JSON value of the log: a line, or an element of a `.json` array. */
export interface LogRecord {
  readonly node: JsonNode;
  readonly range: SourceRange;
  /** 1-based, for messages. */
  readonly ordinal: number;
  /** A line of a JSONL file: the text parsed (and where), so the next line can carry from it. */
  readonly line?: { readonly text: () => string; readonly base: number; readonly source: SourceLine };
  /** The elements the parser skipped because the previous line has them (`planCarry`). */
  readonly carried?: { readonly plan: CarryPlan; readonly array: JsonArray; readonly from: CarrySource };
}

export type RecordOrFinding = { readonly record: LogRecord } | { readonly finding: Finding };

/** True for a line of spaces only (one that repeats the line before it and has more after that is not). */
export function isBlank(line: SourceLine): boolean {
  return line.rest && line.rest.text.trim() !== '' ? false : line.text.trim() === '';
}

/** Parses a line; the leading messages it shares with the line `from` was parsed from are skipped. */
export function parsedLine(line: SourceLine, ordinal: number, from: CarrySource | undefined): RecordOrFinding {
  const length = lineLength(line);
  const range = { start: line.offset, end: line.offset + length };
  // A first line may start with a byte order mark (and shares nothing with a line before it).
  const bom = line.index === 0 && line.text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const text = () => (bom ? line.text.slice(1) : line.text);
  const base = line.offset + bom;
  const same = from?.line && from.line.index === line.index - 1 ? line.same : undefined;
  const plan = planCarry(from, { length: length - bom, text, same });
  const parsed = parseTail(line, plan, from) ?? parseJson(text(), base, plan?.skip);
  if (!parsed.ok) return { finding: line.unterminated ? incompleteLine(line) : numbered(invalidJson(parsed.error.offset, range, `Line ${line.index + 1} is not valid JSON: ${parsed.error.message}`), 'line', line.index + 1, 'Line '.length) };
  const carried = plan && from && parsed.skippedIn && { plan, array: parsed.skippedIn, from };
  return { record: { node: parsed.node, range, ordinal, line: { text, base, source: line }, ...(carried && { carried }) } };
}

/**
 * Parses a line without its carried elements, from the source's text before
 * them and the line's text after them (`SourceLine.rest`): its whole text is
 * never made. Undefined when the line or the source cannot give those.
 */
function parseTail(line: SourceLine, plan: CarryPlan | undefined, from: CarrySource | undefined): ParseResult | undefined {
  const rest = line.rest;
  if (!plan || !rest || from?.head?.length !== plan.skip.from || plan.skip.to < rest.from) return undefined;
  return parseJson(from.head + rest.text.slice(plan.skip.to - rest.from), line.offset, { ...plan.skip, absent: true });
}

export function* wholeFileRecords(text: string): Generator<RecordOrFinding> {
  const values = wholeFileValues(text);
  if (!Array.isArray(values)) {
    yield values;
    return;
  }
  for (let i = 0; i < values.length; i++) yield takeRecord(values, i);
}

/**
 * The records of a whole-JSON file. The generator above holds only this list
 * while a record is checked, and each record's tree leaves it when yielded:
 * a request of a million calls is not held as its JSON tree beside its model.
 */
function wholeFileValues(text: string): (JsonNode | undefined)[] | RecordOrFinding {
  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const parsed = parseJson(bom ? text.slice(1) : text, bom);
  if (!parsed.ok) return { finding: invalidJson(parsed.error.offset, { start: 0, end: text.length }, `The file is not valid JSON: ${parsed.error.message}`) };
  return parsed.node.type === 'array' ? [...parsed.node.items] : [parsed.node];
}

function takeRecord(values: (JsonNode | undefined)[], i: number): RecordOrFinding {
  const node = values[i] as JsonNode;
  values[i] = undefined;
  return { record: { node, range: { start: node.start, end: node.end }, ordinal: i + 1 } };
}

function invalidJson(offset: number, within: SourceRange, message: string): Finding {
  const start = Math.min(Math.max(offset, within.start), within.end);
  return finding('invalid-json', { start, end: Math.min(start + 1, within.end) }, message);
}

/**
 * A `.json` file is one JSON value (a request, a record, or an array of them);
 * JSONL files are read line by line. Without a telling extension, a file whose
 * first non-blank line is not a JSON value on its own is read whole.
 */
export function isWholeJson(input: TranscriptInput): boolean {
  const byName = wholeJsonByName(input.file);
  if (byName !== undefined) return byName;
  for (const line of input.lines()) {
    const text = line.text.trim();
    if (text === '') continue;
    return !parseJson(text).ok;
  }
  return false;
}

/** True for a `.json` name, false for `.jsonl`/`.ndjson`; undefined when the name does not tell. */
export function wholeJsonByName(file: string): boolean | undefined {
  const name = file.toLowerCase();
  if (name.endsWith('.jsonl') || name.endsWith('.ndjson')) return false;
  if (name.endsWith('.json')) return true;
  return undefined;
}
