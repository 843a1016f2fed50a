/**
 * invalid-json — a reader's rule, not a window check: a line (or a whole file,
 * or a file inside an Inspect `.eval` zip) that does not parse. Emitted by the
 * readers (`formats/common.ts` `invalidJson`, the native, Inspect, OTel and
 * request-log readers) with the parser's offset; the rest of the file is still read.
 */
import { defineRule } from './rule';

export const meta = defineRule({
  id: 'invalid-json',
  severity: 'error',
  decides: 'none',
  title: 'Not valid JSON',
  protects: 'every line is checked',
  fixes: [],
});
