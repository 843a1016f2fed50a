/**
 * Inspect AI eval logs: the .json log whose tool results have no calls (all
 * orphans, located), the zipped .eval whose model inputs are input_refs into
 * the message pool (append-only: every step patch), and bad input.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { zipSync, strToU8 } from 'fflate';
import { checkTranscript } from '../../src/core/check';
import { inspectAdapter } from '../../src/core/formats/inspect';
import { detectFormat } from '../../src/core/formats/registry';
import { inputFromFile } from '../../src/core/io';
import { lineAt } from '../../src/core/formats/common';
import { corpus, countBlocks, fileText, fixture, lineOf, readWith, textAt, unpaired } from './wild-helpers';

const ERRORS = corpus('inspect-ai', 'inspect_log_tool_call_error.json');
const EVAL = corpus('inspect-ai', 'inspect_log_message_deduplication.eval');
const UNREAD = fixture('unread', 'inspect-content-types.json');
const OPTIONS = { tokens: false } as const;

describe('inspect: tool results with no calls (log_tool_call_error.json)', () => {
  it('reads the sample as one live window of 11 tool messages, the error ones marked', () => {
    const events = readWith(inspectAdapter, ERRORS);
    assert.equal(events.final.format, 'inspect');
    assert.equal(events.final.messages.length, 11);
    assert.ok(events.final.messages.every((m) => m.role === 'tool' && m.blocks[0]?.kind === 'tool_result' && m.blocks[0].isError));
    assert.deepEqual(unpaired(events.final).calls, []);
    assert.equal(unpaired(events.final).results.length, 11);
  });

  it('reports all 11 as tool-result-orphaned, each on its own tool_call_id literal', () => {
    const report = checkTranscript(inputFromFile(ERRORS), OPTIONS);
    const orphans = report.findings.filter((f) => f.rule === 'tool-result-orphaned');
    assert.deepEqual(
      orphans.map((f) => f.toolCallId).sort(),
      Array.from({ length: 11 }, (_, i) => `bash_${i + 1}`).sort(),
    );
    for (const f of orphans) assert.equal(textAt(ERRORS, f.range), JSON.stringify(f.toolCallId));
    assert.equal(new Set(orphans.map((f) => lineOf(ERRORS, f.range.start))).size, 11);
  });
});

describe('inspect: the zipped .eval with a message pool (log_message_deduplication.eval)', () => {
  const events = readWith(inspectAdapter, EVAL);

  it('makes each model event after the first a request step, inputs rebuilt from input_refs', () => {
    assert.equal(events.steps.length, 5);
    events.steps.forEach((step, k) => {
      assert.equal(step.source, 'request');
      assert.equal(step.after.messages.length, 2 * (k + 1) + 1);
      assert.equal(step.before.messages.length, 2 * k + 2);
      assert.equal(step.after.tools.length, 2);
    });
  });

  it('ends with the sample messages: 12, all 5 pairs complete', () => {
    assert.equal(events.final.messages.length, 12);
    assert.equal(countBlocks(events.final, 'tool_call'), 5);
    assert.deepEqual(unpaired(events.final), { calls: [], results: [] });
  });

  it('is append-only: every step patch, no findings', () => {
    const report = checkTranscript(inputFromFile(EVAL), OPTIONS);
    assert.equal(report.format, 'inspect');
    assert.deepEqual(report.steps.map((s) => s.decision), ['patch', 'patch', 'patch', 'patch', 'patch']);
    assert.deepEqual(report.findings, []);
  });

  it('never points into the zip bytes: sources are {0,0}', () => {
    const call = events.final.messages[1]!.blocks.find((b) => b.kind === 'tool_call')!;
    assert.deepEqual(call.source, { start: 0, end: 0 });
    assert.deepEqual(events.final.messages[0]!.source, { start: 0, end: 0 });
  });

  it('both files are detected by content', () => {
    assert.equal(detectFormat(fileText(ERRORS).slice(0, 65536))?.id, 'inspect');
    const head = new TextDecoder().decode(fs.readFileSync(EVAL).subarray(0, 4096));
    assert.equal(detectFormat(head)?.id, 'inspect');
  });
});

describe('inspect: bad input', () => {
  it('a .json log that does not parse gives invalid-json at the error, never a throw', () => {
    const text = fileText(ERRORS).replace('"status"', 'status');
    const events = readWith(inspectAdapter, 'broken.json', text);
    const invalid = events.findings.find((f) => f.rule === 'invalid-json')!;
    assert.equal(invalid.range.start, text.indexOf('status'));
    assert.equal(events.final.messages.length, 0);
  });

  it('a bad sample inside a .eval is reported with its entry name at {0,0}; the other samples are read', () => {
    const good = JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] });
    const zip = zipSync({ 'header.json': strToU8('{}'), 'samples/1_epoch_1.json': strToU8(good), 'samples/2_epoch_1.json': strToU8('{"messages": [') });
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pl-inspect-')), 'bad.eval');
    fs.writeFileSync(file, zip);
    const report = checkTranscript(inputFromFile(file), OPTIONS);
    const invalid = report.findings.find((f) => f.rule === 'invalid-json')!;
    assert.deepEqual(invalid.range, { start: 0, end: 0 });
    assert.match(invalid.message, /samples\/2_epoch_1\.json/);
    const events = readWith(inspectAdapter, file);
    assert.equal(events.final.messages.length, 1);
  });

  it('a truncated .eval is an invalid-json finding, not a crash', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pl-inspect-')), 'cut.eval');
    fs.writeFileSync(file, fs.readFileSync(EVAL).subarray(0, 2000));
    const report = checkTranscript(inputFromFile(file), OPTIONS);
    assert.ok(report.findings.some((f) => f.rule === 'invalid-json' && f.range.start === 0));
  });

  it('a model event whose input is unknown is skipped, one info per cause, never read as an empty request', () => {
    const log = JSON.parse(fileText(UNREAD)) as { samples: { events: { input?: unknown[]; input_refs?: unknown }[] }[] };
    const events = log.samples[0]!.events;
    const [first, second] = events as [(typeof events)[number], (typeof events)[number]];
    events.splice(1, 0, { ...second, input: [] }, { ...second, input: [], input_refs: [[0, 4]] });
    assert.equal(events.length, 4);
    assert.ok(first.input && second.input);
    const text = JSON.stringify(log, null, 1);
    const report = checkTranscript({ file: 'log.json', text }, OPTIONS);
    assert.deepEqual(report.steps.map((s) => s.decision), ['patch'], 'the first event against the last one, as if the two between were not there');
    const skipped = report.findings.filter((f) => f.message.startsWith('Skipped'));
    const at = (i: number) => lineAt(text, nthEvent(text, i));
    assert.deepEqual(
      skipped.map((f) => [f.severity, f.rule, f.message]),
      [
        ['info', 'record-skipped', `Skipped 1 model event with no input (first at line ${at(1)}): its input is unknown (not empty), so it is not compared`],
        ['info', 'record-skipped', `Skipped 1 model event whose input_refs fall outside the message pool (first at line ${at(2)}): its input is unknown (not empty), so it is not compared`],
      ],
    );
  });

  it('inside a .eval, the skipped model events are said with their entry name', () => {
    const log = JSON.parse(fileText(UNREAD)) as { eval: unknown; samples: { events: { input?: unknown[] }[] }[] };
    for (const event of log.samples[0]!.events) event.input = [];
    const zip = zipSync({ 'header.json': strToU8(JSON.stringify({ version: 2, eval: log.eval })), 'samples/7_epoch_1.json': strToU8(JSON.stringify(log.samples[0])) });
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pl-inspect-')), 'noinput.eval');
    fs.writeFileSync(file, zip);
    const report = checkTranscript(inputFromFile(file), OPTIONS);
    assert.deepEqual(report.steps, []);
    const skipped = report.findings.find((f) => f.message.startsWith('Skipped'))!;
    assert.equal(skipped.message, 'Skipped 2 model events with no input (first in samples/7_epoch_1.json): its input is unknown (not empty), so it is not compared');
    assert.deepEqual(skipped.range, { start: 0, end: 0 });
  });
});

/** The offset of the i-th (0-based) model event object in a pretty-printed log. */
function nthEvent(text: string, i: number): number {
  let at = -1;
  for (let k = 0; k <= i; k++) at = text.indexOf('"event": "model"', at + 1);
  return text.lastIndexOf('{', at);
}

