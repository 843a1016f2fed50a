/**
 * The session view's webview: a header with the session at a glance and the
 * cache the log reports, filters, a virtualised timeline (only the rows in
 * view exist in the DOM; every row has the same height) and the selected row
 * in full beside it. Every transcript string goes in through `textContent`.
 */
import './session.css';
import { cacheOf, isSessionHostMessage, SESSION_PROTOCOL_VERSION, type SessionView, type SessionWebviewMessage, type TimelineRow } from '../../src/shared/session-protocol';
import { detailOf, fileTag, headerOf, rowElement } from './parts';
import { el } from '../dom';
import { keyTarget, nextPosition, visibleRows, windowOf, type Filters } from './navigate';

interface VsCodeApi {
  postMessage(message: SessionWebviewMessage): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

export const ROW_HEIGHT = 64;

class SessionPage {
  private readonly vscode = acquireVsCodeApi();
  private view: SessionView | undefined;
  private filters: Filters = { problems: false };
  private visible: number[] = [];
  /** Position of the selected row in `visible`. */
  private selected = 0;
  private readonly header = el('header', { className: 'sv-header' });
  private readonly problems = el('input', { attrs: { type: 'checkbox', id: 'sv-problems' } });
  private readonly tool = el('select', { attrs: { 'aria-label': 'Only one tool' } });
  private readonly thread = el('select', { attrs: { 'aria-label': 'Only one thread' } });
  private readonly scroller = el('div', { className: 'sv-scroller', attrs: { tabindex: '0', role: 'listbox', 'aria-label': 'Conversation' } });
  private readonly spacer = el('div', { className: 'sv-spacer' });
  private readonly detail = el('section', { className: 'sv-detail', attrs: { 'aria-label': 'Selected row' } });
  private readonly notice = el('div', { className: 'sv-notice', attrs: { role: 'status' } });
  private frame = 0;
  /** The row elements in the DOM, by position in `visible`: kept while they stay in view. */
  private shown = new Map<number, HTMLElement>();

  constructor(root: HTMLElement) {
    const toolbar = el(
      'div',
      { className: 'sv-toolbar' },
      el('label', { attrs: { for: 'sv-problems' } }, this.problems, document.createTextNode(' Problems only')),
      this.tool,
      this.thread,
      el('span', { className: 'sv-keys', text: 'j/k row · t turn · s step · e problem (Shift: back) · Enter: open' }),
    );
    this.scroller.append(this.spacer);
    root.append(this.header, toolbar, this.notice, el('div', { className: 'sv-body' }, this.scroller, this.detail));
    this.problems.addEventListener('change', () => this.setFilters({ ...this.filters, problems: this.problems.checked }));
    this.tool.addEventListener('change', () => this.setFilters(this.chosenFilters()));
    this.thread.addEventListener('change', () => this.setFilters(this.chosenFilters()));
    this.scroller.addEventListener('scroll', () => this.schedule());
    this.scroller.addEventListener('keydown', (e) => this.onKey(e));
    window.addEventListener('resize', () => this.schedule());
    window.addEventListener('message', (event) => {
      if (isSessionHostMessage(event.data)) event.data.type === 'session' ? this.show(event.data.view, event.data.notice) : this.empty(event.data.reason);
    });
    this.post({ type: 'ready', protocol: SESSION_PROTOCOL_VERSION });
  }

  /** The filters as the toolbar sets them. */
  private chosenFilters(): Filters {
    return { problems: this.problems.checked, ...(this.tool.value ? { tool: this.tool.value } : {}), ...(this.thread.value ? { thread: Number(this.thread.value) } : {}) };
  }

  private post(message: SessionWebviewMessage): void {
    this.vscode.postMessage(message);
  }

  private empty(reason: string): void {
    this.view = undefined;
    this.notice.textContent = reason;
    this.header.replaceChildren();
    this.setFilters(this.filters);
  }

