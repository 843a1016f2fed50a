/**
 * Claude Code 2.x sub-agent files (`<session-id>/subagents/agent-<id>.jsonl`,
 * core/sub-agents.ts): each checked on its own, linked to the call that
 * started it, and nested under that call in the session view; hostile folders
 * (missing, special, huge, malformed, too many, cycles) are said, never thrown.
 * The fixture is written in the documented shape (the corpus holds no session
 * with its subagents folder); the real compaction sub-agent of the corpus is
 * read in place, through symbolic links laid out as Claude Code lays it out.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { checkTranscript } from '../../src/core/check';
import { inputFromFile } from '../../src/core/io';
import type { TranscriptInput } from '../../src/core/transcript';
import { checkSession, MAX_SUB_AGENTS, readSubAgents, subAgentDir, type SubAgentSource } from '../../src/core/sub-agents';
import { sessionView } from '../../src/extension/session-view/view';
import { cacheOf, fileOfMessage, parseSessionWebviewMessage, type TimelineRow } from '../../src/shared/session-protocol';
import { isProblem } from '../../webview/session/navigate';
import { CORPUS } from '../support/corpus';

const SESSION = path.join(__dirname, '../fixtures/claude-code/subagents/5e551013-0000-4000-8000-000000000002.jsonl');
const EXPLORE = 'a1b2c3d4e5f60718';
const TESTS = 'a9e8d7c6b5a40312';
const options = { keepRewrites: true, tokens: false } as const;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pl-subagents-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A session file and its subagents folder in a fresh temporary folder. */
function session(main: string, agents: Record<string, string>, metas: Record<string, string> = {}): string {
  const dir = fs.mkdtempSync(path.join(tmp, 's-'));
  const file = path.join(dir, 'sess.jsonl');
  fs.writeFileSync(file, main);
  fs.mkdirSync(subAgentDir(file), { recursive: true });
  for (const [id, text] of Object.entries(agents)) fs.writeFileSync(path.join(subAgentDir(file), `agent-${id}.jsonl`), text);
  for (const [id, text] of Object.entries(metas)) fs.writeFileSync(path.join(subAgentDir(file), `agent-${id}.meta.json`), text);
  return file;
}

const line = (record: object) => `${JSON.stringify({ parentUuid: null, isSidechain: false, userType: 'external', sessionId: 's', ...record })}\n`;
const user = (uuid: string, parent: string | null, content: unknown, extra: object = {}) => line({ type: 'user', uuid, parentUuid: parent, message: { role: 'user', content }, ...extra });
const assistant = (uuid: string, parent: string | null, content: unknown[], extra: object = {}) => line({ type: 'assistant', uuid, parentUuid: parent, message: { id: `msg_${uuid}`, role: 'assistant', model: 'claude-opus-4-6', content }, ...extra });
const task = (id: string, prompt: string) => ({ type: 'tool_use', id, name: 'Task', input: { description: 'd', prompt, subagent_type: 'Explore' } });
/** A sub-agent's file: its prompt, and one answer. */
const agentFile = (agent: string, prompt: string) =>
  user(`${agent}-1`, null, prompt, { isSidechain: true, agentId: agent }) + assistant(`${agent}-2`, `${agent}-1`, [{ type: 'text', text: 'done' }], { isSidechain: true, agentId: agent });

const check = (file: string, sources = readSubAgents(file)) => checkSession(inputFromFile(file), sources, options);
const headers = (rows: readonly TimelineRow[]) => rows.filter((r): r is Extract<TimelineRow, { kind: 'thread' }> => r.kind === 'thread');

