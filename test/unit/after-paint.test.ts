/**
 * The inspector's work after a step's frame (webview/after-paint.ts), with the browser's scheduling
 * functions stubbed: the step's texts are read in a background task right after the frame, not in an
 * idle period, which never comes while steps follow each other (issue 14).
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import { AfterPaint } from '../../webview/after-paint';

interface Stubbed {
  frames: (() => void)[];
  idle: { callback: () => void; timeout: number | undefined }[];
  background: (() => void)[];
  timers: (() => void)[];
}

const NAMES = ['requestAnimationFrame', 'requestIdleCallback', 'scheduler', 'setTimeout'] as const;
const saved = new Map<string, PropertyDescriptor | undefined>();
let s: Stubbed;

function stub(withScheduler: boolean): void {
  s = { frames: [], idle: [], background: [], timers: [] };
  const g = globalThis as Record<string, unknown>;
  g.requestAnimationFrame = (f: () => void) => s.frames.push(f);
  g.requestIdleCallback = (f: () => void, options?: { timeout?: number }) => s.idle.push({ callback: f, timeout: options?.timeout });
  g.scheduler = withScheduler
    ? {
        postTask: (f: () => void, options: { priority: string }) => {
          assert.equal(options.priority, 'background');
          s.background.push(f);
          return Promise.resolve();
        },
      }
    : undefined;
  g.setTimeout = (f: () => void, ms?: number) => {
    assert.equal(ms ?? 0, 0);
    s.timers.push(f);
  };
}

/** Runs and empties one queue. */
const run = (queue: (() => void)[]) => queue.splice(0).forEach((f) => f());

beforeEach(() => {
  for (const name of NAMES) saved.set(name, Object.getOwnPropertyDescriptor(globalThis, name));
  stub(true);
});
afterEach(() => {
  for (const name of NAMES) {
    const descriptor = saved.get(name);
    if (descriptor) Object.defineProperty(globalThis, name, descriptor);
    else delete (globalThis as Record<string, unknown>)[name];
  }
});

test('the texts are read in a background task right after the frame, with no idle period', () => {
  const after = new AfterPaint();
  const done: string[] = [];
  after.run('texts', () => done.push('texts'));
  assert.equal(s.background.length, 0, 'not before the frame');
  run(s.frames);
  assert.deepEqual(done, []);
  run(s.background);
  assert.deepEqual(done, ['texts']);
  assert.equal(s.idle.length, 0, 'no idle callback asked for');
});

test('a later step\'s texts replace the waiting ones: one task, the newest work', () => {
  const after = new AfterPaint();
  const done: string[] = [];
  after.run('texts', () => done.push('step 2'));
  after.run('texts', () => done.push('step 3'));
  assert.equal(s.frames.length, 1);
  run(s.frames);
  run(s.background);
  assert.deepEqual(done, ['step 3']);
  after.run('texts', () => done.push('step 4'));
  run(s.frames);
  run(s.background);
  assert.deepEqual(done, ['step 3', 'step 4']);
});

test('the other kinds still wait for an idle period (at most 100 ms), apart from the texts', () => {
  const after = new AfterPaint();
  const done: string[] = [];
  after.run('pairs', () => done.push('pairs'));
  after.run('texts', () => done.push('texts'));
  after.run('heights', () => done.push('heights'));
  run(s.frames);
  assert.deepEqual(s.idle.map((i) => i.timeout), [100]);
  run(s.background);
  assert.deepEqual(done, ['texts']);
  s.idle.splice(0).forEach((i) => i.callback());
  assert.deepEqual(done, ['texts', 'pairs', 'heights']);
});

test('dropped work is not done; without scheduler.postTask the texts go to a timer after the frame', () => {
  stub(false);
  const after = new AfterPaint();
  const done: string[] = [];
  after.run('pairs', () => done.push('pairs'));
  after.drop('pairs');
  after.run('texts', () => done.push('texts'));
  run(s.frames);
  assert.equal(s.background.length, 0);
  run(s.timers);
  s.idle.splice(0).forEach((i) => i.callback());
  assert.deepEqual(done, ['texts']);
});
