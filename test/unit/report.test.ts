/**
 * The report writers (src/core/report): --json shape and 1-based positions,
 * SARIF structure, Markdown tables; and the CLI's argument parser and palette.
 * Built on a hand-made Report over a known text, so positions are checked exactly.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseArgs } from '../../src/cli/args';
import { NO_COLOURS, paletteFor, plainReport, stepLine } from '../../src/cli/plain';
import type { Report, StepReport } from '../../src/core/results';
import { finding, RULE_IDS } from '../../src/core/findings';
import { toJsonReport } from '../../src/core/report/json';
import { toMarkdown } from '../../src/core/report/markdown';
import { toSarif } from '../../src/core/report/sarif';

/** Line 1: header, line 2: 'ab|cd', line 3: '{"x":"éé","id":"call_7"}' (UTF-16 offsets). */
const TEXT = 'header\nab|cd\n{"x":"éé","id":"call_7"}\n';
const LINE_STARTS = [0, 7, 13, 38];
const ID_START = TEXT.indexOf('"call_7"');

function step(index: number, decision: StepReport['decision'], invalidated = 0): StepReport {
  return {
    index,
    decision,
    source: index === 3 ? 'compaction' : 'request',
    applied: true,
    rules: decision === 'abort' ? ['tool-result-orphaned'] : [],
    range: { start: LINE_STARTS[2]!, end: LINE_STARTS[3]! - 1 },
    boundary: { messages: 2, offset: 10, tokens: 100 },
    cacheImpact: { consumedTokens: 50_000, invalidatedTokens: invalidated },
  };
}

const REPORT: Report = {
  file: 'logs/run.jsonl',
  format: 'anthropic',
  steps: [step(1, 'patch'), step(2, 'patch'), step(3, 'abort', 48_213), step(4, 'patch'), step(5, 'patch'), step(6, 'patch')],
  findings: [
    finding('invalid-json', { start: 7, end: 12 }, 'Unexpected token | in JSON'),
    finding('tool-result-orphaned', { start: ID_START, end: ID_START + 8 }, 'result | without call', { step: 3, toolCallId: 'call_7' }),
  ],
  lineStarts: LINE_STARTS,
};

describe('report/json', () => {
  it('has exactly the issue shape with 1-based line/column and null step for window findings', () => {
    const json = toJsonReport(REPORT);
    assert.deepEqual(Object.keys(json), ['file', 'format', 'steps', 'findings']);
    assert.deepEqual(json.findings[0], {
      rule: 'invalid-json',
      severity: 'error',
      message: 'Unexpected token | in JSON',
      step: null,
      line: 2,
      column: 1,
      endLine: 2,
      endColumn: 6,
    });
    // '{"x":"éé","id":' is 15 UTF-16 units, so the id literal starts at column 16.
    assert.deepEqual(json.findings[1], {
      rule: 'tool-result-orphaned',
      severity: 'error',
      message: 'result | without call',
      step: 3,
      line: 3,
      column: 16,
      endLine: 3,
      endColumn: 24,
      toolCallId: 'call_7',
    });
    assert.deepEqual(json.steps[2], {
      index: 3,
      decision: 'abort',
      source: 'compaction',
      rules: ['tool-result-orphaned'],
      applied: true,
      cacheImpact: { consumedTokens: 50_000, invalidatedTokens: 48_213 },
    });
  });
});

describe('report/sarif', () => {
  it('is SARIF 2.1.0 with every rule and a located result per finding', () => {
    const sarif = toSarif([REPORT], { toolVersion: '9.9.9', rulesDocUri: 'https://example.test/docs/rules.md', baseUri: 'file:///work/' });
    const log = JSON.parse(JSON.stringify(sarif)) as any;
    assert.equal(log.version, '2.1.0');
    assert.equal(log.runs[0].tool.driver.version, '9.9.9');
    assert.deepEqual(log.runs[0].tool.driver.rules.map((r: any) => r.id), RULE_IDS);
    assert.equal(log.runs[0].tool.driver.rules[0].helpUri, `https://example.test/docs/rules.md#${RULE_IDS[0]}`);
    assert.deepEqual(log.runs[0].originalUriBaseIds, { SRCROOT: { uri: 'file:///work/' } });
    const [invalid, orphan] = log.runs[0].results;
    assert.equal(invalid.level, 'error');
    assert.equal(RULE_IDS[invalid.ruleIndex], 'invalid-json');
    assert.deepEqual(orphan.locations[0].physicalLocation, {
      artifactLocation: { uri: 'logs/run.jsonl', uriBaseId: 'SRCROOT', index: 0 },
      region: { startLine: 3, startColumn: 16, endLine: 3, endColumn: 24, charOffset: ID_START, charLength: 8 },
    });
    assert.deepEqual(orphan.properties, { step: 3, toolCallId: 'call_7' });
  });

  it('turns absolute paths into file URIs', () => {
    const sarif = toSarif([{ ...REPORT, file: '/tmp/a b.jsonl' }], { toolVersion: '1', rulesDocUri: 'docs/rules.md' }) as any;
    assert.equal(sarif.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri, 'file:///tmp/a%20b.jsonl');
  });
});