describe('sub-agent files', () => {
  it('each sub-agent file is checked on its own and linked to its Task call (by the result naming it, by its meta file)', () => {
    const report = check(SESSION);
    const plain = checkTranscript(inputFromFile(SESSION), options);
    assert.deepEqual(report.findings, plain.findings, "the session's own findings do not change");
    assert.deepEqual(report.session, plain.session);
    const agents = report.subAgents ?? [];
    assert.deepEqual(
      agents.map((a) => [a.agentId, a.thread.parentCall, a.thread.label, a.thread.id]),
      [
        [EXPLORE, 'toolu_01Explore', `sub-agent Explore (${EXPLORE})`, 2],
        [TESTS, 'toolu_01General', `sub-agent general-purpose (${TESTS})`, 3],
      ],
    );
    assert.deepEqual(agents[0]!.report!.findings, [], 'the clean sub-agent has no finding');
    const found = agents[1]!.report!.findings;
    assert.deepEqual(found.map((f) => f.rule).sort(), ['tool-result-orphaned', 'tool-use-orphaned']);
    const text = fs.readFileSync(agents[1]!.file, 'utf8');
    const orphan = found.find((f) => f.rule === 'tool-result-orphaned')!;
    assert.match(text.slice(orphan.range.start, orphan.range.end), /toolu_sub_read_9/, "the finding's range is in the sub-agent's own file");
  });

  it('the session view nests each sub-agent under the call that started it, linked both ways, its findings on its own rows', () => {
    const view = sessionView(check(SESSION), true);
    const [explore, tests] = headers(view.rows);
    assert.ok(explore && tests);
    const caller = view.rows[explore.parentRow!];
    assert.ok(caller?.kind === 'message' && caller.file === undefined && caller.thread === undefined);
    assert.equal(tests.parentRow, explore.parentRow, 'both were started by the same assistant message');
    const exploreAt = view.rows.indexOf(explore);
    assert.equal(exploreAt, explore.parentRow! + 1, 'the first sub-agent follows the row of its call');
    assert.equal(caller.tools.find((t) => t.id === 'toolu_01Explore')!.threadRow, exploreAt);
    assert.equal(caller.tools.find((t) => t.id === 'toolu_01General')!.threadRow, view.rows.indexOf(tests));
    const testRows = view.rows.filter((r) => r.thread === tests.thread && r.kind !== 'thread');
    assert.ok(testRows.every((r) => r.file === 1));
    assert.deepEqual(testRows.flatMap((r) => r.findings.map((f) => f.rule)).sort(), ['tool-result-orphaned', 'tool-use-orphaned']);
    assert.ok(view.rows.filter((r) => r.file === undefined).every((r) => r.findings.length === 0), 'no sub-agent finding lands on a session row');
    const orphanRow = testRows.find((r) => r.kind === 'message' && r.tools.some((t) => t.state === 'orphan-result'));
    assert.ok(orphanRow && isProblem(orphanRow));
    assert.equal(view.problems, 2);
    assert.equal(tests.problems, 2);
    assert.equal(explore.problems, 0);
    assert.deepEqual(view.files, [path.join(path.dirname(SESSION), '5e551013-0000-4000-8000-000000000002/subagents', `agent-${EXPLORE}.jsonl`), path.join(path.dirname(SESSION), '5e551013-0000-4000-8000-000000000002/subagents', `agent-${TESTS}.jsonl`)]);
    assert.deepEqual(view.threads.map((t) => t.id), [1, 2, 3], 'the one-thread filter lists the sub-agents');
    // Each sub-agent's usage from its own log: at its rows (indexes into its file's cache rows), totalled on its header.
    const chips = view.rows.flatMap((r) => {
      const c = cacheOf(view, r);
      return c ? [[r.file, c.index, c.cacheRead]] : [];
    });
    assert.deepEqual(chips, [[undefined, 1, 0], [0, 1, 0], [0, 2, 3900], [1, 1, 0], [1, 2, 4200], [1, 3, 4290]]);
    assert.deepEqual(tests.usage, { requests: 3, promptTokens: 12996, cacheRead: 8490, cacheWrite: 4490, outputTokens: 100 });
  });

  it('links a running sub-agent by its progress line, else by its prompt; one not linked follows the session', () => {
    const main =
      user('u1', null, 'go') +
      assistant('a1', 'u1', [task('toolu_run', 'Run it.'), task('toolu_prompt', 'Find it.'), task('toolu_other', 'Other.')]) +
      line({ type: 'progress', uuid: 'p1', parentUuid: 'a1', data: { type: 'agent_progress', agentId: 'run1' }, toolUseID: 'agent_msg_1', parentToolUseID: 'toolu_run' });
    const file = session(main, { run1: agentFile('run1', 'Something else.'), find1: agentFile('find1', 'Find it.'), lone: agentFile('lone', 'Not asked.') });
    const report = check(file);
    assert.deepEqual(
      report.subAgents!.map((a) => [a.agentId, a.thread.parentCall]),
      [
        ['find1', 'toolu_prompt'],
        ['lone', undefined],
        ['run1', 'toolu_run'],
      ],
    );
    const view = sessionView(report, true);
    const lone = headers(view.rows).find((h) => h.label.includes('lone'))!;
    assert.equal(lone.parentRow, undefined);
    assert.ok(view.rows.indexOf(lone) > view.rows.findIndex((r) => r.kind === 'message' && r.tools.some((t) => t.id === 'toolu_other')), 'after the rows of the session');
  });

  it("a sub-agent's own sub-agent nests under the call in its parent's file; a cycle of parents does not loop", () => {
    const main = user('u1', null, 'go') + assistant('a1', 'u1', [task('toolu_b', 'B, go.')]);
    const b = user('b1', null, 'B, go.', { isSidechain: true, agentId: 'b' }) + assistant('b2', 'b1', [task('toolu_c', 'C, go.')], { isSidechain: true, agentId: 'b' });
    const c = user('c1', null, 'C, go.', { isSidechain: true, agentId: 'c' }) + assistant('c2', 'c1', [task('toolu_b2', 'B, go.')], { isSidechain: true, agentId: 'c' });
    const report = check(session(main, { b, c }));
    assert.deepEqual(report.subAgents!.map((a) => [a.agentId, a.parentAgent, a.thread.parentCall]), [
      ['b', undefined, 'toolu_b'],
      ['c', 'b', 'toolu_c'],
    ]);
    const view = sessionView(report, true);
    const [hb, hc] = headers(view.rows);
    const callOfC = view.rows[hc!.parentRow!];
    assert.ok(callOfC?.kind === 'message' && callOfC.file === 0, "c's call is a row of b's file");
    assert.equal(view.rows.indexOf(hc!), hc!.parentRow! + 1);
    assert.ok(view.rows.indexOf(hb!) < view.rows.indexOf(hc!));
    // Each names the other as its parent: cut at the session, every row once.
    const cycle = check(session(main, { b: b.replace('toolu_c', 'toolu_x'), c }), undefined);
    const linkedBack = { ...cycle, subAgents: cycle.subAgents!.map((a) => (a.agentId === 'b' ? { ...a, parentAgent: 'c' } : a)) };
    const rows = sessionView(linkedBack, true).rows;
    assert.equal(headers(rows).length, 2);
  });

  it('reads the session and each sub-agent file once: links and first prompts are noted from the lines the check reads', () => {
    const reads = new Map<string, number>();
    const counted = (file: string): TranscriptInput => {
      const input = inputFromFile(file);
      return { ...input, lines: () => (reads.set(file, (reads.get(file) ?? 0) + 1), input.lines()) };
    };
    const sources = readSubAgents(SESSION).map((s) => ({ ...s, input: counted(s.file) }));
    const report = checkSession(counted(SESSION), sources, options);
    assert.deepEqual(
      report.subAgents!.map((a) => [a.agentId, a.thread.parentCall]),
      check(SESSION).subAgents!.map((a) => [a.agentId, a.thread.parentCall]),
    );
    assert.deepEqual([...reads.values()], [1, 1, 1], `${[...reads].map(([f, n]) => `${path.basename(f)} ${n}×`).join(', ')}`);
    // Linked by the first prompt alone (no meta file, no line naming the agent): noted while the check reads the sub-agent's lines.
    const byPrompt = session(user('u1', null, 'go') + assistant('a1', 'u1', [task('toolu_p', 'Find the bug.')]), { p: agentFile('p', 'Find the bug.') });
    assert.equal(check(byPrompt).subAgents![0]!.thread.parentCall, 'toolu_p');
  });

  it('a missing, special, huge or malformed sub-agent file is said, never thrown; too many files are listed unread', () => {
    const main = user('u1', null, 'go') + assistant('a1', 'u1', [task('toolu_1', 'One.')]);
    const file = session(main, { good: agentFile('good', 'One.'), bad: 'not json\n{"type":"user",\n', huge: agentFile('huge', 'x'.repeat(5000)) }, { good: '{"toolUseId": 5, "agentType": ["x"]}' });
    fs.symlinkSync(path.join(tmp, 'nowhere.jsonl'), path.join(subAgentDir(file), 'agent-gone.jsonl'));
    execFileSync('mkfifo', [path.join(subAgentDir(file), 'agent-fifo.jsonl')]);
    const report = checkSession(inputFromFile(file), readSubAgents(file, { maxFileBytes: 2000 }), options);
    const by = new Map(report.subAgents!.map((a) => [a.agentId, a]));
    assert.match(by.get('gone')!.unread!, /ENOENT/);
    assert.match(by.get('fifo')!.unread!, /not a regular file/);
    assert.match(by.get('huge')!.unread!, /over the limit of 2 KiB \(maxFileBytes/);
    assert.ok(by.get('bad')!.report!.findings.some((f) => f.rule === 'invalid-json' && f.severity === 'error'), 'a malformed file is checked: its findings say what is wrong');
    assert.equal(by.get('good')!.thread.parentCall, 'toolu_1', 'a meta file of the wrong shape is ignored');
    const view = sessionView(report, true);
    const unread = headers(view.rows).filter((h) => h.unread !== undefined);
    assert.equal(unread.length, 3);
    assert.ok(unread.every(isProblem));
    assert.ok(view.problems >= 4, 'unread files and the malformed one count as problems');

    const many = session(main, Object.fromEntries(Array.from({ length: MAX_SUB_AGENTS + 2 }, (_, i) => [`m${String(i).padStart(3, '0')}`, '\n'])));
    const sources = readSubAgents(many);
    assert.equal(sources.length, MAX_SUB_AGENTS + 2);
    assert.equal(sources.filter((s) => s.unread?.includes(`more than ${MAX_SUB_AGENTS}`)).length, 2);
  });

  it('only a Claude Code session takes sub-agents; a session without the folder has none', () => {
    const request = path.join(tmp, 'req.jsonl');
    fs.writeFileSync(request, '{"model":"m","messages":[{"role":"user","content":"hi"}]}\n');
    const source: SubAgentSource = { agentId: 'x', file: 'x.jsonl', input: { file: 'x.jsonl', text: agentFile('x', 'hi') } };
    assert.equal(checkSession(inputFromFile(request), [source], options).subAgents, undefined);
    assert.deepEqual(readSubAgents(path.join(CORPUS, 'claude-code/spotter_tool_heavy.jsonl')), []);
  });

  it('the real compaction sub-agent of the corpus, laid out beside its session: read in place, no false error, shown after the session', () => {
    const id = '4d5611e5-241a-462a-8d15-5122611a9569';
    const dir = fs.mkdtempSync(path.join(tmp, 'real-'));
    const file = path.join(dir, `${id}.jsonl`);
    fs.symlinkSync(path.join(CORPUS, `claude-code/spotter_${id}.excerpt-L742-L790.jsonl`), file);
    fs.mkdirSync(subAgentDir(file), { recursive: true });
    fs.symlinkSync(path.join(CORPUS, 'claude-code/spotter_agent-acompact-e1f845.jsonl'), path.join(subAgentDir(file), 'agent-acompact-e1f845.jsonl'));
    const report = check(file);
    const [agent] = report.subAgents!;
    assert.equal(agent!.agentId, 'acompact-e1f845');
    assert.equal(agent!.thread.parentCall, undefined, 'a compaction agent is not started by a call');
    assert.deepEqual(agent!.report!.findings.filter((f) => f.severity === 'error'), []);
    const alone = checkTranscript(inputFromFile(path.join(CORPUS, 'claude-code/spotter_agent-acompact-e1f845.jsonl')), options);
    assert.deepEqual(agent!.report!.findings, alone.findings, 'as the file checked on its own');
    assert.equal(agent!.report!.session!.messages, 2, 'one user message (three hook reminders and the prompt), one answer');
    const view = sessionView(report, true);
    const header = headers(view.rows).find((h) => h.file === 0)!;
    assert.ok(header.messages > 0);
    assert.ok(view.rows.slice(view.rows.indexOf(header) + 1).every((r) => r.file === 0), 'after the rows of the session');
  });

  it("the webview's reveal and openStep name a sub-agent file only by a valid index, with the snapshot it indexes", () => {
    assert.deepEqual(parseSessionWebviewMessage({ type: 'reveal', range: { start: 1, end: 2 }, file: 1, generation: 3 }), { type: 'reveal', range: { start: 1, end: 2 }, file: 1, generation: 3 });
    assert.deepEqual(parseSessionWebviewMessage({ type: 'openStep', step: 2 }), { type: 'openStep', step: 2 });
    assert.equal(parseSessionWebviewMessage({ type: 'openStep', step: 2, file: -1, generation: 1 }), undefined);
    assert.equal(parseSessionWebviewMessage({ type: 'openStep', step: 2, file: 0 }), undefined, 'an index without its snapshot');
    assert.equal(parseSessionWebviewMessage({ type: 'openStep', step: 2, file: 0, generation: '1' }), undefined);
    assert.equal(parseSessionWebviewMessage({ type: 'reveal', range: { start: 1, end: 2 }, file: '../../etc/passwd', generation: 1 }), undefined);
  });

  it('a message from a snapshot since replaced (a new agent file shifts the indexes) opens no file; one from the snapshot sent opens its file', () => {
    const shown = sessionView(checkSession(inputFromFile(SESSION), readSubAgents(SESSION), options), true, 1);
    const row = shown.rows.findIndex((r) => r.file === 1);
    const message = parseSessionWebviewMessage({ type: 'reveal', range: { start: 0, end: 1 }, file: shown.rows[row]!.file, generation: shown.generation })!;
    assert.ok(message.type === 'reveal');
    const before = { generation: 1, files: shown.files };
    assert.equal(fileOfMessage(message, SESSION, before), shown.files[1]);
    // The next check finds a new agent file sorted before the others; that snapshot is sent before the message arrives.
    const after = { generation: 2, files: [path.join(path.dirname(shown.files[0]!), 'agent-a0000000000000000.jsonl'), ...shown.files] };
    assert.equal(fileOfMessage(message, SESSION, after), undefined);
    assert.equal(fileOfMessage({}, SESSION, after), SESSION, "the session's own file whatever the snapshot");
    assert.equal(fileOfMessage({ file: 3, generation: 2 }, SESSION, after), undefined, 'no such file');
  });
});
