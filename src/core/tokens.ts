/**
 * Token counts for boundaries and cache impact, with js-tiktoken's offline
 * encodings (o200k_base by default, cl100k_base optional). These approximate
 * the provider's own tokenizer (Anthropic's is not public; OpenAI's chat
 * template adds a few tokens per message): treat counts as estimates.
 *
 * Counts are cached per rendered string, so history repeated across the
 * requests of a log is counted once.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Tiktoken, type TiktokenBPE } from 'js-tiktoken/lite';
import type { TokenEncoding } from './results';

export interface TokenCounter {
  readonly encoding: TokenEncoding;
  /** Tokens in a text (cached per string). */
  count(text: string): number;
}

/**
 * Building an encoder costs about a second (it decodes the rank table), so
 * each encoding is built once per process. The encoders are immutable after
 * construction; this memo is the engine's only module-level state.
 */
const encoders = new Map<TokenEncoding, Tiktoken>();

function encoderFor(encoding: TokenEncoding): Tiktoken {
  let encoder = encoders.get(encoding);
  if (!encoder) encoders.set(encoding, (encoder = new Tiktoken(loadRanks(encoding))));
  return encoder;
}

/**
 * A rank table is 2–4 MB of JavaScript, so none is bundled: the build copies
 * them next to the bundles (`dist/ranks/`) and the one asked for loads on first
 * use, keeping the extension's bundle small. Run from source, they come from
 * the package.
 */
function loadRanks(encoding: TokenEncoding): TiktokenBPE {
  const shipped = join(__dirname, 'ranks', `${encoding}.js`);
  const request = existsSync(shipped) ? shipped : `js-tiktoken/ranks/${encoding}`;
  const loaded = require(request) as TiktokenBPE | { default: TiktokenBPE };
  return 'default' in loaded ? loaded.default : loaded;
}

/** Texts longer than this are counted in pieces (tiktoken's regex pass is slow on huge strings). */
const PIECE = 64 * 1024;

export function createTokenCounter(encoding: TokenEncoding = 'o200k_base'): TokenCounter {
  const encoder = encoderFor(encoding);
  const cache = new Map<string, number>();
  const encode = (text: string) => encoder.encode(text, [], []).length;
  return {
    encoding,
    count(text: string): number {
      let n = cache.get(text);
      if (n === undefined) {
        n = 0;
        for (let i = 0; i < text.length; i += PIECE) n += encode(text.slice(i, i + PIECE));
        cache.set(text, n);
      }
      return n;
    },
  };
}
