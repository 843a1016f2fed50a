/**
 * Random walks through random transcripts' steps in the inspector: every step
 * arrives as the panel's host sends it (a `stepEdit` of the step shown for a
 * neighbour, the whole step for a jump) and is applied to Monaco's models as
 * edits; after each, both models must hold exactly the step's full texts.
 * The transcripts chain appends, deep edits (a message's text, a tool input,
 * multi-line and astral text), compactions (pairs dropped whole, a summary in
 * their place) and long blocks that fold; the lines folded after each step are
 * those a scan of the whole text finds (the panel scans only what a splice changed).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { Report } from '../../src/core/results';
import type { Message } from '../../src/core/model';
import { call, msg, report, result, text, tool, win } from '../fixtures/inspector/reports';
import { ENGINE, exposeMonaco, fixtureOf, type Harness, openInspector, startHarness, waitReady } from './harness';
import type { Fixture } from './stub';

let harness: Harness;
before(async () => {
  harness = await startHarness();
});
after(async () => {
  await harness?.close();
});

/** mulberry32: a seeded PRNG, so a failure names the seed that reproduces it. */
function random(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

const WORDS = ['read', 'the', 'file', 'naïve', '😀 emoji', 'line\nbreak', 'tab\there', '"quoted"', 'x'.repeat(2_100), '𝔘𝔫𝔦'];

/** A random transcript of `steps` rewrites, each step's window the next one's `before`. */
function randomReport(seed: number, steps: number): Report {
  const pick = random(seed);
  const words = (n: number) => Array.from({ length: 1 + pick(n) }, () => WORDS[pick(WORDS.length)]!).join(' ');
  let next = 0;
  /** A user turn, or a call and its result (two messages). */
  const turn = (): Message[] => {
    const id = `toolu_${seed}_${next++}`;
    if (pick(3) === 0) return [msg('user', text(words(6)))];
    return [msg('assistant', text(words(3)), call(id, 'read_file', { path: words(2) })), msg('user', result(id, words(8)))];
  };
  let window: Message[] = [msg('user', text(`seed ${seed}`))];
  while (window.length < 20 + pick(30)) window.push(...turn());
  const specs = [];
  for (let i = 0; i < steps; i++) {
    const beforeWindow = window;
    const kind = pick(4);
    if (kind === 0 || kind === 1) {
      window = [...window, ...turn()];
      if (kind === 1) window.push(...turn(), ...turn());
    } else if (kind === 2) {
      // A deep edit somewhere in the history: a text message rewritten, or (before a tool message) one inserted.
      const at = 1 + pick(window.length - 1);
      const textOnly = window[at]!.blocks.every((b) => b.kind === 'text');
      window = [...window.slice(0, at), msg('user', text(words(5))), ...window.slice(textOnly ? at + 1 : at), ...turn()];
    } else {
      // A compaction: a run of whole turns replaced by a summary.
      const from = 1 + pick(Math.max(1, window.length - 6));
      let to = from + 1 + pick(5);
      while (to < window.length && window[to]!.blocks.some((b) => b.kind === 'tool_result')) to++;
      window = [...window.slice(0, from), msg('user', text(`Summary: ${words(4)}`)), ...window.slice(to)];
    }
    specs.push({ source: kind === 3 ? ('compaction' as const) : ('runtime' as const), before: win([tool('read_file')], beforeWindow, beforeWindow.length), after: win([tool('read_file')], window, Math.min(window.length, beforeWindow.length)), decision: 'patch' as const, findings: [] });
  }
  return report(`/work/random-${seed}.trace.jsonl`, specs);
}

/** Both diff models' texts, read through Monaco's API (exposed to the test, see `exposeMonaco`). */
function modelTexts(page: Page): Promise<{ before: string; after: string }> {
  return page.evaluate(() => {
    const monaco = (window as unknown as { monaco: { editor: { getDiffEditors(): { getModel(): { original: { getValue(): string }; modified: { getValue(): string } } }[] } } }).monaco;
    const model = monaco.editor.getDiffEditors()[0]!.getModel();
    return { before: model.original.getValue(), after: model.modified.getValue() };
  });
}

/** The diff's line changes: the left side's changed lines (first, last; none for lines inserted). */
function lineChanges(page: Page): Promise<[number, number][]> {
  return page.evaluate(() => {
    const monaco = (window as unknown as { monaco: { editor: { getDiffEditors(): { getLineChanges(): { originalStartLineNumber: number; originalEndLineNumber: number }[] | null }[] } } }).monaco;
    return (monaco.editor.getDiffEditors()[0]!.getLineChanges() ?? []).map((c) => [c.originalStartLineNumber, c.originalEndLineNumber] as [number, number]);
  });
}

/** The left side's lines folded behind a badge. */
function foldedLines(page: Page): Promise<number[]> {
  return page.locator('.editor.original .pl-fold').evaluateAll((badges) => badges.map((b) => Number((b as HTMLElement).dataset.line)).sort((a, b) => a - b));
}

/** What folds, from the whole text: every line of at least 2,000 characters (FOLD_CHARS) that no change touches. */
function expectedFolds(text: string, changes: readonly [number, number][]): number[] {
  const changed = (line: number) => changes.some(([first, last]) => last > 0 && first <= line && line <= last);
  return text.split('\n').flatMap((line, i) => (line.length >= 2_000 && !changed(i + 1) ? [i + 1] : []));
}

async function walk(seed: number, moves: number): Promise<void> {
  const steps = 8;
  const fixture: Fixture = fixtureOf(randomReport(seed, steps), 'light', ENGINE, 1);
  const { page, errors } = await openInspector(harness, fixture, 'light', 1400, exposeMonaco);
  const pick = random(seed ^ 0x5eed);
  let at = 1;
  let folded = 0;
  for (let move = 0; move < moves; move++) {
    const choice = pick(5);
    const target = choice < 2 ? Math.min(steps, at + 1) : choice < 4 ? Math.max(1, at - 1) : 1 + pick(steps);
    if (target === at) continue;
    if (target === at + 1) await page.keyboard.press(']');
    else if (target === at - 1) await page.keyboard.press('[');
    else await page.locator(`.pl-tick[data-step="${target}"]`).click();
    at = target;
    await waitReady(page, at);
    const shown = await modelTexts(page);
    const detail = fixture.details[at]!;
    assert.equal(shown.before, detail.before.text, `seed ${seed}, move ${move}: step ${at}'s consumed prefix`);
    assert.equal(shown.after, detail.after.text, `seed ${seed}, move ${move}: step ${at}'s rewrite`);
    assert.deepEqual(await foldedLines(page), expectedFolds(detail.before.text, await lineChanges(page)), `seed ${seed}, move ${move}: step ${at}'s folds`);
    folded = Math.max(folded, await page.evaluate(() => Number(document.body.dataset.folds ?? '0')));
  }
  assert.ok(folded > 0, `seed ${seed}: some steps fold their long unchanged lines (kept hidden across splices)`);
  const sent = await page.evaluate(() => (window as unknown as { __sent: string[] }).__sent);
  assert.ok(sent.filter((t) => t === 'stepEdit').length >= moves / 3, `seed ${seed}: most steps arrived as splices (${sent.join(' ')})`);
  assert.deepEqual(errors, []);
  await page.context().close();
}

for (const seed of [1, 2, 3, 4]) {
  test(`random steps (appends, deep edits, compactions) applied as splices leave the models equal to the full texts (seed ${seed})`, async () => {
    await walk(seed, 24);
  });
}
