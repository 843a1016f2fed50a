/**
 * A bounded reader for the zip entries of an Inspect `.eval`: the central
 * directory is read first, entries whose data overlap (a zip bomb's trick) and
 * more than `maxZipEntries` are refused, and inflating stops as soon as all
 * entries together pass `maxDecompressedBytes`. Exceeding a bound throws a
 * `LimitError` (the check then stops with exit 2); a malformed zip throws a
 * plain `Error`.
 */
import type * as Fflate from 'fflate';
import { formatBytes, LimitError, type Limits } from '../limits';

interface Entry {
  readonly name: string;
  readonly method: number;
  readonly start: number;
  readonly size: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const PUSH_BYTES = 16 * 1024;

/** The entries whose names `keep` accepts, inflated, within the limits. */
export function readZip(bytes: Uint8Array, keep: (name: string) => boolean, limits: Limits): Map<string, Uint8Array> {
  const entries = centralDirectory(bytes, limits).filter((e) => keep(e.name));
  const out = new Map<string, Uint8Array>();
  const budget = { left: limits.maxDecompressedBytes, limit: limits.maxDecompressedBytes };
  for (const entry of entries) out.set(entry.name, inflateEntry(bytes, entry, budget));
  return out;
}

function centralDirectory(bytes: Uint8Array, limits: Limits): Entry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = findEnd(view);
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  if (count === 0xffff || at === 0xffffffff) throw new Error('zip64 archives are not supported');
  if (count > limits.maxZipEntries) throw new LimitError(`the zip has ${count} entries, more than the maxZipEntries limit (${limits.maxZipEntries})`);
  const entries: Entry[] = [];
  for (let i = 0; i < count; i++) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== CENTRAL) throw new Error('broken central directory');
    const nameLength = view.getUint16(at + 28, true);
    const name = new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength));
    entries.push(localEntry(view, name, view.getUint16(at + 10, true), view.getUint32(at + 20, true), view.getUint32(at + 42, true)));
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  refuseOverlaps(entries);
  return entries;
}

function findEnd(view: DataView): number {
  for (let i = view.byteLength - 22; i >= Math.max(0, view.byteLength - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === EOCD) return i;
  }
  throw new Error('no end of central directory');
}

function localEntry(view: DataView, name: string, method: number, size: number, offset: number): Entry {
  if (offset + 30 > view.byteLength || view.getUint32(offset, true) !== LOCAL) throw new Error(`${name}: broken local header`);
  const start = offset + 30 + view.getUint16(offset + 26, true) + view.getUint16(offset + 28, true);
  if (start + size > view.byteLength) throw new Error(`${name}: data past the end of the file`);
  return { name, method, start, size };
}

function refuseOverlaps(entries: readonly Entry[]): void {
  const sorted = [...entries].sort((a, b) => a.start - b.start);
  for (let i = 1; i < sorted.length; i++) {
    const previous = sorted[i - 1] as Entry;
    const entry = sorted[i] as Entry;
    if (entry.start < previous.start + previous.size) {
      throw new LimitError(`zip entries ${previous.name} and ${entry.name} share their compressed data (overlapping entries, a zip bomb): refused`);
    }
  }
}

function inflateEntry(bytes: Uint8Array, entry: Entry, budget: { left: number; limit: number }): Uint8Array {
  const data = bytes.subarray(entry.start, entry.start + entry.size);
  const chunks: Uint8Array[] = [];
  const take = (chunk: Uint8Array) => {
    budget.left -= chunk.length;
    if (budget.left < 0) throw new LimitError(`the .eval inflates to more than the maxDecompressedBytes limit (${formatBytes(budget.limit)})`);
    chunks.push(chunk);
  };
  if (entry.method === 0) take(data);
  else if (entry.method === 8) {
    const inflate = new (inflater())((chunk) => take(chunk));
    for (let i = 0; i < data.length; i += PUSH_BYTES) inflate.push(data.subarray(i, i + PUSH_BYTES), i + PUSH_BYTES >= data.length);
    if (data.length === 0) inflate.push(new Uint8Array(0), true);
  } else throw new Error(`${entry.name}: compression method ${entry.method} is not supported`);
  return concat(chunks);
}

/**
 * fflate's streaming inflater, loaded on the first deflated entry: fflate's
 * module loads Node's worker_threads as it starts (for its asynchronous
 * API, not used here), ~2.5 ms of CPU in every process that never reads an
 * `.eval`. esbuild evaluates a required module at the first `require`.
 */
function inflater(): typeof Fflate.Inflate {
  return (require('fflate') as typeof Fflate).Inflate;
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}
