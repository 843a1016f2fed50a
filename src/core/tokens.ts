/**
 * Token counts for boundaries and cache impact, with js-tiktoken's offline
 * encodings (o200k_base by default, cl100k_base optional). These approximate
 * the provider's own tokenizer (Anthropic's is not public; OpenAI's chat
 * template adds a few tokens per message): treat counts as estimates.
 *
 * Counts are cached per rendered string, so history repeated across the
 * requests of a log is counted once.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BpeCounter, type PackedRanks, type RankData } from './bpe';
import { unpackRanks } from './bpe-packed';
import type { TokenEncoding } from './results';

export interface TokenCounter {
  readonly encoding: TokenEncoding;
  /** Tokens in a text (cached per string). */
  count(text: string): number;
  /** Tokens in a text, not cached (for a caller that keeps the counts it needs: the engine's renders, per message). */
  countUncached?(text: string): number;
}

/**
 * Building a counter reads the rank table (~5 ms packed, ~50 ms from its text), so each encoding is built
 * once per process. The counters are immutable after construction (their
 * scratch buffers aside); this memo is the engine's only module-level state.
 */
const encoders = new Map<TokenEncoding, BpeCounter>();

/** The encodings a counter can be built with (a rank table of js-tiktoken each). */
export const TOKEN_ENCODINGS: readonly TokenEncoding[] = ['o200k_base', 'cl100k_base'];

function encoderFor(encoding: TokenEncoding): BpeCounter {
  // A library caller's option, not typed at run time: no other name may reach `require`.
  if (!TOKEN_ENCODINGS.includes(encoding)) {
    throw new TypeError(`tokens: unknown encoding ${JSON.stringify(String(encoding).slice(0, 40))}; use ${TOKEN_ENCODINGS.map((e) => `'${e}'`).join(', ')} or false`);
  }
  let encoder = encoders.get(encoding);
  if (!encoder) encoders.set(encoding, (encoder = new BpeCounter(loadRanks(encoding))));
  return encoder;
}

/**
 * A rank table is 2–4 MB of JavaScript, so none is bundled: the build copies
 * them next to the bundles (`dist/ranks/`) and the one asked for loads on first
 * use, keeping the extension's bundle small. The build also writes each one
 * packed (`<encoding>.bin`, src/core/bpe-packed.ts), read first when there.
 * Run from source, they come from the package.
 */
export function loadRanks(encoding: TokenEncoding, dir = join(__dirname, 'ranks')): RankData | PackedRanks {
  const packed = readPacked(join(dir, `${encoding}.bin`));
  const ranks = packed && unpackRanks(packed, encoding);
  if (ranks) return ranks;
  const shipped = join(dir, `${encoding}.js`);
  const request = existsSync(shipped) ? shipped : `js-tiktoken/ranks/${encoding}`;
  const loaded = require(request) as RankData | { default: RankData };
  return 'default' in loaded ? loaded.default : loaded;
}

