/**
 * Everything around the diff: the decision banner, the stepping toolbar with
 * its timeline, and the findings / tool-pairs tabs. Built with DOM APIs only;
 * every string from the transcript goes in through `textContent`.
 */
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-icon/index.js';
import '@vscode-elements/elements/dist/vscode-tab-header/index.js';
import '@vscode-elements/elements/dist/vscode-tab-panel/index.js';
import '@vscode-elements/elements/dist/vscode-tabs/index.js';
import { el } from './dom';
import type { FindingView, PaneSegment, StepDetail, StepSummary, TranscriptView } from '../src/shared/protocol';
import { threadSuffix } from '../src/shared/session-text';

const icon = (name: string, className = '') => el('span', { className: `codicon codicon-${name} ${className}`, attrs: { 'aria-hidden': 'true' } });

/**
 * `12,345`: an integer's digits grouped by threes, as `toLocaleString('en-US')` writes it, without
 * loading the locale data on the panel's first step (~16 ms).
 */
export const number = (n: number): string => (Number.isSafeInteger(n) ? String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',') : n.toLocaleString('en-US'));

const DECISION_ICON = { patch: 'pass', defer: 'clock', abort: 'error' } as const;
const SEVERITY_ICON = { error: 'error', warning: 'warning', info: 'info' } as const;

export function button(label: string, iconName: string, title: string, onClick: () => void, secondary = true): HTMLElement {
  const b = document.createElement('vscode-button');
  b.textContent = label;
  b.setAttribute('icon', iconName);
  if (secondary) b.setAttribute('secondary', '');
  b.title = title;
  b.addEventListener('click', onClick);
  return b;
}

/**
 * The toolbar's stepping buttons, disabled where they would do nothing: no steps (a clean file), the
 * first or last step reached, no other step that is not a patch. Only a button whose state changes is
 * touched (a step's frame restyles what changed).
 */
export class StepControls {
  readonly previous: HTMLElement;
  readonly next: HTMLElement;
  readonly nonPatch: HTMLElement;

  constructor(onStep: (delta: number) => void, onNonPatch: () => void) {
    this.previous = button('', 'arrow-left', 'Previous step ( [ )', () => onStep(-1));
    this.next = button('', 'arrow-right', 'Next step ( ] )', () => onStep(1));
    this.nonPatch = button('Next non-patch step', 'warning', 'Next step that is not a patch: defer or abort ( n )', onNonPatch);
  }

  update(steps: readonly StepSummary[], selected: number | undefined): void {
    const at = steps.findIndex((s) => s.index === selected);
    setDisabled(this.previous, at <= 0);
    setDisabled(this.next, at === -1 || at === steps.length - 1);
    setDisabled(this.nonPatch, !steps.some((s) => s.decision !== 'patch' && s.index !== selected));
  }
}

function setDisabled(b: HTMLElement, disabled: boolean): void {
  if (b.hasAttribute('disabled') !== disabled) b.toggleAttribute('disabled', disabled);
}

/**
 * Keeps a slot's height from shrinking while the panel steps through one transcript (`keep()` once a
 * step is painted, `reset()` for another file or width): a step with fewer reasons than the one before
 * leaves the diff below where it was, instead of growing it (a resize of the diff re-lays out both
 * editors in the step's frame) and moving every line on screen.
 */
export class SteadyHeight {
  private height = 0;

  constructor(private readonly slot: HTMLElement) {
    // The height kept is the one measured, border included.
    slot.style.boxSizing = 'border-box';
  }

  keep(): void {
    const height = this.slot.offsetHeight;
    if (height <= this.height) return;
    this.height = height;
    this.slot.style.minHeight = `${height}px`;
  }

  reset(): void {
    this.height = 0;
    this.slot.style.minHeight = '';
  }
}

/** The decision banner: decision, step, source (self-edit untrusted), cache impact, reasons. */
export function banner(detail: StepDetail, total: number, previewing: boolean): HTMLElement {
  const step = detail.step;
  const decision = el('span', { className: 'pl-decision', text: step.decision.toUpperCase(), attrs: { 'data-decision': step.decision } });
  decision.prepend(icon(DECISION_ICON[step.decision]));
  const source = el('span', { className: 'pl-source', text: step.source, title: 'Who proposed this rewrite' });
  source.prepend(icon(step.untrusted ? 'shield' : 'git-commit'));
  if (step.untrusted) source.append(el('vscode-badge', { className: 'pl-untrusted', text: 'untrusted' }));
  const cache = step.cacheImpact;
  const cacheText = cache.invalidatedTokens
    ? `cache −${number(cache.invalidatedTokens)} of ${number(cache.consumedTokens)} consumed tokens`
    : `cache intact (${number(cache.consumedTokens)} consumed tokens)`;
  const impact = el('span', { className: 'pl-cache', text: cacheText, title: 'Consumed tokens a provider prompt cache must re-read' });
  impact.prepend(icon('database'));
  const head = el(
    'div',
    { className: 'pl-banner-head' },
    decision,
    el('span', { className: 'pl-step', text: `Step ${step.index} of ${total}${threadSuffix(step.thread)}` }),
    source,
    impact,
    ...(step.applied ? [] : [el('span', { className: 'pl-not-applied', text: 'not applied' })]),
  );
  const reasons = el('ul', { className: 'pl-reasons', attrs: { 'aria-label': 'Reasons' } });
  for (const f of detail.findings) {
    reasons.append(el('li', {}, icon(SEVERITY_ICON[f.severity], `pl-sev-${f.severity}`), el('code', { text: f.rule }), el('span', { text: f.message })));
  }
  if (!detail.findings.length) reasons.append(el('li', { className: 'pl-muted', text: 'Only bytes at or after the boundary change.' }));
  const box = el('section', { className: 'pl-banner', attrs: { 'data-decision': step.decision, 'aria-live': 'polite' } }, head, reasons);
  if (previewing && detail.fix) {
    const fix = detail.fix;
    box.append(el('div', { className: 'pl-fix-note', text: `Fix preview (${fix.decision.toUpperCase()}): ${fix.title}. ${fix.description}` }));
  }
  if (detail.unavailable) box.append(el('div', { className: 'pl-muted', text: detail.unavailable }));
  return box;
}

