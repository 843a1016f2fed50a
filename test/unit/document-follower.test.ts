/**
 * The extension's follower of a growing document (extension/engine.ts): after
 * an append it reads only the new lines and gives the report `checkRequest`
 * gives (limits and tokens as the editor sets them); an edit, a change before
 * the read position, other settings or a large document read in slices are
 * each handled without a stale report.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { checkRequest, DocumentFollower, type TranscriptRequest } from '../../src/extension/engine';
import { CORPUS } from '../support/corpus';
import { generateLog } from '../../bench/generate';

const session = fs.readFileSync(path.join(CORPUS, 'claude-code', 'spotter_258c7280-ae70-4798-800f-63464d01a85d.excerpt-L1236-L1278.jsonl'), 'utf8');
const file = '/tmp/session.jsonl';
const request = (text: string, limits: TranscriptRequest['limits'] = {}): TranscriptRequest => ({ kind: 'transcript', file, text, tokens: false, limits });
const lines = session.split(/(?<=\n)/);
const upTo = (n: number) => lines.slice(0, n).join('');
const pause = () => new Promise<void>((resolve) => setImmediate(resolve));

/** As the Checker reads a large document: `prepare` once, then the rest in slices. */
function sliced(follower: DocumentFollower, request: TranscriptRequest, version: number, editedAt: number, slice: number) {
  follower.prepare(request, version, editedAt);
  return follower.readInSlices(request, version, pause, slice);
}

describe('DocumentFollower', () => {
  it('after appends reads only the new lines and reports what checkRequest reports', () => {
    const follower = new DocumentFollower();
    let version = 1;
    assert.equal(follower.follows(request(upTo(5)), -1), false, 'nothing read yet');
    for (let n = 5; n <= lines.length; n += 9) {
      const text = upTo(n);
      const appended = follower.follows(request(text), -1);
      assert.equal(appended, n > 5, `append ${n}`);
      const before = follower.position;
      assert.deepEqual(follower.check(request(text), version++, -1), checkRequest(request(text)));
      assert.equal(follower.position, text.length);
      if (appended) assert.ok(before > 0 && before < text.length);
    }
    assert.deepEqual(checkRequest(request(upTo(41))).findings.map((f) => f.rule), ['prefix-mutated'], 'an append brings the compaction step and its finding');
  });

  it('reads again from the start after an edit, a change before the read position, or other settings', () => {
    const follower = new DocumentFollower();
    follower.check(request(upTo(10)), 1, -1);
    assert.equal(follower.follows(request(upTo(12)), 2), false, 'an edit after the version read (editedAt 2 > 1)');
    assert.equal(follower.follows(request(upTo(12)), 1), true, 'the edit was the version read');
    const read = upTo(10);
    const nearEnd = `${read.slice(0, -20)}X${read.slice(-19)}${lines[10]}`;
    assert.equal(follower.follows(request(nearEnd), -1), false, 'a change just before the read position (no change event needed)');
    assert.equal(follower.follows(request(upTo(9)), -1), false, 'truncated');
    assert.equal(follower.follows(request(upTo(12), { maxLineChars: 100_000 }), -1), false, 'other limits');
    const replaced = `${lines[3]}${upTo(12)}`;
    assert.deepEqual(follower.check(request(replaced), 3, 3), checkRequest(request(replaced)), 'checked from the start');
  });

  it('a document over maxFileBytes stops where checkRequest stops, appended or not', () => {
    const limits = { maxFileBytes: upTo(20).length + 10 };
    const follower = new DocumentFollower();
    follower.check(request(upTo(15), limits), 1, -1);
    for (const n of [20, 21, 30]) assert.deepEqual(follower.check(request(upTo(n), limits), n, -1), checkRequest(request(upTo(n), limits)), `${n} lines`);
    assert.match(checkRequest(request(upTo(30), limits)).stopped?.reason ?? '', /maxFileBytes/);
  });

  it('a large document read in slices gives checkRequest\'s report and follows its next append; a check meanwhile takes over', async () => {
    const follower = new DocumentFollower();
    const reading = sliced(follower, request(upTo(40)), 1, -1, 4096);
    await pause();
    assert.equal(follower.follows(request(upTo(41)), -1), true, 'while reading, an append would go on from the read position');
    assert.equal(follower.follows(request(upTo(41)), 2), false, 'an edit after the version being read');
    assert.deepEqual(await reading, checkRequest(request(upTo(40))));
    assert.equal(follower.follows(request(upTo(41)), -1), true);
    assert.deepEqual(follower.check(request(upTo(41)), 2, -1), checkRequest(request(upTo(41))));

    const again = sliced(follower, request(upTo(40)), 3, -1, 4096);
    assert.deepEqual(follower.check(request(upTo(30)), 4, 4), checkRequest(request(upTo(30))), 'a check during the read');
    assert.equal(await again, undefined, 'the superseded read gives no report');
    assert.equal(follower.position, upTo(30).length, 'the superseded read stopped');
    assert.equal(follower.follows(request(upTo(31)), -1), true);
  });

  it('an append during a read in slices: that read stops, the next goes on from where it stopped, with checkRequest\'s report', async () => {
    const follower = new DocumentFollower();
    const reading = sliced(follower, request(upTo(40)), 1, -1, 1024);
    await pause();
    await pause();
    const at = follower.position;
    assert.ok(at > 0 && at < upTo(40).length, 'reading');
    assert.equal(follower.prepare(request(upTo(41)), 2, -1), 'appended', 'not read again from the start');
    assert.equal(follower.position, at);
    assert.equal(await reading, undefined, 'the first read gives no report');
    assert.equal(follower.position, at, 'and stopped reading');
    assert.deepEqual(follower.read(request(upTo(41)), 2), checkRequest(request(upTo(41))));
    assert.deepEqual(follower.check(request(upTo(42)), 3, -1), checkRequest(request(upTo(42))), 'the next append too');
  });

  it('stop: a read in slices stops with no report, what was read let go; the next check reads from the start', async () => {
    const follower = new DocumentFollower();
    const reading = sliced(follower, request(upTo(40)), 1, -1, 1024);
    await pause();
    await pause();
    assert.ok(follower.position > 0 && follower.position < upTo(40).length, 'reading');
    follower.stop();
    assert.equal(await reading, undefined);
    assert.equal(follower.position, 0);
    assert.equal(follower.prepare(request(upTo(41)), 2, -1), 'restarted');
    assert.deepEqual(follower.read(request(upTo(41)), 2), checkRequest(request(upTo(41))));
  });
});

