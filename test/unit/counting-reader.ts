/** A test's view of what a follower reads again: the lines its reader (and forks of it) are given. */
import type { SourceLine } from '../../src/core/text';
import type { FormatAdapter, LineReader } from '../../src/core/transcript';

/** Each line a reader (or a fork of it) is given is noted in `read`; each splice of one (a reading kept after an edit) counted in `splices`. */
export function counting(adapter: FormatAdapter, read: SourceLine[], splices = { count: 0 }): FormatAdapter {
  type Counted = LineReader & { readonly inner: LineReader };
  const wrap = (inner: LineReader): Counted => ({
    inner,
    line: (line) => (read.push(line), inner.line(line)),
    end: () => inner.end(),
    fork: () => wrap(inner.fork()),
    ...(inner.sameState && { sameState: (later: LineReader, next) => inner.sameState!((later as Counted).inner, next) }),
    ...(inner.spliced && { spliced: (before: LineReader, splice) => { splices.count++; const moved = inner.spliced!((before as Counted).inner, splice); return moved && wrap(moved); } }),
    ...(inner.recordsRead && { recordsRead: () => inner.recordsRead!() }),
  });
  return { ...adapter, lineReader: (file, first, asked) => { const reader = adapter.lineReader?.(file, first, asked); return reader && wrap(reader); } };
}
