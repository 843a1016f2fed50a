/**
 * Which files the CLI checks: named files (their format must be recognised)
 * and directory walks (unrecognised files are skipped silently; unreadable ones
 * are reported). Names that are not valid UTF-8 are kept as bytes, so any file
 * can be checked; they are shown with the bad bytes as `\xNN`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FormatId } from '../core/model';
import { ADAPTERS, adapterFor, detectFormat, formatsHint, unreadFormat } from '../core/formats/registry';
import { displayName, inputFromFile } from '../core/io';
import type { Limits } from '../core/limits';
import type { FormatAdapter, TranscriptInput } from '../core/transcript';

/** Directories a walk never enters. */
const SKIPPED_DIRS = new Set(['node_modules', '.git']);

export const FORMAT_IDS: readonly string[] = ADAPTERS.map((a) => a.id);

/** A file path as given to `fs`: a string, or the raw bytes of a name that is not valid UTF-8. */
export type FilePath = string | Buffer;

export interface Located {
  readonly path: FilePath;
  readonly format: FormatId;
}

export interface Expanded {
  readonly files: Located[];
  /** One-line reasons (file not readable, format not recognised). */
  readonly troubles: string[];
}

/** Resolves FILE|DIR arguments to the files to check, in argument order (walks sorted). */
export function expandPaths(paths: readonly string[], forced?: FormatId): Expanded {
  const out: Expanded = { files: [], troubles: [] };
  for (const given of paths) {
    const p = rawPath(given);
    const stat = statOf(p);
    if (typeof stat === 'string') out.troubles.push(`${nameOf(p)}: cannot read (${stat})`);
    else if (stat.isDirectory()) expandDirectory(p, forced, out);
    else expandNamedFile(p, forced, out);
  }
  return out;
}

/** The name to show for a path. */
export function nameOf(file: FilePath): string {
  return typeof file === 'string' ? file : displayName(file);
}

/**
 * A command-line path as `fs` needs it. Node decodes arguments as UTF-8, so a
 * name with other bytes arrives with U+FFFD in it: the one directory entry
 * whose name decodes to the same text is the file meant.
 */
function rawPath(given: string): FilePath {
  if (!given.includes('\ufffd') || fs.existsSync(given)) return given;
  const dir = path.dirname(given);
  let names: Buffer[];
  try {
    names = fs.readdirSync(dir, { encoding: 'buffer' });
  } catch {
    return given;
  }
  const matches = names.filter((name) => name.toString('utf8') === path.basename(given));
  return matches.length === 1 && matches[0] ? Buffer.concat([Buffer.from(`${dir}${path.sep}`), matches[0]]) : given;
}

function expandNamedFile(file: FilePath, forced: FormatId | undefined, out: Expanded): void {
  if (forced) {
    const head = headOf(file);
    if (head.ok) out.files.push({ path: file, format: forced });
    else out.troubles.push(`${nameOf(file)}: cannot read (${head.reason})`);
    return;
  }
  const format = recognise(file);
  if (format.kind === 'format') out.files.push({ path: file, format: format.id });
  else if (format.kind === 'unreadable') out.troubles.push(`${nameOf(file)}: cannot read (${format.reason})`);
  else out.troubles.push(`${nameOf(file)}: format not recognised${format.unread ? ` (it looks like ${format.unread}, which Prefix Lens does not read yet)` : ''}. ${formatsHint()}. Pass --format to name one.`);
}

function expandDirectory(dir: FilePath, forced: FormatId | undefined, out: Expanded): void {
  const before = out.files.length;
  const troubles = out.troubles.length;
  for (const file of walk(dir, out.troubles)) {
    const format = recognise(file, forced);
    if (format.kind === 'format') out.files.push({ path: file, format: format.id });
    else if (format.kind === 'unreadable') out.troubles.push(`${nameOf(file)}: cannot read (${format.reason})`);
  }
  if (out.files.length === before && out.troubles.length === troubles) {
    out.troubles.push(`${nameOf(dir)}: no transcript found in this directory. ${formatsHint()}.`);
  }
}

/** Every regular file under `dir`, depth first, entries sorted by name; unreadable directories are reported. */
function* walk(dir: FilePath, troubles: string[]): Generator<FilePath> {
  let entries: fs.Dirent<Buffer>[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true, encoding: 'buffer' });
  } catch (error) {
    troubles.push(`${nameOf(dir)}: cannot read directory (${reasonOf(error)})`);
    return;
  }
  entries.sort((a, b) => Buffer.compare(a.name, b.name));
  for (const entry of entries) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name.toString('utf8'))) yield* walk(full, troubles);
    } else if (entry.isFile() || (entry.isSymbolicLink() && isFile(full))) {
      yield full;
    }
  }
}

/** `dir/name`, as a string when the name is valid UTF-8, else as bytes. */
function join(dir: FilePath, name: Buffer): FilePath {
  const text = name.toString('utf8');
  if (typeof dir === 'string' && Buffer.from(text, 'utf8').equals(name)) return path.join(dir, text);
  return Buffer.concat([Buffer.from(dir), Buffer.from(path.sep), name]);
}

type Recognition =
  | { readonly kind: 'format'; readonly id: FormatId }
  /** `unread`: the name of a known format no reader reads, when the file looks like one. */
  | { readonly kind: 'unknown'; readonly unread?: string }
  | { readonly kind: 'unreadable'; readonly reason: string };

/** Sniffs a file's first characters with every adapter (or only the forced one). */
export function recognise(file: FilePath, only?: FormatId): Recognition {
  const head = headOf(file);
  if (!head.ok) return { kind: 'unreadable', reason: head.reason };
  const adapter = only === undefined ? detectFormat(head.text) : sniffAs(only, head.text);
  if (adapter) return { kind: 'format', id: adapter.id };
  const unread = only === undefined ? unreadFormat(head.text) : undefined;
  return unread ? { kind: 'unknown', unread } : { kind: 'unknown' };
}

function sniffAs(id: FormatId, head: string): FormatAdapter | undefined {
  const adapter = adapterFor(id);
  try {
    return adapter?.sniff(head) ? adapter : undefined;
  } catch {
    return undefined;
  }
}

type Head = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly reason: string };

/** The file's first characters (what adapters sniff), or why it cannot be read. */
function headOf(file: FilePath): Head {
  try {
    return { ok: true, text: inputFromFile(file).head() };
  } catch (error) {
    return { ok: false, reason: reasonOf(error) };
  }
}

/** Follows a symlink to a regular file (symlinked directories are not entered: no loops). */
function isFile(file: FilePath): boolean {
  const stat = statOf(file);
  return typeof stat !== 'string' && stat.isFile();
}

function statOf(file: FilePath): fs.Stats | string {
  try {
    return fs.statSync(file);
  } catch (error) {
    return reasonOf(error);
  }
}

function reasonOf(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  if (e.code === 'ENOENT') return 'no such file or directory';
  if (e.code === 'EACCES') return 'permission denied';
  if (e.code === 'EISDIR') return 'is a directory';
  return e.code ?? (e.message || String(error));
}

/** Opens a file as the engine reads it (streamed line by line, within the limits). */
export function openTranscript(file: FilePath, limits: Partial<Limits>): TranscriptInput {
  return inputFromFile(file, limits);
}
