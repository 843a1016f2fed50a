/**
 * A rank table packed as the arrays `BpeCounter` looks tokens up in, built
 * already (`npm run build` writes `dist/ranks/<encoding>.bin` from
 * js-tiktoken's table). Building them from the table's text costs 40–60 ms of
 * CPU in every process, about a tenth of checking a 100 MB request log;
 * reading them is a file read and a few views.
 *
 * Layout, 32-bit integers in the machine's order (a file of the other order
 * fails the magic number and is not used): a header of `HEADER` integers
 * (magic, tokens n, bytes b, slots c, pattern bytes p, name bytes e), then
 * `starts` (n + 1), `ranks` (n), `slots` (c), the tokens' bytes (b), the
 * pattern in UTF-8 (p) and the encoding's name (e).
 * The file is trusted as the bundle beside it is (the build writes both): its
 * header, length and encoding are checked and a few tokens looked up (slots
 * placed by another build's hash find none: `npm run build -- --watch` leaves
 * the last build's file), its arrays are not walked (a walk over the 700,000
 * entries cost as much as the read).
 */
import { findsItsTokens, rankArrays, type PackedRanks, type RankData } from './bpe';

const MAGIC = 0x32524c50; // "PLR2" read as little-endian
const HEADER = 6;

/** The packed form of the rank table of encoding `name`. */
export function packRanks(data: RankData, name: string): Uint8Array {
  const { bytes, starts, ranks, slots } = rankArrays(data.bpe_ranks);
  const [pattern, encoding] = [data.pat_str, name].map((text) => new TextEncoder().encode(text)) as [Uint8Array, Uint8Array];
  const header = new Int32Array([MAGIC, ranks.length, bytes.length, slots.length, pattern.length, encoding.length]);
  const parts: Uint8Array[] = [header, starts, ranks, slots].map((a) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0) + bytes.length + pattern.length + encoding.length);
  let at = 0;
  for (const part of [...parts, bytes, pattern, encoding]) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** The rank table of encoding `name` in a packed file, or undefined when it is not one (another format, byte order, encoding or build, a cut file). */
export function unpackRanks(file: Uint8Array, name: string): PackedRanks | undefined {
  const data = file.byteOffset % 4 === 0 ? file : file.slice();
  if (data.length < HEADER * 4) return undefined;
  const ints = (at: number, length: number) => new Int32Array(data.buffer, data.byteOffset + at, length);
  const [magic, n, b, c, p, e] = Array.from(ints(0, HEADER));
  if (magic !== MAGIC || n === undefined || b === undefined || c === undefined || p === undefined || e === undefined) return undefined;
  if (n < 0 || b < 0 || p < 0 || e < 0 || c < 2 * n || c < 1 || (c & (c - 1)) !== 0) return undefined;
  const intsEnd = 4 * (HEADER + 2 * n + 1 + c);
  if (data.length !== intsEnd + b + p + e) return undefined;
  if (new TextDecoder().decode(data.subarray(intsEnd + b + p)) !== name) return undefined;
  const starts = ints(4 * HEADER, n + 1);
  const ranks = ints(4 * (HEADER + n + 1), n);
  const slots = ints(4 * (HEADER + 2 * n + 1), c);
  const bytes = data.subarray(intsEnd, intsEnd + b);
  const pat_str = new TextDecoder().decode(data.subarray(intsEnd + b, intsEnd + b + p));
  const arrays = { bytes, starts, ranks, slots };
  return findsItsTokens(arrays) ? { pat_str, arrays } : undefined;
}
