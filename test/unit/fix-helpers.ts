/** Shared helpers of the fix planner tests: reading steps back, and checking the bytes an edit left alone. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TextEdit } from '../../src/core/results';
import { inputFromText } from '../../src/core/io';
import { parseJson } from '../../src/core/json/parse';
import { toValue } from '../../src/core/json/nodes';
import type { Rewrite } from '../../src/core/model';
import type { FormatAdapter } from '../../src/core/transcript';

export const FIXTURES = path.join(__dirname, '..', 'fixtures', 'fix');
export const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), 'utf8');

function rewritesOf(adapter: FormatAdapter, text: string, file = 'trace.jsonl'): Rewrite[] {
  const out: Rewrite[] = [];
  for (const event of adapter.read(inputFromText(file, text))) if (event.kind === 'step') out.push(event.rewrite);
  return out;
}

/** The rewrite whose event starts on the given 0-based line. */
export function rewriteOnLine(adapter: FormatAdapter, text: string, line: number, file?: string): Rewrite {
  const start = text.split('\n').slice(0, line).reduce((n, l) => n + l.length + 1, 0);
  const found = rewritesOf(adapter, text, file).find((r) => r.range?.start === start);
  assert.ok(found, `no rewrite on line ${line + 1}`);
  return found;
}

export function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length - 1;
}

/** Every line but `line` is byte-identical, and the edited line still parses. */
export function assertOnlyLineChanged(original: string, edited: string, line: number): void {
  const a = original.split('\n');
  const b = edited.split('\n');
  assert.equal(b.length, a.length, 'line count changed');
  a.forEach((text, i) => {
    if (i !== line) assert.equal(b[i], text, `line ${i + 1} changed`);
  });
  assert.ok(parseJson((b[line] ?? '').replace(/\r$/, '')).ok, 'the edited line is not JSON');
}

/** The text outside the edited ranges is the same, in order, in the edited file. */
export function assertOutsideUnchanged(original: string, edited: string, edits: readonly TextEdit[]): void {
  let at = 0;
  let pos = 0;
  for (const edit of [...edits].sort((x, y) => x.range.start - y.range.start)) {
    const kept = original.slice(at, edit.range.start);
    assert.equal(edited.slice(pos, pos + kept.length), kept);
    pos += kept.length + edit.newText.length;
    at = edit.range.end;
  }
  assert.equal(edited.slice(pos), original.slice(at));
}

export function valuesOf(text: string, line: number): Record<string, unknown> {
  const parsed = parseJson((text.split('\n')[line] ?? '').replace(/\r$/, ''));
  assert.ok(parsed.ok);
  return toValue(parsed.node) as Record<string, unknown>;
}

/** A native trace: the header line, then one line per event. */
export function trace(...events: unknown[]): string {
  return [{ type: 'prefix-lens/trace', version: 1 }, ...events].map((e) => JSON.stringify(e)).join('\n') + '\n';
}

export const sys = { role: 'system', content: 'You are helpful.' };
export const tool = (name: string) => ({ name, version: '1', input_schema: { type: 'object' } });
export const call = (id: string, name = 'lookup') => ({ id, name, input: { q: id } });
export const result = (id: string, name = 'lookup') => ({ role: 'tool', tool_call_id: id, name, content: `result ${id}` });
