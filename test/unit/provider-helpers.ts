/**
 * Shared by the provider-format tests: inputs from text or fixture files, and
 * the events an adapter yields, split by kind.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Finding } from '../../src/core/findings';
import { detectFormat } from '../../src/core/formats/registry';
import { headOf, inputFromText } from '../../src/core/io';
import type { ContextWindow, Rewrite } from '../../src/core/model';
import type { FormatAdapter, TranscriptEvent } from '../../src/core/transcript';
import { CORPUS } from '../support/corpus';

/**
 * The shared corpus of real files other people wrote (its SOURCES.md says whose),
 * read in place beside the repository (`../shared/corpus`), never copied in.
 */
export const PROVIDERS = path.join(__dirname, '..', 'fixtures', 'providers');

export function fileText(file: string): string {
  return fs.readFileSync(file, 'utf8');
}

/** Every file of a corpus folder, as full paths. */
export function corpusFiles(folder: string): string[] {
  const dir = path.join(CORPUS, folder);
  return fs.readdirSync(dir).map((name) => path.join(dir, name));
}

/** Every file of the corpus a reader recognises, with its text and that reader. */
export function* recognisedCorpusFiles(): Generator<{ adapter: FormatAdapter; file: string; text: string }> {
  for (const folder of fs.readdirSync(CORPUS)) {
    const dir = path.join(CORPUS, folder);
    if (!fs.statSync(dir).isDirectory()) continue;
    for (const name of fs.readdirSync(dir)) {
      const file = path.join(dir, name);
      const text = fs.readFileSync(file, 'utf8');
      const adapter = detectFormat(headOf(inputFromText(file, text)));
      if (adapter) yield { adapter, file, text };
    }
  }
}

export interface Events {
  readonly all: TranscriptEvent[];
  readonly windows: ContextWindow[];
  readonly steps: Rewrite[];
  readonly findings: Finding[];
  /** Event kinds in order, e.g. ['window', 'step', 'window']. */
  readonly kinds: string[];
}

export function readEvents(adapter: FormatAdapter, file: string, text = fileText(file)): Events {
  return splitEvents([...adapter.read(inputFromText(file, text))]);
}

/** An adapter's events, split by kind. */
export function splitEvents(all: TranscriptEvent[]): Events {
  return {
    all,
    windows: all.flatMap((e) => (e.kind === 'window' ? [e.window] : [])),
    steps: all.flatMap((e) => (e.kind === 'step' ? [e.rewrite] : [])),
    findings: all.flatMap((e) => (e.kind === 'finding' ? [e.finding] : [])),
    kinds: all.map((e) => e.kind),
  };
}

/** The text a range covers. */
export function slice(text: string, range: { start: number; end: number } | undefined): string {
  if (!range) throw new Error('no range');
  return text.slice(range.start, range.end);
}
