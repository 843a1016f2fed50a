/**
 * Shared by the tests of the wild-format adapters (Claude Code, Codex,
 * Inspect, OTel, Gemini, Bedrock): fixture paths, the events an adapter yields
 * split by kind, and small views of windows for assertions.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { inputFromFile, inputFromText } from '../../src/core/io';
import type { ContextWindow, Message } from '../../src/core/model';
import { toolPairs } from '../../src/core/model';
import { LineIndex } from '../../src/core/text';
import type { FormatAdapter } from '../../src/core/transcript';
import { CORPUS } from '../support/corpus';
import { splitEvents, type Events as AdapterEvents } from './provider-helpers';

export { fileText } from './provider-helpers';
export const FIXTURES = path.join(__dirname, '..', 'fixtures');

export const corpus = (folder: string, name: string) => path.join(CORPUS, folder, name);
export const fixture = (folder: string, name: string) => path.join(FIXTURES, folder, name);

export interface Events extends AdapterEvents {
  /** The last window: the transcript's final state. */
  readonly final: ContextWindow;
}

/** Reads a file (or a text under a file name) with one adapter. */
export function readWith(adapter: FormatAdapter, file: string, text?: string): Events {
  const input = text === undefined ? inputFromFile(file) : inputFromText(file, text);
  const events = splitEvents([...adapter.read(input)]);
  const final = events.windows[events.windows.length - 1];
  if (!final) throw new Error(`${file}: no window`);
  return { ...events, final };
}

/** The 1-based line of an offset in a file. */
export function lineOf(file: string, offset: number): number {
  return LineIndex.of(fs.readFileSync(file, 'utf8')).position(offset).line;
}

/** The text under a range of a file. */
export function textAt(file: string, range: { start: number; end: number } | undefined): string {
  if (!range) throw new Error('no range');
  return fs.readFileSync(file, 'utf8').slice(range.start, range.end);
}

/** Every text block of a message, joined. */
export function textOf(message: Message | undefined): string {
  return (message?.blocks ?? []).map((b) => (b.kind === 'text' ? b.text : '')).join('');
}

/** Calls with no result and results with no call, by id. */
export function unpaired(window: ContextWindow): { calls: string[]; results: string[] } {
  const calls: string[] = [];
  const results: string[] = [];
  for (const pair of toolPairs(window).values()) {
    if (pair.call && pair.results.length === 0) calls.push(pair.id);
    if (!pair.call && pair.results.length > 0) results.push(pair.id);
  }
  return { calls, results };
}

export function countBlocks(window: ContextWindow, kind: 'tool_call' | 'tool_result'): number {
  return window.messages.reduce((n, m) => n + m.blocks.filter((b) => b.kind === kind).length, 0);
}
