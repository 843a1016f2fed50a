/**
 * The common step of a request log: the next request appends a message to a window the model read in
 * full. Shown at the window's end, the step's new lines appear where the view already is (no scroll:
 * a scroll redraws every line on screen), the diff marks the changed lines and nothing above them,
 * the new pair is coloured on screen, the boundary line moves to the end of what was read, and
 * nothing counts as changed inside the consumed prefix (the append starts at the boundary). And the
 * side-by-side alignment (read from Monaco's view model, see scripts/monaco-patches.js) keeps the
 * sides level below a line that wraps differently on each.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { Message } from '../../src/core/model';
import type { Report } from '../../src/core/results';
import { call, incidentReport, msg, report, result, text, tool, win } from '../fixtures/inspector/reports';
import { ENGINE, exposeMonaco, fixtureOf, type Harness, openInspector, startHarness, waitReady } from './harness';

let harness: Harness;
before(async () => {
  harness = await startHarness();
});
after(async () => {
  await harness?.close();
});

/** A log of four requests, each the previous one read in full plus one message: a question, a tool call, its result. */
function requestLog(): Report {
  const tools = [tool('read_file')];
  const history: Message[] = [msg('system', text('You are a careful assistant.'))];
  for (let i = 1; i <= 60; i++) history.push(msg('user', text(`question-${i}: what does src/module_${i}.ts export?`)), msg('assistant', text(`answer-${i}: a function f${i}.`)));
  const requests = [history];
  for (const next of [msg('user', text('question-last: read the config')), msg('assistant', call('toolu_last', 'read_file', { path: 'config.json' })), msg('user', result('toolu_last', 'result-last: debug on'))]) {
    requests.push([...requests.at(-1)!, next]);
  }
  const steps = requests.slice(1).map((after, i) => {
    const read = requests[i]!;
    return { source: 'runtime' as const, before: win(tools, read, read.length), after: win(tools, after, read.length), decision: 'patch' as const, findings: [] };
  });
  return report('/work/logs/requests.jsonl', steps);
}

/** Both editors' scroll positions (Monaco's API, exposed to the test). */
const scrollTops = (page: Page) =>
  page.evaluate(`(() => { const d = window.monaco.editor.getDiffEditors()[0]; return [d.getOriginalEditor().getScrollTop(), d.getModifiedEditor().getScrollTop()]; })()`) as Promise<number[]>;

/** The right side's lines on screen: their text, and whether the diff marks them inserted (an overlay row at the same top). */
function modifiedLines(page: Page): Promise<{ text: string; inserted: boolean }[]> {
  return page.evaluate(() => {
    const editor = document.querySelector('.editor.modified')!;
    const inserted = new Set(Array.from(editor.querySelectorAll('.view-overlays .line-insert')).map((e) => (e.parentElement as HTMLElement).style.top));
    return Array.from(editor.querySelectorAll<HTMLElement>('.view-lines .view-line')).map((l) => ({ text: (l.textContent ?? '').replace(/\u00a0/g, ' '), inserted: inserted.has(l.style.top) }));
  });
}

/** The step is shown and the frame showing it painted (Monaco draws in that frame). */
async function painted(page: Page, step: number): Promise<void> {
  await waitReady(page, step);
  await page.waitForFunction(() => Boolean(document.body.dataset.paintMs));
}