describe('report/markdown', () => {
  it('lists steps and findings with positions, escaping table cells', () => {
    const md = toMarkdown(REPORT, { rulesDocUri: 'docs/rules.md' });
    assert.match(md, /^# Prefix Lens report: `logs\/run\.jsonl`/);
    assert.match(md, /6 steps: 5 patch, 0 defer, 1 abort · 2 errors, 0 warnings, 0 info/);
    assert.match(md, /\| 3 \| 3 \| \*\*abort\*\* \| compaction \| \[`tool-result-orphaned`\]\(docs\/rules\.md#tool-result-orphaned\) \| −48,213 tokens \|/);
    assert.match(md, /\| 3:16 \| 3 \| error \| .*tool-result-orphaned.* \| result \\\| without call \(`call_7`\) \|/);
    assert.match(md, /\| 2:1 \|  \| error \|/);
  });
});

describe('cli/plain', () => {
  it('prints file:line:col lines, folds runs of patch steps, and a summary', () => {
    const lines = plainReport(REPORT, NO_COLOURS);
    assert.deepEqual(lines, [
      'logs/run.jsonl:2:1 error invalid-json Unexpected token | in JSON',
      'logs/run.jsonl:3:16 error tool-result-orphaned result | without call [call_7]',
      'step 1/6 PATCH request',
      'step 2/6 PATCH request',
      'step 3/6 ABORT compaction tool-result-orphaned · cache −48,213 tokens',
      'steps 4–6/6 PATCH',
      'logs/run.jsonl: Format anthropic · 6 steps: 5 patch, 0 defer, 1 abort · 2 errors, 0 warnings, 0 info',
    ]);
    assert.equal(stepLine({ ...step(2, 'defer'), applied: false }, 9, NO_COLOURS), 'step 2/9 DEFER request (not applied)');
  });

  it('colours only a TTY without NO_COLOR', () => {
    assert.match(paletteFor(true, {}).red('x'), /\u001b\[31m/);
    assert.equal(paletteFor(true, { NO_COLOR: '1' }).red('x'), 'x');
    assert.equal(paletteFor(false, {}).red('x'), 'x');
  });
});

describe('cli/args', () => {
  const formats = ['native', 'anthropic'];
  it('parses check with its options', () => {
    assert.deepEqual(parseArgs(['check', '--format=anthropic', '--json', 'a.jsonl', 'dir'], formats), {
      kind: 'check',
      output: 'json',
      paths: ['a.jsonl', 'dir'],
      tokens: true,
      limits: {},
      format: 'anthropic',
    });
    assert.deepEqual(parseArgs(['check', '--sarif', '--against', 'old.json', 'new.json'], formats), {
      kind: 'check',
      output: 'sarif',
      paths: ['new.json'],
      tokens: true,
      limits: {},
      against: 'old.json',
    });
    assert.deepEqual(parseArgs(['check', '--no-tokens', '--max-line-chars', '10', '--max-findings-per-rule=3', 'a'], formats), {
      kind: 'check',
      output: 'plain',
      paths: ['a'],
      tokens: false,
      limits: { maxLineChars: 10, maxFindingsPerRule: 3 },
    });
  });
  it('reports usage errors instead of throwing', () => {
    for (const argv of [[], ['lint'], ['check'], ['check', '--json', '--sarif', 'a'], ['check', '--format'], ['check', '--format', 'x', 'a'], ['check', '-q', 'a'], ['check', '--max-file-bytes', '-1', 'a'], ['check', '--max-line-chars=ten', 'a']]) {
      assert.equal(parseArgs(argv, formats).kind, 'usage-error', argv.join(' '));
    }
    assert.equal(parseArgs(['--help'], formats).kind, 'help');
    assert.equal(parseArgs(['-v'], formats).kind, 'version');
  });
});
