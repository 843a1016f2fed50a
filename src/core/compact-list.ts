/**
 * A list of plain records (a report's steps, a log's usage records) held
 * compactly while a check runs: each record's 32-bit integers in one run of
 * varint bytes (int-run.ts: 1-5 bytes an integer in one-byte strings, in the
 * V8 heap, not in ArrayBuffers the heap's count leaves out; a small integer of
 * an array took 8 bytes in Node), and per record the index of its template
 * (one byte in a run of its own): its shape (its keys in order, nested plain
 * objects included) with its other values (strings, booleans, arrays, objects
 * that are not plain), kept once for every record that has the same ones. A
 * step of a request log's report is ~225 bytes as objects (the step, its
 * range, its boundary position, its cache impact); here ~20 (its integers'
 * bytes and its template's).
 *
 * Records are made again, in order, the first time anything reads the list
 * (`all`, `at`): the same keys in the same order, the same values (other
 * values the very same references), each record made once, so reading the
 * list twice gives the same objects. A record that is not a plain object
 * (another prototype, a symbol key, an accessor, a frozen object) is kept as
 * it is.
 */

import { IntRun, type IntReader } from './int-run';

/** What a shape says of one key: a 32-bit integer, another value (in the template), or a plain object of its own. */
type Kind = typeof INT | typeof OTHER | Shape;

const INT = 0;
const OTHER = 1;

interface Shape {
  readonly keys: readonly string[];
  readonly kinds: readonly Kind[];
}

/** A shape, and the other values of the records it makes (`undefined`: each record's own, in `loose`). */
interface Template {
  readonly shape: Shape;
  readonly others: readonly unknown[] | undefined;
}

/** The template of a record not held compactly (kept as it is, in `kept`). */
const KEPT = -1;

/**
 * Templates with their other values at most: past them a record whose other
 * values no template has keeps them in `loose` (a timestamp of its own in
 * every record), with a template of its shape alone.
 */
const MAX_TEMPLATES = 64;

/** Strings longer than this are no part of a template's key (they go with their record). */
const MAX_KEYED_STRING = 80;

/** Plain objects nested deeper than this are kept by reference (a record's fields' fields at most; a record that holds itself is then no endless walk). */
const MAX_DEPTH = 3;

/**
 * A 32-bit integer (not -0) held in the record's integers: a small integer in
 * V8's arrays on 64 bits. 0 and 1 are not: they go with the template, as other
 * values (a step's `thread` 1 and `invalidatedTokens` 0, a usage record's empty
 * counts: the same in most records, so a handful of templates say them once).
 */
const int32 = (value: unknown): value is number => typeof value === 'number' && (value | 0) === value && !Object.is(value, -0) && value !== 0 && value !== 1;

/** An object made by a literal or by assignments: its own enumerable data properties, nothing else. */
function plain(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype || !Object.isExtensible(value)) return false;
  if (Object.getOwnPropertySymbols(value).length > 0 || Object.hasOwn(value, '__proto__')) return false;
  for (const name of Object.getOwnPropertyNames(value)) {
    const d = Object.getOwnPropertyDescriptor(value, name);
    if (!d || !('value' in d) || !d.enumerable || !d.writable || !d.configurable) return false;
  }
  return true;
}

/** A plain object to hold as part of its record at `depth` (the record's own fields: 1). */
const inline = (value: unknown, depth: number): value is Record<string, unknown> => depth < MAX_DEPTH && plain(value);

/** A value's part of a template's key (`undefined`: no key, the value goes with its record): primitives by value, objects by identity. */
function keyOf(value: unknown, objects: Map<unknown, number>): string | undefined {
  switch (typeof value) {
    case 'string':
      return value.length <= MAX_KEYED_STRING ? `s${JSON.stringify(value)}` : undefined;
    case 'number':
      return `n${Object.is(value, -0) ? '-0' : String(value)}`;
    case 'boolean':
      return value ? 't' : 'f';
    case 'undefined':
      return 'u';
    case 'object':
    case 'function': {
      if (value === null) return 'z';
      const id = objects.get(value);
      return id === undefined ? undefined : `o${id}`;
    }
    default:
      return undefined;
  }
}

export class CompactList<T extends object> {
  /** The records made again (or never held compactly), in order: the first `made.length` of the list. */
  private made: T[] = [];
  /** Per record not made yet, its template's index (or KEPT). */
  private templateOf = new IntRun();
  private ints = new IntRun();
  /** The records kept as they are among those not made yet, in order. */
  private kept: T[] = [];
  /** The other values of the records not made yet whose template has none, in order. */
  private loose: unknown[] = [];
  private readonly templates: Template[] = [];
  /** Templates by their shape's signature and other values' keys; a shape's template without them by its signature. */
  private readonly templateIds = new Map<string, number>();
  /** The objects among templates' other values, numbered for their keys. */
  private readonly objects = new Map<unknown, number>();

