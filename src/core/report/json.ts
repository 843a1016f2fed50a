/**
 * The CLI's `--json` report: one object per file, positions as 1-based
 * line/column. Pure: the extension's "Export Report" and the CLI share it.
 */
import type { Report, StepReport } from '../results';
import type { Decision, Finding, RuleId, Severity } from '../findings';
import type { FormatId, RewriteSource } from '../model';
import type { CacheRow, SessionSummary } from '../session';
import { LineIndex } from '../text';

export interface JsonStep {
  readonly index: number;
  readonly decision: Decision;
  readonly source: RewriteSource;
  readonly rules: readonly RuleId[];
  /** Extra: the conversation of a request log the step belongs to (1-based), when the file is threaded. */
  readonly thread?: number;
  /** Extra: false when the transcript records the rewrite was not applied. */
  readonly applied: boolean;
  /** Extra: consumed tokens before the step, and how many of them the prompt cache loses. */
  readonly cacheImpact: { readonly consumedTokens: number; readonly invalidatedTokens: number };
}

export interface JsonFinding {
  readonly rule: RuleId;
  readonly severity: Severity;
  readonly message: string;
  /** 1-based step index, null for window-level findings. */
  readonly step: number | null;
  readonly line: number;
  readonly column: number;
  readonly endLine: number;
  readonly endColumn: number;
  readonly toolCallId?: string;
}

/** A cache row of the session summary, located by line instead of offset. */
export type JsonCacheRow = Omit<CacheRow, 'offset' | 'range'> & { readonly line: number; readonly reasonLine?: number; readonly reasonColumn?: number };

/** The session summary (see core/session.ts) with cache rows located by line. */
export type JsonSession = Omit<SessionSummary, 'cache'> & { readonly cache: readonly JsonCacheRow[] };

export interface JsonReport {
  readonly file: string;
  readonly format: FormatId;
  /** Extra: the session at a glance and the cache figures the log reports, beside our prediction. */
  readonly session?: JsonSession;
  readonly steps: readonly JsonStep[];
  readonly findings: readonly JsonFinding[];
  /** Present when reading stopped before the end: where, and why (the file has not passed). */
  readonly stopped?: { readonly reason: string; readonly line: number; readonly column: number };
  /** Present when findings went past the limit per rule: how many were not listed, per rule. */
  readonly omitted?: Readonly<Partial<Record<RuleId, number>>>;
  /** Extra, a Claude Code session's sub-agent files: which call started each (the CLI lists each file's own report after the session's). */
  readonly subAgents?: readonly JsonSubAgent[];
}

export interface JsonSubAgent {
  readonly agentId: string;
  readonly file: string;
  /** Its thread id and label (`sub-agent Explore (a1b2c3d)`), after the session's own threads. */
  readonly thread: number;
  readonly label: string;
  /** The tool call that started it, when found; in the file of `parentAgent` when set, else in the session. */
  readonly parentCall?: string;
  readonly parentAgent?: string;
  /** Errors and warnings in its file. */
  readonly problems?: number;
  /** Why its file was not read. */
  readonly unread?: string;
}

/** Converts an engine report to the `--json` shape (one element of the printed array). */
export function toJsonReport(report: Report): JsonReport {
  const lines = LineIndex.fromStarts(report.lineStarts);
  return {
    file: report.file,
    format: report.format,
    ...(report.session && { session: jsonSession(report.session, lines) }),
    steps: report.steps.map((step) => ({
      index: step.index,
      decision: step.decision,
      source: step.source,
      rules: [...step.rules],
      ...(step.thread !== undefined && { thread: step.thread }),
      applied: step.applied,
      cacheImpact: {
        consumedTokens: step.cacheImpact.consumedTokens,
        invalidatedTokens: step.cacheImpact.invalidatedTokens,
      },
    })),
    findings: report.findings.map((f) => jsonFinding(f, lines)),
    ...(report.stopped && { stopped: { reason: report.stopped.reason, ...lines.position(report.stopped.offset) } }),
    ...(report.omitted && { omitted: report.omitted }),
    ...(report.subAgents && { subAgents: report.subAgents.map(jsonSubAgent) }),
  };
}

function jsonSubAgent(agent: NonNullable<Report['subAgents']>[number]): JsonSubAgent {
  const { agentId, file, thread, parentAgent, report, unread } = agent;
  return {
    agentId,
    file,
    thread: thread.id,
    label: thread.label,
    ...(thread.parentCall !== undefined && { parentCall: thread.parentCall }),
    ...(parentAgent !== undefined && { parentAgent }),
    ...(report && { problems: report.findings.filter((f) => f.severity !== 'info').length }),
    ...(unread !== undefined && { unread }),
  };
}

/** Whether a report's steps hold more than one conversation, per list (a cache keyed by the list, which no reader changes: not state). */
const threaded = new WeakMap<readonly StepReport[], boolean>();

/**
 * The thread a step is shown with: only when the file holds more than one
 * conversation (a request log with interleaved threads), else undefined.
 * The steps are looked through once per list, not once per step (a CodeLens,
 * a row, a diagnostic or a line of output for each of thousands of steps).
 */
export function shownThread(steps: readonly StepReport[], step: StepReport): number | undefined {
  if (step.thread === undefined) return undefined;
  let many = threaded.get(steps);
  if (many === undefined) threaded.set(steps, (many = steps.some((s) => (s.thread ?? 1) > 1)));
  return many ? step.thread : undefined;
}

function jsonFinding(f: Finding, lines: LineIndex): JsonFinding {
  const start = lines.position(f.range.start);
  const end = lines.position(Math.max(f.range.end, f.range.start));
  return {
    rule: f.rule,
    severity: f.severity,
    message: f.message,
    step: f.step ?? null,
    line: start.line,
    column: start.column,
    endLine: end.line,
    endColumn: end.column,
    ...(f.toolCallId !== undefined ? { toolCallId: f.toolCallId } : {}),
  };
}

export function jsonSession(session: SessionSummary, lines: LineIndex): JsonSession {
  return {
    ...session,
    cache: session.cache.map(({ offset, range, ...row }) => {
      const reason = range && lines.position(range.start);
      return { ...row, line: lines.position(offset).line, ...(reason && { reasonLine: reason.line, reasonColumn: reason.column }) };
    }),
  };
}
