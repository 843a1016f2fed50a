/**
 * The expected verdict on every file of the shared corpus (`../shared/corpus`,
 * real files other people wrote; its SOURCES.md says whose and what each one
 * holds): the format it is read as, the decision of each step, the findings
 * counted by "severity rule", the CLI's exit code for the file alone, and why
 * that is the right verdict. `corpus.test.ts` fails on any difference, and on a
 * corpus file that has no row here.
 *
 * A clean real file never gets an error: exit 1 appears only where the file
 * itself is broken (said in the reason).
 */

export interface Verdict {
  /** Path under the corpus folder. */
  readonly file: string;
  /** The format detected from the content; null when no reader recognises it (exit 2). */
  readonly format: string | null;
  readonly decisions: readonly string[];
  /** Finding counts keyed "severity rule", e.g. "warning prefix-mutated". */
  readonly findings: Readonly<Record<string, number>>;
  readonly exit: 0 | 1 | 2;
  readonly reason: string;
}

export const VERDICTS: readonly Verdict[] = [
  // anthropic-messages: converted pydantic-ai cassettes of the real Messages API.
  {
    file: 'anthropic-messages/pydanticai_test_anthropic_compaction_round_trip.requests.jsonl',
    format: 'anthropic',
    decisions: [],
    findings: {},
    exit: 0,
    reason: 'one request, so no step; its compaction block opens an assistant message and every call is answered',
  },
  {
    file: 'anthropic-messages/pydanticai_test_anthropic_mixed_strict_tool_run.requests.jsonl',
    format: 'anthropic',
    decisions: ['patch', 'patch'],
    findings: {},
    exit: 0,
    reason: 'three requests, each a strict append-only extension of the one before plus its response',
  },
  {
    file: 'anthropic-messages/pydanticai_test_anthropic_tool_with_thinking.requests.jsonl',
    format: 'anthropic',
    decisions: ['patch'],
    findings: {},
    exit: 0,
    reason: 'the signed thinking block comes back byte-identical; the tool_result follows its tool_use',
  },
  {
    file: 'anthropic-messages/pydanticai_test_multiple_parallel_tool_calls.requests.jsonl',
    format: 'anthropic',
    decisions: ['patch'],
    findings: {},
    exit: 0,
    reason: 'four parallel tool_use answered by four tool_result blocks in the next user message: append-only',
  },

  // claude-code: Claude Code session JSONL.
  {
    file: 'claude-code/ccl_dag_compact_after_rewind_preserved.jsonl',
    format: 'claude-code',
    decisions: ['patch', 'defer'],
    findings: { 'info branch-started': 1, 'warning prefix-mutated': 1 },
    exit: 0,
    reason: 'synthetic: the rewind starts a branch from a1 (shared prefix intact: info, patch); the compaction replaces history by its isCompactSummary marker (cache lost: defer)',
  },
  {
    file: 'claude-code/codemie_incremental-subagents_turn-1.jsonl',
    format: 'claude-code',
    decisions: [],
    findings: {},
    exit: 0,
    reason: 'snapshot taken mid-turn: the one unanswered Bash call is the live frontier, pending, not an orphan',
  },
  {
    file: 'claude-code/codemie_incremental-subagents_turn-2.jsonl',
    format: 'claude-code',
    decisions: [],
    findings: {},
    exit: 0,
    reason: 'the same session complete: all 14 calls answered, append-only',
  },
  {
    file: 'claude-code/codemie_session-9eda1058.jsonl',
    format: 'claude-code',
    decisions: [],
    findings: {},
    exit: 0,
    reason: 'legacy summary lines are titles, not context; the rejected tool use is still answered (is_error)',
  },
  {
    file: 'claude-code/spotter_258c7280-ae70-4798-800f-63464d01a85d.excerpt-L1236-L1278.jsonl',
    format: 'claude-code',
    decisions: ['defer'],
    findings: { 'warning prefix-mutated': 1 },
    exit: 0,
    reason: 'a real automatic compaction mid tool loop: the history before the boundary is replaced by the isCompactSummary line',
  },
  {
    file: 'claude-code/spotter_4d5611e5-241a-462a-8d15-5122611a9569.excerpt-L742-L790.jsonl',
    format: 'claude-code',
    decisions: ['defer'],
    findings: { 'warning prefix-mutated': 1 },
    exit: 0,
    reason: 'a real automatic compaction mid tool loop, marked by compact_boundary and the isCompactSummary line',
  },
  {
    file: 'claude-code/spotter_8463c716-a2ea-4c14-9efa-87158ebd9f20.excerpt-L687-L743.jsonl',
    format: 'claude-code',
    decisions: ['defer'],
    findings: { 'warning prefix-mutated': 1 },
    exit: 0,
    reason: 'a real automatic compaction mid tool loop, marked by compact_boundary and the isCompactSummary line',
  },
  {
    file: 'claude-code/spotter_agent-acompact-e1f845.jsonl',
    format: 'claude-code',
    decisions: [],
    findings: {},
    exit: 0,
    reason: 'the compaction side-chain: one prompt and one summary answer, no tools',
  },
  {
    file: 'claude-code/spotter_tool_heavy.jsonl',
    format: 'claude-code',
    decisions: [],
    findings: {},
    exit: 0,
    reason: 'six tool pairs, one response split over several lines per content block; nothing broken',
  },

  // codex: Codex CLI rollouts.
  {
    file: 'codex/ccl_rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl',
    format: 'codex',
    decisions: [],
    findings: { 'info record-skipped': 1 },
    exit: 0,
    reason: 'synthetic; every call paired; the unknown future_synthetic_record line is skipped and said so',
  },
  {
    file: 'codex/codemie_rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.excerpt-L1-L19.jsonl',
    format: 'codex',
    decisions: [],
    findings: {},
    exit: 0,
    reason: 'the first complete turn: exec_command and write_stdin, both answered',
  },
  {
    file: 'codex/localpush_rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl',
    format: 'codex',
    decisions: [],
    findings: {},
    exit: 0,
    reason: '118 calls in one turn, all answered',
  },
  {
    file: 'codex/localpush_rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.excerpt-L1+L1735-L1828.jsonl',
    format: 'codex',
    decisions: ['defer'],
    findings: { 'warning prefix-mutated': 1 },
    exit: 0,
    reason: 'a real compaction: replacement_history drops the earlier tool history, a rewrite that loses the cache (warning, not error)',
  },
  {
    file: 'codex/localpush_rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl',
    format: 'codex',
    decisions: [],
    findings: { 'warning tool-use-orphaned': 1 },
    exit: 0,
    reason: 'the session stopped with one exec_command unanswered and no later turn: pending at the frontier, a warning',
  },
  {
    file: 'codex/localpush_rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl',
    format: 'codex',
    decisions: [],
    findings: {},
    exit: 0,
    reason: 'five MCP calls, all answered',
  },

  // gemini-api: converted cassettes of the real generateContent API.
  {
    file: 'gemini-api/crewai_test_gemini_tool_returning_float.requests.jsonl',
    format: 'gemini',
    decisions: ['patch', 'defer', 'defer'],
    findings: { 'warning prefix-mutated': 4, 'warning elision-unmarked': 2 },
    exit: 0,
    reason: 'the client drops the empty model answers from the history and changes the system instruction: real rewrites, warnings only',
  },
  {
    file: 'gemini-api/pydanticai_test_google_instructions_only_with_tool_calls.requests.jsonl',
    format: 'gemini',
    decisions: ['defer', 'defer', 'defer', 'defer'],
    findings: { 'warning prefix-mutated': 4 },
    exit: 0,
    reason: 'the client replays each model turn with invented pyd_ai ids and the thoughtSignature re-encoded (base64url): not byte-identical, a warning',
  },

  // gemini-cli: Gemini CLI chat sessions (formats/gemini-cli.ts), one live window each.
  {
    file: 'gemini-cli/codemie_session-2025-12-01T21-45-5b959dae.json',
    format: 'gemini-cli',
    decisions: [],
    findings: {},
    exit: 0,
    reason: 'one session, so no step; its 10 calls (one message holds 3) are each answered by the functionResponse recorded with them',
  },
  {
    file: 'gemini-cli/codemie_session-2026-01-16T11-01-file-ops-37b7abef.json',
    format: 'gemini-cli',
    decisions: [],
    findings: {},
    exit: 0,
    reason: 'one session, so no step; 14 calls all answered, the 9-call message read as one model turn answered by one turn of 9 responses',
  },

  // inspect-ai: Inspect eval logs.
  {
    file: 'inspect-ai/inspect_log_message_deduplication.eval',
    format: 'inspect',
    decisions: ['patch', 'patch', 'patch', 'patch', 'patch'],
    findings: {},
    exit: 0,
    reason: 'six generations rebuilt from the message pool, append-only by construction, all calls answered',
  },
  {
    file: 'inspect-ai/inspect_log_tool_call_error.json',
    format: 'inspect',
    decisions: [],
    findings: { 'error tool-result-orphaned': 11 },
    exit: 1,
    reason: 'not clean: trimmed by hand to 11 tool messages with no assistant message, so every result is truly orphaned',
  },

  // langfuse: Langfuse trace exports (OTel GenAI semconv, OpenInference).
  {
    file: 'langfuse/langfuse_microsoft-agent-2025-10-14.json',
    format: 'otel',
    decisions: ['defer'],
    findings: { 'warning prefix-mutated': 1, 'warning elision-unmarked': 1 },
    exit: 0,
    reason: 'the second chat input leaves out the user message (the thread lives server-side): not append-only, a warning',
  },
  {
    file: 'langfuse/langfuse_openai-agents-2025-09-30.json',
    format: 'otel',
    decisions: ['patch'],
    findings: {},
    exit: 0,
    reason: 'Responses-style input arrays, the call answered in the next generation: append-only',
  },
  {
    file: 'langfuse/langfuse_pydantic-ai-tools-2025-12-04.json',
    format: 'otel',
    decisions: ['patch', 'patch'],
    findings: {},
    exit: 0,
    reason: 'three parallel calls answered in one message; the second run re-sends the history plus a new turn',
  },

  // openai-chat / openai-responses: converted pydantic-ai cassettes.
  {
    file: 'openai-chat/pydanticai_test_compatible_api_with_tool_calls_without_id.requests.jsonl',
    format: 'openai-chat',
    decisions: ['defer'],
    findings: { 'warning prefix-mutated': 1 },
    exit: 0,
    reason: 'the client replaced the empty call id and dropped the thought signature of the consumed answer: a real rewrite, a warning',
  },
  {
    file: 'openai-chat/pydanticai_test_multiple_agent_tool_calls.requests.jsonl',
    format: 'openai-chat',
    decisions: ['patch'],
    findings: { 'info record-skipped': 1 },
    exit: 0,
    reason: 'the first two records are Gemini calls: one cause, so one info saying both were skipped (count 2, first at line 1); the two Chat requests are append-only',
  },
  {
    file: 'openai-responses/pydanticai_test_openai_conversation_id_tool_call_continuation.requests.jsonl',
    format: 'openai-responses',
    decisions: ['patch'],
    findings: { 'info record-skipped': 2 },
    exit: 0,
    reason: 'the function_call_output continues the conversation, whose call the previous logged response in this file made: it pairs there; the conversation create (a POST with no request body) and delete (a DELETE) records are skipped: two causes, one info each',
  },
  {
    file: 'openai-responses/pydanticai_test_openai_responses_history_with_combined_tool_call_id.requests.jsonl',
    format: 'openai-responses',
    decisions: [],
    findings: {},
    exit: 0,
    reason: 'one request whose call and output pair by call_id',
  },
];
