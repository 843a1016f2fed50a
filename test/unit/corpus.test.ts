/**
 * The whole sample corpus (test/fixtures/corpus, described in its SOURCES.md):
 * every file is detected by content, loads without a crash, gets a report
 * through the engine, and the folder checks in seconds. The known facts of
 * SOURCES.md are asserted in the per-format tests; here only what must hold
 * for every file.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { checkTranscript } from '../../src/core/check';
import { createEngineContext } from '../../src/core/context';
import { ADAPTERS, adapterFor, formatsHint } from '../../src/core/formats/registry';
import { inputFromFile, inputFromText } from '../../src/core/io';
import { CORPUS } from './wild-helpers';

/** The format each corpus folder holds. */
const FOLDER_FORMAT: Record<string, string> = {
  'claude-code': 'claude-code',
  codex: 'codex',
  'inspect-ai': 'inspect',
  langfuse: 'otel',
  'anthropic-messages': 'anthropic',
  'openai-chat': 'openai-chat',
  'openai-responses': 'openai-responses',
};

const files = fs
  .readdirSync(CORPUS, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) => fs.readdirSync(path.join(CORPUS, d.name)).map((name) => ({ folder: d.name, file: path.join(CORPUS, d.name, name) })));

describe('corpus: every file gets a report', () => {
  it('holds the 26 files SOURCES.md lists (the issue says 25), in the known folders', () => {
    assert.equal(files.length, 26);
    for (const { folder } of files) assert.ok(FOLDER_FORMAT[folder], folder);
  });

  for (const { folder, file } of files) {
    it(`${folder}/${path.basename(file)}: detected as ${FOLDER_FORMAT[folder]}, read without a reader error`, () => {
      const report = checkTranscript(inputFromFile(file), { tokens: false });
      assert.equal(report.format, FOLDER_FORMAT[folder]);
      assert.equal(report.file, file);
      for (const f of report.findings) {
        assert.doesNotMatch(f.message, /reader stopped/, f.message);
        assert.ok(f.range.start >= 0 && f.range.end >= f.range.start, `${f.rule} has a range`);
      }
      assert.ok(report.steps.every((s) => ['patch', 'defer', 'abort'].includes(s.decision)));
    });
  }

  // About 1.3 s on an idle machine; the ceiling leaves room for a loaded CI box
  // while still catching a quadratic blow-up.
  it('checks the whole folder, with token counts, in seconds', (t) => {
    const context = createEngineContext('o200k_base');
    checkTranscript(inputFromText('warm.json', '{"messages":[{"role":"user","content":"hi"}]}'), {}, context);
    const started = Date.now();
    for (const { file } of files) checkTranscript(inputFromFile(file), {}, context);
    const elapsed = Date.now() - started;
    t.diagnostic(`corpus checked in ${elapsed} ms`);
    assert.ok(elapsed < 30000, `took ${elapsed} ms`);
  });
});

describe('corpus: a file no format matches', () => {
  it('gets a one-line hint naming every format', () => {
    const hint = formatsHint();
    assert.doesNotMatch(hint, /\n/);
    for (const adapter of ADAPTERS) assert.ok(hint.includes(adapter.id), adapter.id);
    for (const id of ['claude-code', 'codex', 'inspect', 'otel', 'gemini', 'bedrock']) assert.ok(hint.includes(id), id);
  });

  it('is refused by content, whatever its name', () => {
    assert.throws(() => checkTranscript(inputFromText('session.jsonl', '{"hello": "world"}\n'), { tokens: false }), /not recognised/);
  });
});

describe('corpus: damaged files never crash a reader', () => {
  /** The text files of the wild formats, cut to a few lines so each run stays small. */
  const samples = files
    .filter(({ folder, file }) => ['claude-code', 'codex', 'langfuse', 'inspect-ai'].includes(folder) && !file.endsWith('.eval'))
    .map(({ folder, file }) => ({ format: FOLDER_FORMAT[folder]!, text: fs.readFileSync(file, 'utf8').split('\n').slice(0, 40).join('\n') }));

  it('cutting, dropping and duplicating bytes gives findings, never an exception', () => {
    fc.assert(
      fc.property(fc.constantFrom(...samples), fc.nat(), fc.nat({ max: 200 }), fc.constantFrom('cut', 'drop', 'dup'), (sample, at, length, how) => {
        const pos = at % (sample.text.length + 1);
        const text =
          how === 'cut' ? sample.text.slice(0, pos) : how === 'drop' ? sample.text.slice(0, pos) + sample.text.slice(pos + length) : sample.text.slice(0, pos) + sample.text.slice(pos, pos + length) + sample.text.slice(pos);
        for (const id of ['claude-code', 'codex', 'inspect', 'otel', 'gemini', 'bedrock']) {
          const adapter = adapterFor(id)!;
          const events = [...adapter.read(inputFromText(`x.${sample.format}`, text))];
          // The session readers always end with a window; the request-log readers may have none to give.
          if (!['gemini', 'bedrock'].includes(id)) assert.ok(events.some((e) => e.kind === 'window'), `${id} yields a window`);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('any JSON value on any line is read or skipped, never an exception', () => {
    fc.assert(
      fc.property(fc.array(fc.json(), { maxLength: 6 }), (lines) => {
        const text = lines.join('\n');
        for (const id of ['claude-code', 'codex', 'inspect', 'otel', 'gemini', 'bedrock']) [...adapterFor(id)!.read(inputFromText('x.jsonl', text))];
      }),
      { numRuns: 200 },
    );
  });
});
