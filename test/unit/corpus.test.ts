/**
 * The shared corpus of real files (`../shared/corpus`, read in place; its
 * SOURCES.md says who wrote each file): every file gets the verdict written
 * down for it in corpus-verdicts.ts, through the real CLI; every recognised file
 * loads without a reader error; the folder checks in seconds; damaged copies
 * never crash a reader. The facts of SOURCES.md are asserted in the per-format
 * tests.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { build } from 'esbuild';
import fc from 'fast-check';
import { checkTranscript } from '../../src/core/check';
import { createEngineContext } from '../../src/core/context';
import { ADAPTERS, adapterFor, formatsHint } from '../../src/core/formats/registry';
import { inputFromFile, inputFromText } from '../../src/core/io';
import type { JsonReport } from '../../src/core/report/json';
import { VERDICTS } from './corpus-verdicts';
import { CORPUS } from '../support/corpus';

const files = fs
  .readdirSync(CORPUS, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) => fs.readdirSync(path.join(CORPUS, d.name)).map((name) => ({ folder: d.name, name: `${d.name}/${name}`, file: path.join(CORPUS, d.name, name) })));
const recognised = VERDICTS.filter((v) => v.format !== null);

/** The CLI bundle with its rank tables, built once into a temporary folder (cli.test.ts builds its own into dist/). */
const BUNDLE = fs.mkdtempSync(path.join(os.tmpdir(), 'prefix-lens-verdicts-'));
const CLI = path.join(BUNDLE, 'cli.js');
before(async () => {
  const root = path.resolve(__dirname, '..', '..');
  await build({ entryPoints: [path.join(root, 'src/cli/main.ts')], outfile: CLI, bundle: true, format: 'cjs', platform: 'node', target: 'node20', logLevel: 'error' });
  fs.mkdirSync(path.join(BUNDLE, 'ranks'));
  for (const encoding of ['o200k_base', 'cl100k_base']) fs.copyFileSync(path.join(root, `node_modules/js-tiktoken/dist/ranks/${encoding}.cjs`), path.join(BUNDLE, 'ranks', `${encoding}.js`));
});
after(() => fs.rmSync(BUNDLE, { recursive: true, force: true }));

interface CliVerdict {
  readonly format: string | null;
  readonly decisions: string[];
  readonly findings: Record<string, number>;
  readonly exit: number;
}

/** Every corpus file checked by one run of the real CLI; each file's own exit code as main.ts computes it. */
function cliVerdicts(): { verdicts: Map<string, CliVerdict>; exit: number | null } {
  const run = spawnSync(process.execPath, [CLI, 'check', '--json', ...files.map((f) => f.file)], { encoding: 'utf8', timeout: 120_000 });
  const verdicts = new Map<string, CliVerdict>();
  for (const report of JSON.parse(run.stdout) as JsonReport[]) {
    const findings: Record<string, number> = {};
    for (const f of report.findings) findings[`${f.severity} ${f.rule}`] = (findings[`${f.severity} ${f.rule}`] ?? 0) + 1;
    const exit = report.findings.some((f) => f.severity === 'error') ? 1 : 0;
    verdicts.set(path.relative(CORPUS, report.file), { format: report.format, decisions: report.steps.map((s) => s.decision), findings, exit });
  }
  for (const line of run.stderr.split('\n').filter(Boolean)) {
    const file = files.find((f) => line.startsWith(`prefix-lens: ${f.file}: `));
    assert.ok(file && /not recognised/.test(line), `only unrecognised files are troubles: ${line}`);
    verdicts.set(file.name, { format: null, decisions: [], findings: {}, exit: 2 });
  }
  return { verdicts, exit: run.status };
}

describe('corpus: every file gets the verdict written down for it', () => {
  it('has a row for every corpus file and a corpus file for every row', () => {
    assert.deepEqual(files.map((f) => f.name).sort(), VERDICTS.map((v) => v.file).sort());
  });

  it('the CLI gives each file its verdict: format, decisions, findings by severity and rule, exit code', () => {
    const { verdicts, exit } = cliVerdicts();
    for (const expected of VERDICTS) {
      const got = verdicts.get(expected.file);
      assert.ok(got, `${expected.file} was checked`);
      const { file, reason, ...want } = expected;
      assert.deepEqual({ ...got, decisions: [...got.decisions] }, { ...want, decisions: [...want.decisions] }, `${file} (${reason})`);
    }
    assert.equal(exit, Math.max(...VERDICTS.map((v) => v.exit)), 'the run exits with the worst file');
  });

  it('no clean file gets an error: exit 1 only where the reason says the file is broken', () => {
    for (const v of VERDICTS.filter((v) => v.exit === 1)) assert.match(v.reason, /^not clean: /, v.file);
  });

  for (const { file, format } of recognised) {
    it(`${file}: read in process without a reader error, every finding with a range`, () => {
      const report = checkTranscript(inputFromFile(path.join(CORPUS, file)), { tokens: false });
      assert.equal(report.format, format);
      for (const f of report.findings) {
        assert.doesNotMatch(f.message, /reader stopped/, f.message);
        assert.ok(f.range.start >= 0 && f.range.end >= f.range.start, `${f.rule} has a range`);
      }
    });
  }

  // About 1.3 s on an idle machine; the ceiling leaves room for a loaded CI box
  // while still catching a quadratic blow-up.
  it('checks the whole folder, with token counts, in seconds', (t) => {
    const context = createEngineContext('o200k_base');
    checkTranscript(inputFromText('warm.json', '{"messages":[{"role":"user","content":"hi"}]}'), {}, context);
    const started = Date.now();
    for (const { file } of recognised) checkTranscript(inputFromFile(path.join(CORPUS, file)), {}, context);
    const elapsed = Date.now() - started;
    t.diagnostic(`corpus checked in ${elapsed} ms`);
    assert.ok(elapsed < 30000, `took ${elapsed} ms`);
  });
});

describe('corpus: sniffing picks the reader that sees the tool parts', () => {
  /** The calls and results a reader sees in a file, over all its windows (each part once, by where it is and its id); -1 when it cannot read it. */
  const toolParts = (adapter: (typeof ADAPTERS)[number], file: string): number => {
    const seen = new Set<string>();
    try {
      for (const event of adapter.read(inputFromFile(file))) {
        if (event.kind !== 'window') continue;
        for (const block of event.window.messages.flatMap((m) => m.blocks)) {
          if (block.kind === 'tool_call') seen.add(`call ${block.id} ${block.source?.start}`);
          if (block.kind === 'tool_result') seen.add(`result ${block.callId} ${block.source?.start}`);
        }
      }
    } catch {
      return -1;
    }
    return seen.size;
  };

  for (const { file, format } of recognised) {
    it(`${file}: no other reader sees more of its tool parts than ${format}`, () => {
      const counts = ADAPTERS.map((a) => [a.id, toolParts(a, path.join(CORPUS, file))] as const);
      const chosen = counts.find(([id]) => id === format)![1];
      for (const [id, n] of counts) assert.ok(n <= chosen, `${id} sees ${n} tool parts, ${format} ${chosen}`);
    });
  }
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
    .map(({ name, file }) => ({ format: VERDICTS.find((v) => v.file === name)!.format!, text: fs.readFileSync(file, 'utf8').split('\n').slice(0, 40).join('\n') }));

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
