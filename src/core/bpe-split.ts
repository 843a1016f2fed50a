/**
 * The rank tables' pre-tokenizer patterns (`pat_str`) read by hand on ASCII
 * text: where the pattern's piece that starts at a place ends, as the
 * sticky regex finds it, without running the regex. The regex has Unicode
 * property classes, so V8 compiles it (to bytecode at its first use, to
 * machine code at its second: ~3 ms each, twice per pattern) in every
 * process, and a sticky `test` per piece costs more than the piece's rank
 * lookup; a check of an ASCII log needs neither.
 *
 * On ASCII the classes are simple: \p{L} is A-Z and a-z (\p{Lu} A-Z, \p{Ll}
 * a-z; no ASCII character is Lt, Lm, Lo or M), \p{N} is 0-9, \s is \t \n \v
 * \f \r and space. A piece is decided only when every character the
 * decision reads is ASCII, the one that ends a run included (a non-ASCII
 * character there could be a letter, digit or space that continues it);
 * otherwise the splitter answers -1 and the caller runs the regex for that
 * piece. `test/unit/bpe-split.test.ts` compares with the regex on random
 * texts of each pattern's edge cases.
 */

/** ASCII character kinds, as the patterns' classes see them. */
const UPPER = 1;
const LOWER = 2;
const DIGIT = 3;
/** \s but not a line break: \t \v \f and space. */
const BLANK = 4;
/** \r and \n. */
const BREAK = 5;
/** Neither \s, \p{L} nor \p{N}: punctuation, symbols, control characters. */
const OTHER = 6;

const KINDS = (() => {
  const kinds = new Uint8Array(128).fill(OTHER);
  for (let c = 65; c <= 90; c++) kinds[c] = UPPER;
  for (let c = 97; c <= 122; c++) kinds[c] = LOWER;
  for (let c = 48; c <= 57; c++) kinds[c] = DIGIT;
  for (const c of [9, 11, 12, 32]) kinds[c] = BLANK;
  kinds[10] = BREAK;
  kinds[13] = BREAK;
  return kinds;
})();

