/**
 * An append-only run of 32-bit integers read back in order, held as bytes:
 * each integer a zigzag varint (1 byte up to 63, 2 up to 8,191, 3 up to
 * ~1 million, 5 at most), the bytes in one-byte strings of CHUNK characters
 * (1 byte each, in the V8 heap: counted by `heapUsed` as the objects they
 * replace were). A small integer in an array takes 8 bytes in Node, which has
 * no pointer compression; a report's integers (token counts, offsets, indexes)
 * take 2-4 here. Made for what is written once while a check runs and read
 * once at its end (a report's steps and usage records, compact-list.ts; a
 * log's window starts, file-threads.ts).
 */

/** Bytes per sealed string: the bytes not sealed yet are small integers of an array (8 bytes each, with its room to grow), so few. */
const CHUNK = 256;

export class IntRun {
  /** The bytes sealed so far, CHUNK to a string. */
  private readonly sealed: string[] = [];
  /** The bytes not sealed yet. */
  private bytes: number[] = [];
  private count = 0;

  /** How many integers it holds. */
  get length(): number {
    return this.count;
  }

  /** Appends a 32-bit integer (`value | 0 === value`). */
  push(value: number): void {
    // Zigzag: small negative numbers are small too (-1 is 1, 1 is 2).
    let v = ((value << 1) ^ (value >> 31)) >>> 0;
    const bytes = this.bytes;
    while (v >= 0x80) {
      bytes.push((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    bytes.push(v);
    this.count++;
    if (bytes.length >= CHUNK) this.seal();
  }

  /** An independent copy (the sealed strings shared: they do not change). */
  copy(): IntRun {
    const copy = new IntRun();
    copy.sealed.push(...this.sealed);
    copy.bytes = this.bytes.slice();
    copy.count = this.count;
    return copy;
  }

  /** A reader of its integers from the first (later pushes are read too). */
  reader(): IntReader {
    return new IntReader(this.sealed, () => this.bytes);
  }

  private seal(): void {
    // One-byte string: every char code is under 256.
    this.sealed.push(String.fromCharCode.apply(null, this.bytes));
    this.bytes = [];
  }
}

/** Reads an `IntRun`'s integers in order (nothing is pushed to the run while it is read). */
export class IntReader {
  private chunk = 0;
  private at = 0;

  constructor(
    private readonly sealed: readonly string[],
    private readonly open: () => readonly number[],
  ) {}

  /** The next integer (0 past the last). */
  next(): number {
    let v = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = this.byte();
      v |= (byte & 0x7f) << shift;
      if (byte < 0x80) break;
    }
    return (v >>> 1) ^ -(v & 1);
  }

  private byte(): number {
    const sealed = this.sealed;
    for (; this.chunk < sealed.length; this.chunk++, this.at = 0) {
      const text = sealed[this.chunk] as string;
      if (this.at < text.length) return text.charCodeAt(this.at++);
    }
    // Past the sealed strings: the bytes not sealed yet.
    const open = this.open();
    return this.at < open.length ? (open[this.at++] as number) : 0;
  }
}
