/**
 * Bounds on what one check reads and reports, so no input makes the engine
 * hang or run out of memory (docs/limits.md). A read that exceeds one stops
 * with a `LimitError`; the report then says where reading stopped and the file
 * has not passed.
 */

export interface Limits {
  /** Largest file read, in bytes (streamed or whole). */
  readonly maxFileBytes: number;
  /** Longest line of a JSONL file, in characters. */
  readonly maxLineChars: number;
  /** Most bytes inflated from an `.eval` zip, all entries together. */
  readonly maxDecompressedBytes: number;
  /** Most entries read from an `.eval` zip. */
  readonly maxZipEntries: number;
  /** Findings listed per rule; the rest are counted (`Report.omitted`). */
  readonly maxFindingsPerRule: number;
}

const MiB = 1024 * 1024;

export const DEFAULT_LIMITS: Limits = {
  maxFileBytes: 1024 * MiB,
  maxLineChars: 256 * MiB,
  maxDecompressedBytes: 1024 * MiB,
  maxZipEntries: 100_000,
  maxFindingsPerRule: 1000,
};

/** The defaults with the given overrides (non-finite or negative values are ignored). */
export function resolveLimits(...overrides: (Partial<Limits> | undefined)[]): Limits {
  const out: Record<string, number> = { ...DEFAULT_LIMITS };
  for (const override of overrides) {
    for (const [key, value] of Object.entries(override ?? {})) {
      if (key in out && typeof value === 'number' && Number.isFinite(value) && value >= 0) out[key] = value;
    }
  }
  return out as unknown as Limits;
}

/** A read that went past a limit, or could not go on (a special file, a string too long for the runtime). */
export class LimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LimitError';
  }
}

/** The error for a file (or a document's text) larger than `maxFileBytes`: one wording for the CLI, the editor's check and the session view. */
export function fileTooLarge(maxFileBytes: number): LimitError {
  return new LimitError(`the file is larger than the maxFileBytes limit (${formatBytes(maxFileBytes)})`);
}

/** The error for a line longer than `maxLineChars` (`index` is 0-based). */
export function lineTooLong(index: number, maxLineChars: number): LimitError {
  return new LimitError(`line ${index + 1} is longer than the maxLineChars limit (${maxLineChars.toLocaleString('en-US')} characters)`);
}

/** `1.5 GiB`, `12 MiB`, `800 bytes`. */
export function formatBytes(n: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${n} bytes` : `${Number(value.toFixed(1))} ${units[unit]}`;
}
