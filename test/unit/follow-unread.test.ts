/**
 * Following a Claude Code session with parts the reader does not read (parts
 * of unknown types, tool calls in another provider's shape) spread through it:
 * each report's unread-parts findings are those of a check of the whole text
 * (counts, type names in order, first and related locations), while a report
 * walks only the messages from the previous final window's last one on
 * (`UnreadMemo`).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it, mock } from 'node:test';
import { checkTranscript } from '../../src/core/check';
import { Follower } from '../../src/core/follow';
import type { ContextWindow } from '../../src/core/model';
import { collectUnreadParts, forkUnreadParts, unreadParts, UnreadMemo, type UnreadParts } from '../../src/core/unread-parts';

const FILE = path.resolve(__dirname, '..', 'fixtures', 'claude-code', 'unread-parts-spread.jsonl');
const TEXT = fs.readFileSync(FILE, 'utf8');
const LINES = TEXT.split(/(?<=\n)/);

describe('following a session with unread parts counts only what is new', () => {
  it('reports, line by line and at half lines, what a check of the whole text so far reports', () => {
    const follower = new Follower(FILE);
    let at = 0;
    for (const [i, line] of LINES.entries()) {
      // The first line whole: half of it is no format yet.
      const half = i === 0 ? line.length : Math.floor(line.length / 2);
      for (const piece of [line.slice(0, half), line.slice(half)].filter((p) => p !== '')) {
        const report = follower.append(piece);
        at += piece.length;
        assert.deepEqual(report, checkTranscript({ file: FILE, text: TEXT.slice(0, at) }), `after ${at} of ${TEXT.length} characters`);
      }
    }
    const said = checkTranscript({ file: FILE, text: TEXT }).findings.filter((f) => f.rule === 'record-skipped').map((f) => f.message);
    assert.equal(said.length, 2, 'the fixture has parts of unknown types and tool-shaped parts');
    assert.match(said.join('\n'), /8 parts of a type .* \("widget_v2", no "type", "hologram", "sparkle"; first at line 2\)/);
    assert.match(said.join('\n'), /2 parts hold a tool call or result .* \(first at line 5\)/);
  });

  it('walks a report’s final window from the previous one’s last message on', () => {
    const collect = mock.method(UnreadMemo.prototype, 'collect');
    try {
      const follower = new Follower(FILE);
      const finals: { length: number; start: number }[] = [];
      for (const line of LINES) {
        follower.append(line);
        const call = collect.mock.calls.at(-1)!;
        finals.push({ length: (call.arguments[0] as ContextWindow).messages.length, start: call.result as number });
      }
      const resumed = finals.filter(({ start }, i) => start > 0 && start === finals[i - 1]!.length - 1);
      const whole = finals.filter(({ start }) => start === 0);
      // Walked whole: the first two windows (no message before the last) and the one after the rewind (the run counted its windows).
      assert.equal(whole.length, 3, JSON.stringify(finals));
      assert.equal(resumed.length, finals.length - whole.length, JSON.stringify(finals));
      assert.ok(finals.at(-1)!.length >= 10 && finals.at(-1)!.start === finals.at(-1)!.length - 1, JSON.stringify(finals));
    } finally {
      collect.mock.restore();
    }
  });

  it('walks a window whole when what was counted before it changed, though it starts as the memo’s does', () => {
    const final = checkTranscript({ file: FILE, text: TEXT }, { keepRewrites: true }).finalWindow!;
    const first = (n: number): ContextWindow => ({ ...final, messages: final.messages.slice(0, n) });
    const n = final.messages.length;
    const base = unreadParts();
    const memo = new UnreadMemo();
    memo.collect(first(n - 4), forkUnreadParts(base));
    // The run counts a window of later messages (with a part of an unknown type): the memo's counts miss it.
    collectUnreadParts({ ...final, messages: final.messages.slice(n - 3, n - 1) }, base);
    const [memoised, walked] = [forkUnreadParts(base), forkUnreadParts(base)];
    assert.equal(memo.collect(final, memoised), 0);
    collectUnreadParts(final, walked);
    const entries = (u: UnreadParts) => [...u.parts, ...u.unknown];
    assert.ok(base.unknown.size > 0 && entries(walked).length > base.unknown.size, 'the window has parts of its own');
    assert.deepEqual(entries(memoised), entries(walked));
  });
});
