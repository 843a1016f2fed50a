/**
 * server-state-pairing — protects (2) pairing integrity by saying where a
 * result's call lives when it is not in the request: in server-side state
 * (OpenAI Responses `previous_response_id` / `conversation`). Emitted by
 * `tool-result-orphaned` instead of an orphan, and by the request-log reader.
 * Info only: it never changes a decision.
 */
import { defineRule } from './rule';

export const meta = defineRule({
  id: 'server-state-pairing',
  severity: 'info',
  decides: 'none',
  title: 'The call of this result lives in server-side state',
  protects: '(2) pairing integrity',
  fixes: [],
});