describe('DocumentFollower after an edit it was told of', () => {
  const log = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pl-follow-edit-')), 'requests.jsonl');
  generateLog(log, { requests: 40, bytesPerTurn: 200, seed: 9 });
  const text = fs.readFileSync(log, 'utf8');
  const at = (t: string): TranscriptRequest => ({ kind: 'transcript', file: log, text: t, tokens: 'o200k_base', limits: {} });
  const change = (t: string, from: number) => `${t.slice(0, from)}our${t.slice(from + 3)}`;
  /** A follower that checked the log, then was told of an edit in its last line and rewound to the checkpoint before it. */
  const editedAtLastLine = () => {
    const follower = new DocumentFollower();
    follower.check(at(text), 1, -1);
    const last = text.indexOf('the', text.lastIndexOf('\n', text.length - 2) + 1);
    const edited = change(text, last);
    follower.edited(2, last);
    assert.equal(follower.prepare(at(edited), 2, 2), 'rewound');
    return { follower, last, edited };
  };

  it('reads again from the checkpoint before the first changed character, inline or in slices, with checkRequest\'s report', async () => {
    const { follower, last, edited } = editedAtLastLine();
    assert.ok(follower.position > text.length / 2, `went back only to ${follower.position} of ${text.length}`);
    assert.deepEqual(follower.check(at(edited), 2, 2), checkRequest(at(edited)));

    // Two edits before a read in slices: from the first changed character (the smaller offset) on.
    const middle = text.indexOf('the', Math.floor(text.length * 0.6));
    const twice = change(change(edited, last + 40), middle);
    follower.edited(3, last + 40);
    follower.edited(4, middle);
    assert.deepEqual(await sliced(follower, at(twice), 4, 4, 4096), checkRequest(at(twice)));

    // An edit not told of (editedAt past every edit known) reads from the start.
    const head = change(twice, twice.indexOf('the', 1000));
    assert.equal(follower.prepare(at(head), 5, 5), 'restarted');
    assert.deepEqual(follower.check(at(head), 5, 5), checkRequest(at(head)));
  });

  it('Enter pressed in a middle request, then the line break removed: each re-check in slices ends where it meets the reading before the edit, not at the text\'s end', async () => {
    const follower = new DocumentFollower();
    follower.check(at(text), 1, -1);
    const middle = text.indexOf('"text":"', Math.floor(text.length / 2)) + '"text":"'.length + 3;
    const entered = `${text.slice(0, middle)}\n${text.slice(middle)}`;
    const edits = [
      { name: 'Enter', next: entered, change: { from: middle, removed: 0, inserted: '\n' } },
      { name: 'the line break removed', next: text, change: { from: middle, removed: 1, inserted: '' } },
    ];
    for (const [i, { name, next, change }] of edits.entries()) {
      const version = i + 2;
      follower.edited(version, middle, change);
      assert.equal(follower.prepare(at(next), version, version), 'rewound', name);
      const from = follower.position;
      let slices = 0;
      const report = await follower.readInSlices(at(next), version, () => (slices++, pause()), 1024);
      assert.deepEqual(report, checkRequest(at(next)), name);
      assert.equal(follower.position, next.length, `${name}: the whole text counts as read`);
      // The edited line and the few after it within which the reading meets the one before (REUSE_LINES), one pause a slice.
      let met = middle;
      for (let n = 0; n < 6; n++) met = next.indexOf('\n', met) + 1;
      assert.ok(met > 0 && met < next.length / 2 + text.length / 4, 'the log goes on well past them');
      assert.ok(slices <= Math.ceil((met - from) / 1024) + 2, `${name}: ${slices} slices read, for ${met - from} characters up to where the readings meet (of ${next.length - from} after the checkpoint)`);
    }
    assert.equal(follower.follows(at(`${text}${text.slice(text.lastIndexOf('\n', text.length - 2) + 1)}`), -1), true, 'the next append reads on from the end');
  });

  it('a second edit while the first one\'s re-check reads in slices: that read stops, the next goes back to the checkpoint before the earlier edit', async () => {
    const { follower, last, edited } = editedAtLastLine();
    const first = follower.readInSlices(at(edited), 2, pause, 1024);
    await pause();
    await pause();
    const reading = follower.position;
    assert.ok(reading < edited.length, 'the first re-check is still reading');

    const earlier = text.indexOf('the', Math.floor(text.length * 0.8));
    const twice = change(edited, earlier);
    follower.edited(3, earlier);
    assert.equal(follower.prepare(at(twice), 3, 3), 'rewound', 'not read again from the start');
    const rewound = follower.position;
    assert.ok(rewound > text.length / 2 && rewound <= earlier, `went back to ${rewound}, before the edit at ${earlier}, not to 0 of ${text.length}`);
    assert.equal(await first, undefined, 'the first read gives no report');
    assert.equal(follower.position, rewound, 'and stopped reading');
    assert.deepEqual(await follower.readInSlices(at(twice), 3, pause, 1024), checkRequest(at(twice)));

    // An edit past the first read's position, before it ended: the same.
    const third = change(twice, last + 20);
    follower.edited(4, last + 20);
    follower.prepare(at(third), 4, 4);
    const reread = follower.readInSlices(at(third), 4, pause, 1024);
    await pause();
    const fourth = change(third, earlier + 40);
    follower.edited(5, earlier + 40);
    assert.equal(follower.prepare(at(fourth), 5, 5), 'rewound');
    assert.deepEqual(follower.read(at(fourth), 5), checkRequest(at(fourth)), 'read inline after the stopped read in slices');
    assert.equal(await reread, undefined);
    assert.equal(follower.follows(at(`${fourth}`), 5), true, 'the next append reads on from there');
  });
});