/** One tick per step, coloured by decision. */
export function timeline(steps: readonly StepSummary[], selected: number | undefined, onSelect: (step: number) => void): HTMLElement {
  const list = el('div', { className: 'pl-timeline', attrs: { role: 'listbox', 'aria-label': 'Steps' } });
  for (const s of steps) {
    const tick = el('button', {
      className: 'pl-tick',
      text: String(s.index),
      title: `Step ${s.index}${threadSuffix(s.thread)}: ${s.decision.toUpperCase()} · ${s.source}${s.rules.length ? ' · ' + s.rules.join(', ') : ''}`,
      attrs: { role: 'option', 'data-decision': s.decision, 'aria-selected': String(s.index === selected), 'data-step': String(s.index) },
    });
    tick.addEventListener('click', () => onSelect(s.index));
    list.append(tick);
  }
  return list;
}

/** A clickable finding: the host reveals its range in the transcript. */
export function findingItem(f: FindingView, onReveal: (f: FindingView) => void): HTMLElement {
  const item = el(
    'button',
    { className: 'pl-finding', title: 'Reveal in the transcript', attrs: { 'data-rule': f.rule } },
    icon(SEVERITY_ICON[f.severity], `pl-sev-${f.severity}`),
    el('code', { text: f.rule }),
    el('span', { className: 'pl-finding-message', text: f.message }),
    el('span', { className: 'pl-muted', text: `${f.step === undefined ? 'file' : 'step ' + f.step} · ${f.line}:${f.column}` }),
  );
  item.addEventListener('click', () => onReveal(f));
  return el('li', {}, item);
}

/** Pairs of the current step: orphans and pending first; capped. */
export function pairItems(segments: readonly PaneSegment[], onSelect: (id: string) => void, cap = 300): HTMLElement[] {
  const seen = new Map<string, PaneSegment>();
  for (const s of segments) {
    if (s.callId === undefined) continue;
    const known = seen.get(s.callId);
    if (!known || (known.state === 'paired' && s.state !== 'paired')) seen.set(s.callId, s);
  }
  const rank = (s: PaneSegment) => (s.state === 'paired' ? 2 : s.state === 'pending' ? 1 : 0);
  const sorted = [...seen.values()].sort((a, b) => rank(a) - rank(b)).slice(0, cap);
  return sorted.map((s) => {
    const item = el(
      'button',
      { className: 'pl-pair-item', attrs: { 'data-call': s.callId!, 'data-state': s.state ?? 'paired' } },
      el('span', { className: `pl-swatch pl-c${s.colour ?? 0}` }),
      el('code', { text: s.callId! }),
      el('span', { className: 'pl-muted', text: s.label ?? 'call and result paired' }),
    );
    item.addEventListener('click', () => onSelect(s.callId!));
    return el('li', {}, item);
  });
}

/** What a transcript without steps says about itself: clean, or how many problems its findings list. */
function cleanliness(view: TranscriptView): string {
  const problems = view.windowFindings.filter((f) => f.severity !== 'info').length;
  const unlisted = view.findingsTotal - view.windowFindings.length;
  if (problems === 0 && unlisted === 0) return 'Clean: no problems found.';
  return problems === 0 ? 'See Findings.' : `${number(problems)} problem${problems === 1 ? '' : 's'}: see Findings.`;
}

/** The notice of a transcript without steps: nothing to compare, whether it is clean, and where its tool pairs are. */
export function noStepsNotice(view: TranscriptView, pairs: readonly PaneSegment[]): string {
  const calls = pairs.filter((p) => p.role === 'call').length;
  const paired = calls === 0 ? '' : calls === 1 ? ' Its 1 tool call is listed under Tool pairs.' : ` Its ${number(calls)} tool calls are listed under Tool pairs.`;
  return `No rewrite steps in ${view.file}: nothing to compare. ${cleanliness(view)}${paired}`;
}