  get length(): number {
    return this.made.length + this.templateOf.length;
  }

  /** Appends a record; `compact` false (or a record that is not plain) keeps it as it is. */
  push(record: T, compact = true): void {
    const id = compact && plain(record) ? this.template(record) : KEPT;
    if (id !== KEPT) return void this.templateOf.push(id);
    if (this.templateOf.length === 0) return void this.made.push(record);
    this.templateOf.push(KEPT);
    this.kept.push(record);
  }

  /** Every record, in order (a new array; the records are made once and shared by later calls). */
  all(): T[] {
    if (this.templateOf.length > 0) this.makeAll();
    return this.made.slice();
  }

  /** The record at `index` (made, with all the others, when the list is still compact). */
  at(index: number): T | undefined {
    if (this.templateOf.length > 0) this.makeAll();
    return this.made[index];
  }

  /** An independent copy: later records of one are not in the other (the records so far are made and shared). */
  fork(): CompactList<T> {
    return CompactList.of(this.all());
  }

  static of<T extends object>(records: readonly T[]): CompactList<T> {
    const list = new CompactList<T>();
    list.made = [...records];
    return list;
  }

  /** The record's template (made when new), its integers appended (its other values to `loose` when the template has none). */
  private template(record: Record<string, unknown>): number {
    const others: unknown[] = [];
    const signature = this.encode(record, 1, others);
    let key: string | undefined = signature;
    for (let k = 0; k < others.length && key !== undefined; k++) {
      const part = keyOf(others[k], this.objects);
      key = part === undefined && this.templates.length < MAX_TEMPLATES ? this.numbered(others[k], key) : part === undefined ? undefined : `${key},${part}`;
    }
    const id = key === undefined ? undefined : this.templateIds.get(key);
    if (id !== undefined) return id;
    if (key !== undefined && this.templates.length < MAX_TEMPLATES) return this.added(key, { shape: shapeOf(record, 1), others });
    this.loose.push(...others);
    const bare = this.templateIds.get(`${signature}#`);
    return bare ?? this.added(`${signature}#`, { shape: shapeOf(record, 1), others: undefined });
  }

  /** `key` with an object's number (a new one) appended. */
  private numbered(value: unknown, key: string): string {
    const id = this.objects.size;
    this.objects.set(value, id);
    return `${key},o${id}`;
  }

  private added(key: string, template: Template): number {
    this.templateIds.set(key, this.templates.length);
    this.templates.push(template);
    return this.templates.length - 1;
  }

  /** Appends the record's integers (depth first), its other values to `others`, and returns its signature. */
  private encode(record: Record<string, unknown>, depth: number, others: unknown[]): string {
    let signature = '{';
    for (const key in record) {
      const value = record[key];
      const name = JSON.stringify(key);
      if (int32(value)) {
        this.ints.push(value);
        signature += `${name}:i,`;
      } else if (inline(value, depth)) {
        signature += `${name}:${this.encode(value, depth + 1, others)},`;
      } else {
        others.push(value);
        signature += `${name}:o,`;
      }
    }
    return `${signature}}`;
  }

  private makeAll(): void {
    const ints = this.ints.reader();
    const at = { other: 0 };
    const loose = { other: 0 };
    let kept = 0;
    const ids = this.templateOf.reader();
    for (let i = 0, n = this.templateOf.length; i < n; i++) {
      const template = this.templates[ids.next()];
      if (template === undefined) this.made.push(this.kept[kept++] as T);
      else if (template.others === undefined) this.made.push(make(template.shape, ints, this.loose, loose) as T);
      else {
        at.other = 0;
        this.made.push(make(template.shape, ints, template.others, at) as T);
      }
    }
    this.templateOf = new IntRun();
    this.ints = new IntRun();
    this.kept = [];
    this.loose = [];
  }
}

/** The shape of a plain record, as `encode` reads it. */
function shapeOf(record: Record<string, unknown>, depth: number): Shape {
  const keys: string[] = [];
  const kinds: Kind[] = [];
  for (const key in record) {
    const value = record[key];
    keys.push(key);
    kinds.push(int32(value) ? INT : inline(value, depth) ? shapeOf(value, depth + 1) : OTHER);
  }
  return { keys, kinds };
}

/** A record of `shape` from the next integers and the other values at `at` (moved past them). */
function make(shape: Shape, ints: IntReader, others: readonly unknown[], at: { other: number }): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (let k = 0; k < shape.keys.length; k++) {
    const kind = shape.kinds[k] as Kind;
    record[shape.keys[k] as string] = kind === INT ? ints.next() : kind === OTHER ? others[at.other++] : make(kind, ints, others, at);
  }
  return record;
}