describe('DocumentFollower.readAppended: lines appended on disk read from the file before the document reloads', () => {
  const onDisk = (text: string) => {
    const real = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pl-follow-disk-')), 'session.jsonl');
    fs.writeFileSync(real, text);
    return { real, at: (t: string): TranscriptRequest => ({ kind: 'transcript', file: real, text: t, tokens: false, limits: {} }) };
  };

  it('each append is read from the file (only whole lines), reports what checkRequest reports; the reloaded document finds it read', () => {
    const { real, at } = onDisk(upTo(5));
    const follower = new DocumentFollower();
    follower.check(at(upTo(5)), 1, -1);
    assert.equal(follower.readAppended(real), undefined, 'nothing appended');
    for (let n = 6; n <= lines.length; n += 3) {
      fs.writeFileSync(real, upTo(n));
      const report = follower.readAppended(real);
      assert.deepEqual(report, checkRequest(at(upTo(n))), `lines up to ${n} read from the file`);
      assert.equal(follower.position, upTo(n).length);
      // The editor's reload of the document: nothing more to read, the same report.
      assert.equal(follower.follows(at(upTo(n)), -1), true);
      assert.equal(follower.check(at(upTo(n)), n, -1), report);
    }
    fs.writeFileSync(real, session);
    assert.deepEqual(follower.readAppended(real), checkRequest(at(session)));
    const half = lines[lines.length - 1]!.slice(0, 20);
    fs.appendFileSync(real, `\n${half}`);
    const report = follower.readAppended(real);
    assert.deepEqual(report, checkRequest(at(`${session}\n`)), 'the whole line read, the half-written one left');
    assert.deepEqual(follower.check(at(`${session}\n${half}`), 99, -1), checkRequest(at(`${session}\n${half}`)), 'the reload reads the rest');
  });

  it('after a read in slices with a slice ending inside a surrogate pair (an emoji), the next append is read from the file', async () => {
    const read = upTo(40);
    const inString = read.indexOf('"text":"') + '"text":"'.length;
    const text = `${read.slice(0, inString)}\u{1F600}${read.slice(inString)}`;
    const { real, at } = onDisk(text);
    const follower = new DocumentFollower();
    // The first slice ends after the emoji's first half.
    assert.deepEqual(await sliced(follower, at(text), 1, -1, inString + 1), checkRequest(at(text)));
    fs.appendFileSync(real, lines[40]!);
    assert.deepEqual(follower.readAppended(real), checkRequest(at(`${text}${lines[40]}`)), 'the append read from the file');
  });

  it('a file that does not hold the text read (replaced, a byte order mark, a CRLF append) is left to the reload; so is a follower busy or unset', () => {
    const { real, at } = onDisk(upTo(10));
    const follower = new DocumentFollower();
    assert.equal(follower.readAppended(real), undefined, 'nothing read yet');
    follower.check(at(upTo(10)), 1, -1);
    fs.writeFileSync(real, `${upTo(9)}{"other":1}\n${lines.slice(10, 12).join('')}`);
    assert.equal(follower.readAppended(real), undefined, 'replaced before the read position');
    fs.writeFileSync(real, `\uFEFF${upTo(12)}`);
    assert.equal(follower.readAppended(real), undefined, 'a byte order mark shifts the bytes');
    fs.writeFileSync(real, `${upTo(10)}${lines[10]!.replace('\n', '\r\n')}`);
    assert.equal(follower.readAppended(real), undefined, 'a CRLF line end the editor may change');
    fs.writeFileSync(real, upTo(12));
    assert.deepEqual(follower.readAppended(real), checkRequest(at(upTo(12))), 'a plain append again');
    assert.equal(follower.readAppended(path.join(path.dirname(real), 'gone.jsonl')), undefined, 'a file gone');
  });
});
