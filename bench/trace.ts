/** Chromium performance traces, as the webview benches read them (`browser.stopTracing()`'s buffer). */

/** A trace event: `RunTask` with its wall (`dur`) and thread (`tdur`) time in µs, or a `performance.mark`. */
export interface TraceEvent {
  readonly name: string;
  readonly ph: string;
  readonly pid: number;
  readonly tid: number;
  readonly ts: number;
  readonly dur?: number;
  readonly tdur?: number;
  readonly args?: Record<string, unknown>;
}

/** The trace categories the webview benches record: tasks with their thread times, and the page's own marks. */
export const TRACE_CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'toplevel', 'blink.user_timing'];

/** The events of a trace (Chromium writes either a bare array or `{ traceEvents }`). */
export function traceEvents(raw: Buffer): TraceEvent[] {
  const trace = JSON.parse(raw.toString()) as { traceEvents: TraceEvent[] } | TraceEvent[];
  return Array.isArray(trace) ? trace : trace.traceEvents;
}
