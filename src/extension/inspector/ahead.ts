/**
 * The step after the one shown, rendered ahead of `]` (issue 14): once the webview has painted a
 * step it asks for the next (`stepShown`), the host renders it and sends it as the `stepEdit` it
 * would send on `]` (`nextStep`), and the webview lays it out hidden, so `]` only has to show it.
 * The rendered step is kept, so selecting it (or asking again) costs the host no second render. Pure (no
 * `vscode` import), like views.ts.
 */
import type { HostMessage } from '../../shared/protocol';
import type { Report } from '../engine';
import { type InspectorEngine, type RenderedStep, renderStep, stepEdit } from './views';

/** A step rendered ahead, for the report and engine it was rendered with. */
export interface Ahead {
  readonly report: Report;
  readonly engine: InspectorEngine;
  readonly rendered: RenderedStep;
}

/** The step `]` selects after step `index`: the next in the report's order (the webview's). */
export function stepAfter(report: Report, index: number): number | undefined {
  const at = report.steps.findIndex((s) => s.index === index);
  return at < 0 ? undefined : report.steps[at + 1]?.index;
}

/**
 * The step after `shown`, rendered, and the `nextStep` message that gives it as splices of `shown`'s
 * texts; no message when either step has no rewrite (such a step is sent whole, not laid out ahead).
 */
export function renderAhead(
  report: Report,
  shown: RenderedStep,
  engine: InspectorEngine,
  sourceText: () => string | undefined,
  kept?: Ahead,
): { ahead: Ahead; message?: HostMessage } | undefined {
  const next = stepAfter(report, shown.detail.step.index);
  const rendered = next === undefined ? undefined : renderOrReuse(kept, report, next, engine, sourceText);
  if (!rendered) return undefined;
  const edit = stepEdit(shown, rendered);
  return { ahead: { report, engine, rendered }, ...(edit ? { message: { type: 'nextStep', edit } } : {}) };
}

/** A step the webview shows, as the panel's host keeps it: how it was rendered, and the step after it rendered ahead. */
export interface ShownStep {
  readonly report: Report | undefined;
  readonly step: number | undefined;
  readonly rendered?: RenderedStep;
  readonly engine?: InspectorEngine;
  readonly sourceText?: () => string | undefined;
  readonly ahead?: Ahead;
}

/** The webview painted step `step` (`stepShown`): if it is still the step shown, the step after it, rendered the same way. */
export function stepAhead(shown: ShownStep, step: number): ReturnType<typeof renderAhead> {
  if (!shown.report || !shown.rendered || !shown.engine || !shown.sourceText || shown.step !== step) return undefined;
  return renderAhead(shown.report, shown.rendered, shown.engine, shown.sourceText, shown.ahead);
}

/** The step `index` of `report`, rendered: the one rendered ahead when it is that step, else now. */
export function renderOrReuse(ahead: Ahead | undefined, report: Report, index: number, engine: InspectorEngine, sourceText: () => string | undefined): RenderedStep | undefined {
  if (ahead && ahead.report === report && ahead.engine === engine && ahead.rendered.detail.step.index === index) return ahead.rendered;
  return renderStep(report, index, engine, sourceText());
}
