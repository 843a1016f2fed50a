/**
 * record-skipped — a reader's rule, not a window check: a record or part the
 * reader does not know (a Claude Code line type, a native event, a request-log
 * record without a request), skipped and said so, so nothing is dropped
 * silently. Emitted by the readers (one per cause per file: `Unseen` in
 * `formats/common.ts`), by `unread-parts.ts` and by `check.ts` when a reader stops.
 */
import { defineRule } from './rule';

export const meta = defineRule({
  id: 'record-skipped',
  severity: 'info',
  decides: 'none',
  title: 'Part of the file could not be seen (records skipped, parts of unknown type)',
  protects: 'a check never looks cleaner than what was read',
  fixes: [],
});