test('an append step of a log shown at its end: no scroll, only the changed lines marked, the new pair coloured, no violation', async () => {
  const { page, errors } = await openInspector(harness, fixtureOf(requestLog(), 'light', ENGINE, 1), 'light', 1400, exposeMonaco);
  await painted(page, 1);
  assert.ok((await modifiedLines(page)).some((l) => l.text.includes('question-last') && l.inserted), 'step 1 opens at its change, the window end');
  for (const [step, read, added] of [[2, 'question-last', 'toolu_last'], [3, '"read_file"', 'result-last']] as const) {
    const shownBefore = await scrollTops(page);
    await page.keyboard.press(']');
    await painted(page, step);
    assert.deepEqual(await scrollTops(page), shownBefore, `step ${step}: its change was on screen: no scroll`);
    const lines = await modifiedLines(page);
    const added_ = lines.filter((l) => l.text.includes(added));
    assert.ok(added_.length > 0 && added_.every((l) => l.inserted), `step ${step}: the new message is on screen, marked inserted`);
    const older = lines.filter((l) => /(question|answer)-\d+:/.test(l.text));
    assert.ok(older.length > 10, `step ${step}: earlier turns on screen`);
    assert.deepEqual(older.filter((l) => l.inserted), [], `step ${step}: no earlier turn marked`);
    assert.equal(await page.evaluate(() => document.body.dataset.violations), '0', `step ${step}: an append at the boundary changes nothing consumed`);
    assert.equal(await page.locator('.pl-violation').count(), 0);
    // One boundary line per side, moved to the end of what the model read: between that and the new message.
    assert.equal(await page.locator('.editor.modified .pl-boundary').count(), 1);
    assert.equal(await page.locator('.editor.original .pl-boundary').count(), 1);
    const y = async (selector: string) => (await page.locator(selector).first().boundingBox())!.y;
    const boundary = await y('.editor.modified .pl-boundary');
    assert.ok((await y(`.editor.modified .view-line:has-text('${read}')`)) < boundary && boundary < (await y(`.editor.modified .view-line:has-text('${added}')`)), `step ${step}: the boundary after the last message read`);
  }
  // The new result takes its call's colour, on screen right after the step.
  const colour = (role: 'call' | 'result') =>
    page.locator(`.editor.modified .view-line .pl-${role}`).filter({ hasText: 'toolu_last' }).first().evaluate((e) => Array.from(e.classList).find((c) => /^pl-c\d+$/.test(c)));
  const callColour = await colour('call');
  assert.ok(callColour, 'the call is coloured');
  assert.equal(await colour('result'), callColour, 'its result has the same colour');
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('the two sides stay aligned below a line that wraps differently on each (a message rewritten longer), its changed characters marked on their own text', async () => {
  const tools = [tool('read_file')];
  const read: Message[] = [msg('system', text('You are a careful assistant.'))];
  for (let i = 1; i <= 12; i++) read.push(msg('user', text(`turn-${i}: short`)));
  const rewritten = read.map((m, i) => (i === 4 ? msg('user', text(`turn-4: ${'a much longer rewrite of this turn that wraps across the column '.repeat(12)}`)) : m));
  const log = report('/work/logs/rewritten.jsonl', [{ source: 'runtime', before: win(tools, read, read.length), after: win(tools, rewritten, read.length), decision: 'defer', findings: [] }]);
  const { page, errors } = await openInspector(harness, fixtureOf(log), 'light', 1400);
  await painted(page, 1);
  const top = async (side: 'original' | 'modified', needle: string) =>
    (await page.locator(`.editor.${side} .view-line`).filter({ hasText: needle }).first().boundingBox())!.y;
  assert.ok((await top('modified', 'turn-5:')) - (await top('modified', 'turn-4:')) > 3 * 19, 'the rewritten turn wraps on the right');
  for (const needle of ['turn-5:', 'turn-9:']) assert.equal(await top('original', needle), await top('modified', needle), `${needle} at the same height on both sides`);
  // The changed characters are marked on the text's own spans (nothing drawn in the overlay layer, whose
  // place would be measured in the DOM mid-frame), and no empty marker stands where the other side inserted.
  const marked = (side: 'original' | 'modified', layer: 'view-lines' | 'view-overlays', mark: string) =>
    page.locator(`.editor.${side} .${layer} .${mark}`).evaluateAll((spans) => spans.map((s) => (s.textContent ?? '').replace(/\u00a0/g, ' ')).join(''));
  assert.match(await marked('modified', 'view-lines', 'char-insert'), /a much longer rewrite/);
  assert.match(await marked('original', 'view-lines', 'char-delete'), /short/);
  assert.doesNotMatch(await marked('modified', 'view-lines', 'char-insert'), /turn-4:/, 'the unchanged start of the line is not marked');
  for (const side of ['original', 'modified'] as const) {
    assert.equal(await page.locator(`.editor.${side} .view-overlays .char-insert, .editor.${side} .view-overlays .char-delete, .editor.${side} .diff-range-empty`).count(), 0, side);
  }
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('the Findings tab follows the step: listed again when the findings differ, left as it is when they are the same', async () => {
  const rules = (page: Page) => page.locator('.pl-findings .pl-finding').evaluateAll((items) => items.map((i) => i.getAttribute('data-rule')));
  const { page, errors } = await openInspector(harness, fixtureOf(incidentReport(), 'light', ENGINE, 1));
  const expected: Record<number, string[]> = {
    1: ['tool-result-orphaned', 'schema-dropped', 'prefix-mutated', 'invalid-json'],
    2: ['invalid-json'],
    3: ['prefix-mutated', 'self-edit', 'invalid-json'],
    4: ['invalid-json'],
  };
  assert.deepEqual(await rules(page), expected[1]);
  for (const [key, step] of [[']', 2], [']', 3], [']', 4], ['[', 3], ['[', 2], ['[', 1]] as const) {
    await page.keyboard.press(key);
    await waitReady(page, step);
    assert.deepEqual(await rules(page), expected[step], `step ${step}`);
  }
  await page.context().close();
  // A log's append steps with no findings: the same list element stays (nothing rebuilt per step).
  const log = await openInspector(harness, fixtureOf(requestLog(), 'light', ENGINE, 1));
  await log.page.evaluate(() => ((document.querySelector('.pl-findings li') as HTMLElement & { __kept?: boolean }).__kept = true));
  await log.page.keyboard.press(']');
  await waitReady(log.page, 2);
  assert.equal(await log.page.evaluate(() => (document.querySelector('.pl-findings li') as HTMLElement & { __kept?: boolean }).__kept), true);
  assert.deepEqual([...errors, ...log.errors], []);
  await log.page.context().close();
});

test('a step change touches only the two timeline ticks whose selection changes (not every tick: a log has one per request)', async () => {
  const { page, errors } = await openInspector(harness, fixtureOf(requestLog(), 'light', ENGINE, 1));
  await painted(page, 1);
  await page.evaluate(() => {
    const w = window as unknown as { __tickChanges: string[] };
    w.__tickChanges = [];
    new MutationObserver((records) => {
      for (const r of records) w.__tickChanges.push(`${(r.target as HTMLElement).dataset.step}=${(r.target as HTMLElement).getAttribute('aria-selected')}`);
    }).observe(document.querySelector('.pl-timeline')!, { subtree: true, attributes: true, attributeFilter: ['aria-selected'] });
  });
  for (const [step, expected] of [[2, ['1=false', '2=true']], [3, ['2=false', '3=true']]] as const) {
    await page.evaluate(() => ((window as unknown as { __tickChanges: string[] }).__tickChanges = []));
    await page.keyboard.press(']');
    await painted(page, step);
    const changes = await page.evaluate(() => (window as unknown as { __tickChanges: string[] }).__tickChanges);
    assert.deepEqual([...changes].sort(), [...expected], `step ${step}`);
    assert.deepEqual(await page.locator('.pl-tick[aria-selected="true"]').evaluateAll((ticks) => ticks.map((t) => (t as HTMLElement).dataset.step)), [String(step)]);
  }
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('a line on screen has no element of its own for the consumed tint or the margin bars: the tint is its overlay row, the bars its line number', async () => {
  const { page, errors } = await openInspector(harness, fixtureOf(requestLog(), 'light', ENGINE, 1), 'light', 1400, exposeMonaco);
  await painted(page, 1);
  for (const step of [2, 3]) {
    await page.keyboard.press(']');
    await painted(page, step);
  }
  for (const side of ['original', 'modified'] as const) {
    const editor = `.editor.${side}`;
    assert.equal(await page.locator(`${editor} .cdr.pl-consumed, ${editor} .cldr.pl-consumed-gutter, ${editor} .cldr.pl-pair-gutter`).count(), 0, `${side}: no element per line for them`);
    // The consumed lines on screen: their overlay rows are tinted and hold only what else marks them (the diff's
    // marks of the window's changed last line, the pending call's); their margins their number and the diff's marks.
    const rows = await page.locator(`${editor} .view-overlays > .pl-consumed`).evaluateAll((r) => r.map((row) => Array.from(row.children).map((c) => c.className)));
    assert.ok(rows.filter((children) => children.length === 0).length > 10, `${side}: consumed rows on screen with no element (${rows.length} rows)`);
    assert.deepEqual(rows.flat().filter((c) => !/^cdr ((line|char)-(insert|delete)|pl-(pending|orphan|violation|pair-active))$/.test(c)), [], `${side}: a consumed row holds only the diff's and the panel's marks`);
    const margin = await page.locator(`${editor} .margin-view-overlays > div:has(> .pl-consumed-gutter)`).evaluateAll((r) => r.map((row) => Array.from(row.children).map((c) => c.className)));
    assert.equal(margin.length, rows.length, `${side}: each consumed line's number carries its bar`);
    const diffMarks = /^(cmdr gutter-(insert|delete)|cldr (insert|delete)-sign .*)$/;
    assert.deepEqual(margin.map((children) => children.filter((c) => !diffMarks.test(c)).length).filter((n) => n !== 1), [], `${side}: a consumed line's margin holds its number and the diff's marks`);
    // Each bar 3 px wide where its element was: 2 px (consumed) and 6 px (a pair) into the line decorations' lane.
    const lane = (await page.evaluate(`window.monaco.editor.getDiffEditors()[0].get${side === 'original' ? 'Original' : 'Modified'}Editor().getLayoutInfo().decorationsLeft`)) as number;
    const bars = await page.locator(`${editor} .line-numbers.pl-consumed-gutter, ${editor} .line-numbers.pl-pair-gutter`).evaluateAll((numbers) =>
      numbers.map((n) => {
        const style = getComputedStyle(n);
        const right = n.getBoundingClientRect().right - n.closest('.margin')!.getBoundingClientRect().left;
        return { pair: n.classList.contains('pl-pair-gutter'), consumed: n.classList.contains('pl-consumed-gutter'), border: style.borderRightWidth, right, inner: style.backgroundImage !== 'none' };
      }),
    );
    assert.ok(bars.some((b) => b.pair && b.consumed), `${side}: the consumed call's line has both bars`);
    for (const b of bars) {
      assert.equal(b.border, '3px');
      assert.equal(b.right, lane + (b.pair ? 9 : 5), `${side}: the bar's place`);
      assert.equal(b.inner, b.pair && b.consumed, `${side}: the consumed bar inside a pair's`);
    }
  }
  assert.deepEqual(errors, []);
  await page.context().close();
});