const O200K =
  "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const CL100K = "('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

/**
 * The two patterns differ in three places. o200k: a word is upper case
 * letters then lower case ones (`[\p{Lu}…]*[\p{Ll}…]+`, else
 * `[\p{Lu}…]+[\p{Ll}…]*`), a contraction (`'s|'t|…`, any case) may end it,
 * a punctuation run is followed by `[\r\n/]*`. cl100k: a word is any
 * letters, a contraction is an alternative of its own tried first, a
 * punctuation run is followed by `[\r\n]*`. Keyed by the pattern's text:
 * true for o200k.
 */
const PATTERNS = new Map<string, boolean>([
  [O200K, true],
  [CL100K, false],
]);

/** Which of the two patterns `pattern` is (`pieceEnd`'s first argument), or undefined for another (the regex is used throughout). */
export function splitVariant(pattern: string): boolean | undefined {
  return PATTERNS.get(pattern);
}

/**
 * Where the piece at `at` ends, or -1 when it cannot be told on ASCII (the
 * caller runs the pattern). One function, its loops written out: the CLI's
 * V8 inlines nothing (src/cli/jit.ts), and this runs once per piece.
 */
export function pieceEnd(o200k: boolean, text: string, at: number): number {
  const n = text.length;
  const code = text.charCodeAt(at);
  if (code >= 128) return -1;
  const kind = KINDS[code] as number;
  if (!o200k && code === 39) {
    const end = contractionEnd(text, at);
    if (end > at) return end;
  }
  let i = at;
  if (kind === UPPER || kind === LOWER || (kind !== BREAK && kind !== DIGIT && i + 1 < n && isLetter(text.charCodeAt(i + 1)))) {
    // A word, after one character that is not a letter, digit or line break (`[^\r\n\p{L}\p{N}]?`).
    if (kind !== UPPER && kind !== LOWER) i++;
    let c = text.charCodeAt(i);
    if (o200k) {
      // Upper case letters then lower case ones, either run empty but not both: `[Lu]*[Ll]+`, else `[Lu]+[Ll]*`.
      while (c >= 65 && c <= 90) c = text.charCodeAt(++i);
      while (c >= 97 && c <= 122) c = text.charCodeAt(++i);
    } else {
      while ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) c = text.charCodeAt(++i);
    }
    // Past the end `c` is NaN: the end of the text ends the word.
    if (c >= 128) return -1;
    return o200k && c === 39 ? Math.max(i, contractionEnd(text, i)) : i;
  }
  if (kind === DIGIT) {
    // `\p{N}{1,3}`; a non-ASCII character after fewer than three digits could be a digit.
    i++;
    while (i < at + 3 && i < n && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
    return i < at + 3 && i < n && text.charCodeAt(i) >= 128 ? -1 : i;
  }
  if (i + 1 < n && text.charCodeAt(i + 1) >= 128 && kind !== BREAK) return -1;
  if (kind === OTHER || (code === 32 && i + 1 < n && KINDS[text.charCodeAt(i + 1)] === OTHER)) return punctuationEnd(o200k, text, kind === OTHER ? i : i + 1);
  return spaceEnd(text, at);
}

function isLetter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

/** The end of `'s`, `'t`, `'re`, `'ve`, `'m`, `'ll` or `'d` (any case) at `at`, or -1. */
function contractionEnd(text: string, at: number): number {
  if (text.charCodeAt(at) !== 39) return -1;
  const a = text.charCodeAt(at + 1) | 0x20;
  if (a === 0x73 || a === 0x74 || a === 0x6d || a === 0x64) return at + 2; // s t m d
  const b = text.charCodeAt(at + 2) | 0x20;
  if ((a === 0x72 && b === 0x65) || (a === 0x76 && b === 0x65) || (a === 0x6c && b === 0x6c)) return at + 3; // re ve ll
  return -1;
}

/** ` ?[^\s\p{L}\p{N}]+` from `from` (past the space), then `[\r\n/]*` (o200k) or `[\r\n]*` (cl100k). */
function punctuationEnd(o200k: boolean, text: string, from: number): number {
  const n = text.length;
  let i = from;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c >= 128) return -1;
    if (KINDS[c] !== OTHER) break;
    i++;
  }
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13 || (c === 47 && o200k)) i++;
    else return i;
  }
}

/**
 * A run of whitespace W from `at`: `\s*[\r\n]+` ends after W's last line
 * break; else `\s+(?!\S)` is W but its last character when something
 * follows, all of W at the end of the text; else `\s+` (one character).
 */
function spaceEnd(text: string, at: number): number {
  const n = text.length;
  let i = at;
  let afterBreak = -1;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c >= 128) return -1;
    const kind = KINDS[c];
    if (kind === BREAK) afterBreak = i + 1;
    else if (kind !== BLANK) break;
    i++;
  }
  if (afterBreak > 0) return afterBreak;
  if (i >= n || i - at === 1) return i;
  return i - 1;
}

/** Whether text[i] and text[i + 1] are a surrogate pair (one code point, 4 bytes of UTF-8). */
export function isPairAt(text: string, i: number): boolean {
  const code = text.charCodeAt(i);
  if (code < 0xd800 || code > 0xdbff || i + 1 >= text.length) return false;
  const low = text.charCodeAt(i + 1);
  return low >= 0xdc00 && low <= 0xdfff;
}

/** Where text[from, to) ends in the text's UTF-8 (`TextEncoder`'s: a lone surrogate is U+FFFD, 3 bytes), given where it starts. */
export function utf8End(text: string, from: number, to: number, byte: number): number {
  let b = byte;
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) b += 1;
    else if (code < 0x800) b += 2;
    else if (isPairAt(text, i)) {
      b += 4;
      i++;
    } else b += 3;
  }
  return b;
}