  /** A new snapshot (with why a later check failed, if one did): keeps the selection, and follows the end when it was showing the end (a growing file). */
  private show(view: SessionView, notice: string | undefined): void {
    const atEnd = this.scroller.scrollTop + this.scroller.clientHeight >= this.scroller.scrollHeight - ROW_HEIGHT;
    const selectedRow = this.visible[this.selected];
    this.view = view;
    this.notice.textContent = notice ?? (view.rows.length === 0 ? 'No messages in this file.' : '');
    this.header.replaceChildren(...headerOf(view));
    const current = this.tool.value;
    this.tool.replaceChildren(el('option', { text: 'All tools', attrs: { value: '' } }), ...view.tools.map((t) => el('option', { text: t, attrs: { value: t } })));
    this.tool.value = view.tools.includes(current) ? current : '';
    const thread = this.thread.value;
    this.thread.replaceChildren(el('option', { text: 'All threads', attrs: { value: '' } }), ...view.threads.map((t) => el('option', { text: t.label, attrs: { value: String(t.id) } })));
    this.thread.hidden = view.threads.length === 0;
    this.thread.value = view.threads.some((t) => String(t.id) === thread) ? thread : '';
    this.filters = this.chosenFilters();
    this.setFilters(this.filters, selectedRow);
    if (atEnd && this.visible.length > 0 && selectedRow !== undefined) this.scroller.scrollTop = this.scroller.scrollHeight;
    document.body.dataset.rows = String(view.rows.length);
    // First paint of the rows: the frame after they are in the DOM (the bench reads it).
    requestAnimationFrame(() => {
      document.body.dataset.paintedAt ??= String(performance.now());
      document.body.dataset.ready = 'true';
    });
  }

  private setFilters(filters: Filters, keepRow?: number): void {
    this.filters = filters;
    this.visible = this.view ? visibleRows(this.view.rows, filters) : [];
    const kept = keepRow === undefined ? -1 : this.visible.indexOf(keepRow);
    this.selected = Math.max(0, kept);
    this.spacer.style.height = `${this.visible.length * ROW_HEIGHT}px`;
    this.render(true);
    this.showDetail();
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  /** Renders only the rows in view (plus a few around them); rows still in view are kept, not rebuilt. */
  private render(fresh = false): void {
    const view = this.view;
    if (fresh) {
      this.spacer.replaceChildren();
      this.shown = new Map();
    }
    const { first, last } = view && this.visible.length > 0 ? windowOf(this.scroller.scrollTop, this.scroller.clientHeight || 600, ROW_HEIGHT, this.visible.length) : { first: 0, last: -1 };
    const next = new Map<number, HTMLElement>();
    for (const [p, row] of this.shown) {
      if (p >= first && p <= last) next.set(p, row);
      else row.remove();
    }
    for (let p = first; p <= last && view; p++) {
      if (next.has(p)) continue;
      const index = this.visible[p]!;
      const data = view.rows[index]!;
      const cache = cacheOf(view, data);
      const row = rowElement(data, index, p === this.selected, (target) => this.selectRow(target), cache);
      row.style.transform = `translateY(${p * ROW_HEIGHT}px)`;
      row.addEventListener('click', () => this.select(p));
      this.spacer.append(row);
      next.set(p, row);
    }
    this.shown = next;
  }

  private select(position: number): void {
    this.selected = Math.max(0, Math.min(position, this.visible.length - 1));
    const top = this.selected * ROW_HEIGHT;
    if (top < this.scroller.scrollTop) this.scroller.scrollTop = top;
    else if (top + ROW_HEIGHT > this.scroller.scrollTop + this.scroller.clientHeight) this.scroller.scrollTop = top + ROW_HEIGHT - this.scroller.clientHeight;
    this.render(true);
    this.showDetail();
  }

  /** Selects a row by its index in the timeline (a pair's partner); clears the filters if they hide it. */
  private selectRow(index: number): void {
    if (!this.visible.includes(index)) {
      this.problems.checked = false;
      this.tool.value = '';
      this.thread.value = '';
      this.setFilters({ problems: false });
    }
    this.select(this.visible.indexOf(index));
    this.scroller.focus();
  }

  private onlyThread(thread: number): void {
    const row = this.visible[this.selected];
    this.thread.value = String(thread);
    this.setFilters(this.chosenFilters(), row);
    this.scroller.focus();
  }

  private showDetail(): void {
    const view = this.view;
    const index = this.visible[this.selected];
    const row: TimelineRow | undefined = index === undefined ? undefined : view?.rows[index];
    document.body.dataset.selected = index === undefined ? '' : String(index);
    this.detail.replaceChildren(...(row && view ? detailOf(view, row, index!, { select: (i) => this.selectRow(i), post: (m) => this.post(m), onlyThread: (t) => this.onlyThread(t) }) : []));
  }

  private onKey(event: KeyboardEvent): void {
    const view = this.view;
    if (!view) return;
    if (event.key === 'Enter') {
      const row = view.rows[this.visible[this.selected] ?? -1];
      if (row?.kind === 'step') this.post({ type: 'openStep', step: row.index, ...fileTag(view, row) });
      else if (row?.range && view.textual) this.post({ type: 'reveal', range: row.range, ...fileTag(view, row) });
      return;
    }
    const key = keyTarget(event.key);
    if (!key) return;
    event.preventDefault();
    this.select(nextPosition(view.rows, this.visible, this.selected, key.target, key.direction));
  }
}

new SessionPage(document.getElementById('app')!);