/** The packed table's bytes; undefined when it is absent or cannot be read (a directory in its place, no permission): the text table is read instead. */
function readPacked(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/**
 * Counting is linear in the text. tiktoken's byte-pair merge is quadratic in
 * the length of one pre-tokenizer piece, so a text is cut into runs of one
 * character class (letters, digits, punctuation, whitespace; anything non-ASCII
 * counts as letters) and encoded in chunks of at most `CHUNK` characters cut
 * where a run starts (before whitespace when there is some): where tiktoken's
 * own pieces end, so prose counts as when encoded whole. Two cases are
 * estimated, linearly, from exact counts of samples:
 * - a run longer than `LONG_RUN` characters (letters with no space, Thai or
 *   CJK without punctuation, DNA, a line of spaces or braces): its first
 *   `SAMPLE` characters (whitespace: 128) are encoded and scaled to the run's length;
 * - a text longer than `ESTIMATE_ABOVE` characters: `SAMPLES` evenly spaced
 *   slices are counted and scaled.
 * See docs/limits.md.
 */
export const CHUNK = 2048;
export const LONG_RUN = 32;
const SAMPLE = 16;
/** Whitespace runs: tiktoken has single tokens for up to 128 spaces, so sample that many (one lookup, cheap). */
const WHITESPACE_SAMPLE = 128;
export const ESTIMATE_ABOVE = 1 << 20;
const SAMPLES = 64;
const SAMPLE_SLICE = 1024;

type CharClass = 0 | 1 | 2 | 3;

/** The class of each ASCII character: 0 whitespace, 1 letter, 2 digit, 3 punctuation (anything non-ASCII counts as a letter). */
const ASCII_CLASSES = (() => {
  const classes = new Uint8Array(128).fill(3);
  for (let code = 0; code < 128; code++) {
    if (code === 32 || (code >= 9 && code <= 13)) classes[code] = 0;
    else if (code >= 48 && code <= 57) classes[code] = 2;
    else if ((code >= 65 && code <= 90) || (code >= 97 && code <= 122)) classes[code] = 1;
  }
  return classes;
})();

/** `length` characters from `from`, not splitting a surrogate pair. */
function sliceWhole(text: string, from: number, length: number): string {
  const end = Math.min(text.length, from + length);
  const last = text.charCodeAt(end - 1);
  return text.slice(from, end < text.length && last >= 0xd800 && last <= 0xdbff ? end + 1 : end);
}

/**
 * Tokens in a text, linear in its length (see above). The runs are found in
 * the loop itself, a table lookup per character: it reads every character
 * of every text counted, and the CLI's V8 inlines no call (src/cli/jit.ts).
 */
export function countLinear(text: string, encode: (text: string) => number): number {
  const length = text.length;
  let n = 0;
  let chunkStart = 0;
  let lastSpace = -1;
  for (let i = 0; i < length; ) {
    const first = text.charCodeAt(i);
    const cls = first < 128 ? (ASCII_CLASSES[first] as CharClass) : 1;
    let end = i + 1;
    for (; end < length; end++) {
      const code = text.charCodeAt(end);
      if ((code < 128 ? ASCII_CLASSES[code] : 1) !== cls) break;
    }
    if (end - i > LONG_RUN) {
      n += encode(text.slice(chunkStart, i));
      const sample = sliceWhole(text, i, cls === 0 ? WHITESPACE_SAMPLE : SAMPLE);
      n += Math.round((encode(sample) * (end - i)) / sample.length);
      chunkStart = end;
      lastSpace = -1;
    } else if (end - chunkStart > CHUNK) {
      const cut = lastSpace > chunkStart ? lastSpace : i;
      n += encode(text.slice(chunkStart, cut));
      chunkStart = cut;
      lastSpace = -1;
    }
    if (cls === 0) lastSpace = i;
    i = end;
  }
  return n + encode(text.slice(chunkStart));
}

/** Tokens in a very long text, from evenly spaced samples. */
function estimateLong(text: string, encode: (text: string) => number): number {
  const step = Math.floor(text.length / SAMPLES);
  let tokens = 0;
  let chars = 0;
  for (let k = 0; k < SAMPLES; k++) {
    const slice = sliceWhole(text, k * step, SAMPLE_SLICE);
    tokens += countLinear(slice, encode);
    chars += slice.length;
  }
  return Math.round((tokens * text.length) / chars);
}

export function createTokenCounter(encoding: TokenEncoding = 'o200k_base'): TokenCounter {
  const encoder = encoderFor(encoding);
  const cache = new Map<string, number>();
  const encode = (text: string) => (text === '' ? 0 : encoder.count(text));
  const countUncached = (text: string) => (text.length > ESTIMATE_ABOVE ? estimateLong(text, encode) : countLinear(text, encode));
  return {
    encoding,
    count(text: string): number {
      let n = cache.get(text);
      if (n === undefined) cache.set(text, (n = countUncached(text)));
      return n;
    },
    countUncached,
  };
}
