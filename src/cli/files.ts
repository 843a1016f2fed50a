/**
 * Which files the CLI checks: named files (their format must be recognised)
 * and directory walks (unrecognised files are skipped silently).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FormatId } from '../core/model';
import { ADAPTERS, adapterFor, detectFormat, formatsHint } from '../core/formats/registry';
import { inputFromFile } from '../core/io';
import type { FormatAdapter, TranscriptInput } from '../core/transcript';

/** Directories a walk never enters. */
const SKIPPED_DIRS = new Set(['node_modules', '.git']);

export const FORMAT_IDS: readonly string[] = ADAPTERS.map((a) => a.id);

export interface Located {
  readonly path: string;
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
  for (const p of paths) {
    const stat = statOf(p);
    if (typeof stat === 'string') out.troubles.push(`${p}: cannot read (${stat})`);
    else if (stat.isDirectory()) expandDirectory(p, forced, out);
    else expandNamedFile(p, forced, out);
  }
  return out;
}

function expandNamedFile(file: string, forced: FormatId | undefined, out: Expanded): void {
  if (forced) {
    const head = headOf(file);
    if (head.ok) out.files.push({ path: file, format: forced });
    else out.troubles.push(`${file}: cannot read (${head.reason})`);
    return;
  }
  const format = recognise(file);
  if (format.kind === 'format') out.files.push({ path: file, format: format.id });
  else if (format.kind === 'unreadable') out.troubles.push(`${file}: cannot read (${format.reason})`);
  else out.troubles.push(`${file}: format not recognised. ${formatsHint()}. Pass --format to name one.`);
}

function expandDirectory(dir: string, forced: FormatId | undefined, out: Expanded): void {
  const before = out.files.length;
  for (const file of walk(dir)) {
    const format = recognise(file, forced);
    if (format.kind === 'format') out.files.push({ path: file, format: format.id });
  }
  if (out.files.length === before) out.troubles.push(`${dir}: no transcript found in this directory. ${formatsHint()}.`);
}

/** Every regular file under `dir`, depth first, entries sorted by name. */
function* walk(dir: string): Generator<string> {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) yield* walk(full);
    } else if (entry.isFile() || (entry.isSymbolicLink() && isFile(full))) {
      yield full;
    }
  }
}

type Recognition =
  | { readonly kind: 'format'; readonly id: FormatId }
  | { readonly kind: 'unknown' }
  | { readonly kind: 'unreadable'; readonly reason: string };

/** Sniffs a file's first characters with every adapter (or only the forced one). */
export function recognise(file: string, only?: FormatId): Recognition {
  const head = headOf(file);
  if (!head.ok) return { kind: 'unreadable', reason: head.reason };
  const adapter = only === undefined ? detectFormat(head.text) : sniffAs(only, head.text);
  return adapter ? { kind: 'format', id: adapter.id } : { kind: 'unknown' };
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
function headOf(file: string): Head {
  try {
    return { ok: true, text: inputFromFile(file).head() };
  } catch (error) {
    return { ok: false, reason: reasonOf(error) };
  }
}

/** Follows a symlink to a regular file (symlinked directories are not entered: no loops). */
function isFile(file: string): boolean {
  const stat = statOf(file);
  return typeof stat !== 'string' && stat.isFile();
}

function statOf(file: string): fs.Stats | string {
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

/** Opens a file as the engine reads it (streamed line by line). */
export function openTranscript(file: string): TranscriptInput {
  return inputFromFile(file);
}
