/**
 * The inspector webview's entry: talks to the host over the shared protocol,
 * keeps the current step in `vscode.setState`, and lays out the banner,
 * toolbar, diff and findings. It never parses a transcript: it shows the
 * engine results the host sends.
 */
import './env';
import './monaco';
import './inspector.css';
import {
  applyStepEdit,
  assertNever,
  type FindingView,
  type HostMessage,
  type InspectorState,
  isHostMessage,
  parseInspectorState,
  PROTOCOL_VERSION,
  type TranscriptView,
  type StepDetail,
  type StepEdit,
  type WebviewMessage,
} from '../src/shared/protocol';
import { banner, button, findingItem, noStepsNotice, number, pairItems, SteadyHeight, StepControls, timeline } from './components';
import { el } from './dom';
import { type Splices, stepContent } from './diff';
import { DiffStack } from './diff-stack';
import { StepsAhead } from './ahead';
import { followTheme } from './theme';
import { AfterPaint, settle } from './after-paint';

interface VsCodeApi {
  postMessage(message: WebviewMessage): void;
  getState(): unknown;
  setState(state: InspectorState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

class Inspector {
  private readonly vscode = acquireVsCodeApi();
  private view: TranscriptView | undefined;
  private detail: StepDetail | undefined;
  private state: InspectorState = parseInspectorState(this.vscode.getState());
  private readonly bannerSlot = el('div', { className: 'pl-banner-slot' });
  private readonly timelineSlot = el('div', { className: 'pl-timeline-slot' });
  private readonly fixSlot = el('div', { className: 'pl-fix-slot' });
  private readonly stepControls = new StepControls((delta) => this.step(delta), () => this.nextNonPatchStep());
  private readonly findings = el('ul', { className: 'pl-findings', attrs: { 'aria-label': 'Findings' } });
  private readonly pairs = el('ul', { className: 'pl-pairs', attrs: { 'aria-label': 'Tool pairs' } });
  private readonly findingsHeader = el('vscode-tab-header', { text: 'Findings' });
  private readonly tabs = el('vscode-tabs', { className: 'pl-tabs' }) as HTMLElement & { selectedIndex: number };
  /** True while the Tool pairs tab is open because a file without steps has nothing else to show. */
  private pairsTabOpened = false;
  private readonly columns = el('div', { className: 'pl-columns' });
  private readonly notice = el('div', { className: 'pl-notice', attrs: { role: 'status' } });
  /** The diff on screen, and the step after the one shown laid out ahead of `]` in a spare. */
  private readonly diffs: DiffStack;
  private readonly ahead: StepsAhead;
  /** The step just put on screen by a swap (`StepsAhead.take`): its diff is shown already. */
  private swapped: StepDetail | undefined;
  /** The banner and the Findings / Tool pairs tabs, whose heights would otherwise resize the diff between them. */
  private readonly steady: readonly SteadyHeight[];
  /** When the last host message arrived (performance.now()), for the bench. */
  private receivedAt = 0;
  /** The steps the timeline shows (the same array while stepping through one transcript view). */
  private timelineSteps: TranscriptView['steps'] | undefined;
  /** Work left for after the step's paint. */
  private readonly afterPaint = new AfterPaint();
  /** What the Findings tab lists: the step's findings (as JSON), the window's, and their total. */
  private findingsShown: { readonly step: string; readonly window: readonly FindingView[]; readonly total: number } | undefined;
  /** How the step being shown was sent, as splices of the texts shown before (a `stepEdit`). */
  private splices: Splices | undefined;

  constructor(private readonly root: HTMLElement) {
    followTheme();
    root.tabIndex = -1;
    const diffHost = el('div', { className: 'pl-diff' });
    const bottom = this.bottom();
    this.steady = [new SteadyHeight(this.bannerSlot), new SteadyHeight(bottom)];
    root.append(
      el('header', { className: 'pl-header' }, this.bannerSlot),
      this.toolbar(),
      this.notice,
      this.columns,
      diffHost,
      bottom,
    );
    this.diffs = new DiffStack(diffHost, (work) => this.afterPaint.run('inert', work));
    this.ahead = new StepsAhead(this.diffs);
    window.addEventListener('message', (event) => isHostMessage(event.data) && this.receive(event.data));
    document.addEventListener('keydown', (event) => this.onKey(event), true);
    window.addEventListener('focus', () => this.takeFocus());
    window.addEventListener('resize', () => this.steady.forEach((s) => s.reset()));
    this.takeFocus();
    this.post({ type: 'ready', protocol: PROTOCOL_VERSION, ...(this.state.step ? { restoredStep: this.state.step } : {}) });
  }

  /**
   * When VS Code gives the panel focus, focus lands inside it (not on nothing), so its keys work at
   * once. It never takes focus VS Code did not give: the user may be typing in the transcript.
   */
  private takeFocus(): void {
    if (!document.hasFocus()) return;
    const active = document.activeElement;
    if (!active || active === document.body || active === document.documentElement) this.root.focus({ preventScroll: true });
  }

  private post(message: WebviewMessage): void {
    this.vscode.postMessage(message);
  }

  private receive(message: HostMessage): void {
    // A step laid out ahead is not a step shown: the paint being timed is still the last step's.
    if (message.type === 'nextStep') return this.layAhead(message.edit);
    this.receivedAt = performance.now();
    const swapped = message.type === 'stepEdit' ? this.ahead.take(this.view?.detail, message, (d) => this.previewing(d)) : undefined;
    if (!swapped && message.type !== 'fixResult') this.ahead.drop();
    this.swapped = swapped;
    switch (message.type) {
      case 'transcript': {
        const detail = message.edit ? this.spliced(message.edit) : message.view.detail;
        if (message.edit && !detail) return;
        if (message.view.file !== this.state.file) this.switchFile(message.view.file);
        this.view = detail ? { ...message.view, detail } : message.view;
        this.renderTranscript(this.view);
        this.followNewest();
        return;
      }
      case 'step':
        if (!this.view) return;
        this.view = { ...this.view, selected: message.selected, detail: message.detail };
        this.renderTranscript(this.view);
        return;
      case 'stepEdit': {
        const detail = swapped ?? this.spliced(message);
        if (!this.view || !detail) return;
        this.view = { ...this.view, selected: message.selected, detail };
        this.renderTranscript(this.view);
        return;
      }
      case 'empty':
        this.view = undefined;
        this.detail = undefined;
        this.switchFile(undefined);
        this.clearStep();
        this.timelineSlot.replaceChildren();
        this.findings.replaceChildren();
        this.findingsShown = undefined;
        this.listPairs([]);
        this.findingsHeader.textContent = 'Findings';
        this.showNotice(message.reason);
        this.markReady(undefined);
        return;
      case 'fixResult':
        this.showNotice(message.message);
        return;
      default:
        assertNever(message);
    }
  }

  /**
   * The step a `stepEdit` gives, spliced from the one shown (kept in `splices` for the panes). Not
   * against what is shown (a message lost or reordered): asks for the whole view again.
   */
  private spliced(edit: StepEdit): StepDetail | undefined {
    const base = this.view?.detail;
    const detail = applyStepEdit(base, edit);
    if (!base || !detail) {
      this.post({ type: 'ready', protocol: PROTOCOL_VERSION, restoredStep: edit.selected });
      return undefined;
    }
    this.splices = { before: { base: base.before.text, splice: edit.detail.before.splice }, after: { base: base.after.text, splice: edit.detail.after.splice } };
    return detail;
  }

  private toolbar(): HTMLElement {
    const follow = button('Follow', 'pin', 'Follow: keep a growing file\'s newest step in view', () => {
      this.saveState({ ...this.state, follow: !this.state.follow });
      follow.setAttribute('aria-pressed', String(Boolean(this.state.follow)));
      this.followNewest();
    });
    follow.classList.add('pl-follow');
    follow.setAttribute('aria-pressed', String(Boolean(this.state.follow)));
    return el(
      'nav',
      { className: 'pl-toolbar', attrs: { 'aria-label': 'Stepping' } },
      this.stepControls.previous,
      this.stepControls.next,
      this.stepControls.nonPatch,
      follow,
      this.timelineSlot,
      this.fixSlot,
    );
  }

  private bottom(): HTMLElement {
    const tabs = this.tabs;
    tabs.append(this.findingsHeader, el('vscode-tab-panel', {}, this.findings), el('vscode-tab-header', { text: 'Tool pairs' }), el('vscode-tab-panel', {}, this.pairs));
    for (const header of Array.from(tabs.querySelectorAll('vscode-tab-header'))) header.setAttribute('slot', 'header');
    return el('section', { className: 'pl-bottom' }, tabs);
  }

  private renderTranscript(view: TranscriptView): void {
    const detail = view.detail;
    this.detail = detail;
    const selected = view.selected;
    this.saveState({ ...this.state, file: view.file, step: selected });
    this.renderTimeline(view.steps, selected);
    this.renderFindings(view, detail);
    if (!detail) {
      this.clearStep();
      const pairs = view.pairs ?? [];
      this.showNotice(noStepsNotice(view, pairs));
      this.listPairs(pairItems(pairs, () => undefined));
      this.openPairsTab(pairs.length > 0);
      this.markReady(undefined);
      return;
    }
    this.showNotice('');
    this.openPairsTab(false);
    void this.renderDetail(view, detail);
  }

  /** A file without steps opens on its Tool pairs (nothing else to show); a file with steps on Findings again, unless the user picked the tab. */
  private openPairsTab(open: boolean): void {
    if (open && this.tabs.selectedIndex === 0) [this.tabs.selectedIndex, this.pairsTabOpened] = [1, true];
    else if (!open && this.pairsTabOpened) [this.tabs.selectedIndex, this.pairsTabOpened] = [0, false];
  }

  /** Whether a step is shown with its fix preview on the right. */
  private previewing(detail: StepDetail): boolean {
    return Boolean(this.state.previewFix && detail.fix);
  }

  /** `nextStep`: the step after the one shown, laid out ahead when it is spliced from that one. */
  private layAhead(edit: StepEdit): void {
    const base = this.view?.detail;
    if (!base || base !== this.detail || edit.from !== base.step.index) return;
    this.ahead.lay(base, edit, this.previewing(base), (detail) => stepContent(detail, this.previewing(detail)));
  }

  private async renderDetail(view: TranscriptView, detail: StepDetail): Promise<void> {
    const previewing = this.previewing(detail);
    this.bannerSlot.replaceChildren(banner(detail, view.steps.length, previewing));
    this.renderFix(detail, previewing);
    const after = previewing && detail.fix ? detail.fix.after : detail.after;
    this.columns.replaceChildren(
      el('div', { text: `Consumed prefix as the model saw it · step ${detail.step.index}, before` }),
      el('div', { text: previewing && detail.fix ? `Planned fix: ${detail.fix.title} (preview)` : `Proposed rewrite · ${detail.step.source}` }),
    );
    // Measured before the Tool pairs list is built (the page's layout is still the painted one).
    this.afterPaint.run('heights', () => this.steady.forEach((s) => s.keep()));
    // The step's texts, spliced from the last step's, read once right after the paint (see `settle`), not when the next step splices them.
    this.afterPaint.run('texts', () => [detail.before.text, after.text].forEach(settle));
    // The Tool pairs tab lists up to 300 of the step's ~10k pairs: built once the step is painted.
    this.afterPaint.run('pairs', () => this.listPairs(pairItems([...detail.before.segments, ...after.segments], (id) => this.diffs.shown.selectPair(id))));
    const splices = this.splices;
    this.splices = undefined;
    const swapped = this.swapped === detail;
    this.swapped = undefined;
    if (!swapped) await this.diffs.show(stepContent(detail, previewing, splices));
    if (this.detail === detail) this.markReady(detail.step.index, swapped);
  }

  /**
   * One tick per step; a step change of the same transcript only moves the selection. The selected
   * tick is scrolled into view once the step is painted (scrolling now would force a layout mid-step).
   */
  private renderTimeline(steps: TranscriptView['steps'], selected: number | undefined): void {
    this.stepControls.update(steps, selected);
    const ticks = this.timelineSlot.querySelectorAll<HTMLElement>('.pl-tick');
    if (steps !== this.timelineSteps || ticks.length !== steps.length) {
      this.timelineSteps = steps;
      this.timelineSlot.replaceChildren(timeline(steps, selected, (s) => this.select(s)));
    } else {
      // Only the ticks whose selection changes are touched (a log of 300 requests has 300 ticks).
      for (const tick of Array.from(ticks)) {
        const value = String(tick.dataset.step === String(selected));
        if (tick.getAttribute('aria-selected') !== value) tick.setAttribute('aria-selected', value);
      }
    }
    this.afterPaint.run('timeline', () => this.timelineSlot.querySelector('[aria-selected="true"]')?.scrollIntoView({ block: 'nearest', inline: 'nearest' }));
  }

  /** The Tool pairs tab's items, now (dropping a list still waiting for a paint). */
  private listPairs(items: HTMLElement[]): void {
    this.afterPaint.drop('pairs');
    this.pairs.replaceChildren(...items);
  }

  /** Another transcript (or none): nothing of the previous file's fix preview or pinned pair carries over. */
  private switchFile(file: string | undefined): void {
    this.saveState({ ...(file === undefined ? {} : { file }), ...(this.state.follow ? { follow: true } : {}) });
    this.diffs.shown.selectPair(undefined);
    this.steady.forEach((s) => s.reset());
  }

  /** No step to show: no banner, no fix controls, an empty diff. */
  private clearStep(): void {
    this.bannerSlot.replaceChildren();
    this.fixSlot.replaceChildren();
    this.columns.replaceChildren();
    this.diffs.clear();
  }

  private renderFix(detail: StepDetail, previewing: boolean): void {
    if (!detail.fix) return this.fixSlot.replaceChildren();
    const toggle = button(previewing ? 'Hide fix' : 'Preview fix', previewing ? 'eye-closed' : 'eye', detail.fix.title, () => {
      this.saveState({ ...this.state, previewFix: !previewing });
      if (this.view) this.renderTranscript(this.view);
    });
    toggle.classList.add('pl-preview-toggle');
    toggle.setAttribute('aria-pressed', String(previewing));
    const apply = button(detail.fix.title, 'check', `${detail.fix.title}: the same fix as the quick fix`, () => {
      this.post({ type: 'applyFix', step: detail.step.index });
    }, false);
    this.fixSlot.replaceChildren(toggle, apply);
  }

  private renderFindings(view: TranscriptView, detail: StepDetail | undefined): void {
    // The same findings as shown (an append step of a clean log): the list is not built again.
    const shown = { step: JSON.stringify(detail?.findings ?? []), window: view.windowFindings, total: view.findingsTotal };
    const last = this.findingsShown;
    this.findingsShown = shown;
    if (last && last.step === shown.step && last.window === shown.window && last.total === shown.total) return;
    const reveal = (f: FindingView) => this.post({ type: 'reveal', range: f.range });
    const items = [...(detail?.findings ?? []), ...view.windowFindings].map((f) => findingItem(f, reveal));
    const hidden = view.findingsTotal - view.windowFindings.length;
    if (hidden > 0) items.push(el('li', { className: 'pl-muted', text: `… and ${number(hidden)} more in the Problems panel` }));
    if (!items.length) items.push(el('li', { className: 'pl-muted', text: 'No findings.' }));
    this.findings.replaceChildren(...items);
    this.findingsHeader.textContent = `Findings (${(detail?.findings.length ?? 0) + view.findingsTotal})`;
  }

  private select(step: number): void {
    if (!this.view?.steps.some((s) => s.index === step) || step === this.view.selected) return;
    document.body.dataset.ready = 'false';
    this.post({ type: 'selectStep', step });
  }

  private step(delta: number): void {
    const steps = this.view?.steps ?? [];
    const at = steps.findIndex((s) => s.index === this.view?.selected);
    const next = steps[Math.max(0, Math.min(steps.length - 1, at + delta))];
    if (next) this.select(next.index);
  }

  /** With Follow on, the newest step is the one shown. */
  private followNewest(): void {
    const newest = this.view?.steps.at(-1);
    if (this.state.follow && newest) this.select(newest.index);
  }

  /** The next step that is not a patch, wrapping around. */
  private nextNonPatchStep(): void {
    const steps = this.view?.steps ?? [];
    const at = steps.findIndex((s) => s.index === this.view?.selected);
    for (let i = 1; i <= steps.length; i++) {
      const s = steps[(at + i) % steps.length];
      if (s && s.decision !== 'patch') return this.select(s.index);
    }
  }

  private onKey(event: KeyboardEvent): void {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target as HTMLElement | null;
    if (target && target.tagName === 'INPUT') return;
    const action = { '[': () => this.step(-1), ']': () => this.step(1), n: () => this.nextNonPatchStep() }[event.key];
    if (!action) return;
    event.preventDefault();
    event.stopPropagation();
    action();
  }

  private saveState(state: InspectorState): void {
    this.state = state;
    this.vscode.setState(state);
  }

  private showNotice(text: string): void {
    this.notice.textContent = text;
    this.notice.hidden = !text;
  }

  /** Tests and the bench wait on these; `paintMs` once the frame showing it is painted (as the bench's plain page). */
  private markReady(step: number | undefined, swapped = false): void {
    const data = document.body.dataset;
    const received = this.receivedAt;
    data.step = step === undefined ? '' : String(step);
    // Whether the step was the one laid out ahead, put on screen by a swap (the tests check it is used).
    data.swapped = String(swapped);
    // Once it is painted, the host may send the step after it (if any) to lay out ahead of `]`.
    if (step !== undefined && step !== this.view?.steps.at(-1)?.index) this.afterPaint.run('ahead', () => this.detail?.step.index === step && this.post({ type: 'stepShown', step }));
    data.renderMs = (performance.now() - received).toFixed(1);
    data.readyAt = performance.now().toFixed(1);
    data.paintMs = '';
    data.ready = 'true';
    requestAnimationFrame(() => setTimeout(() => this.receivedAt === received && (data.paintMs = (performance.now() - received).toFixed(1))));
  }
}

new Inspector(document.getElementById('app') ?? document.body);
