/**
 * A rule is one module: its metadata sits beside its check, and everything
 * that lists the rules outside the engine agrees with the modules. Fails when
 * a module is not listed, a check does not run, or package.json's severity
 * setting, the README table or a docs/rules.md section disagrees.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { finding, RULE_IDS, RULES } from '../../src/core/findings';
import { RULE_MODULES, STEP_CHECKS, WINDOW_CHECKS } from '../../src/core/rules/index';
import { PACKAGE_JSON, README, rulesTable, severityProperties } from '../../scripts/rules';

const RULES_DIR = path.join(__dirname, '..', '..', 'src', 'core', 'rules');
const RULES_DOC = path.join(__dirname, '..', '..', 'docs', 'rules.md');

/** The `docs/rules.md` section of each rule: the text from its anchor to the next one. */
function docSections(): Map<string, string> {
  const doc = fs.readFileSync(RULES_DOC, 'utf8');
  const anchors = [...doc.matchAll(/^<a id="([^"]+)"><\/a>\n## (.+)$/gm)];
  return new Map(anchors.map((m, i) => [m[1]!, doc.slice(m.index, anchors[i + 1]?.index ?? doc.length)]));
}

describe('rule modules: one home per rule', () => {
  it('lists every module in src/core/rules that declares a rule, once, named by its file', () => {
    const declaring = fs
      .readdirSync(RULES_DIR)
      .filter((name) => name.endsWith('.ts') && /export const meta = defineRule\(/.test(fs.readFileSync(path.join(RULES_DIR, name), 'utf8')))
      .map((name) => name.slice(0, -'.ts'.length))
      .sort();
    assert.deepEqual([...RULE_IDS].sort(), declaring);
    assert.equal(new Set(RULE_IDS).size, RULE_IDS.length);
    for (const id of RULE_IDS) assert.equal(RULES[id].id, id);
  });

  it('runs every check a rule module exports, as a window or a step check', () => {
    // A window rule runs as its `emitX` (its `checkX` only lists what that emits); a step rule as its `checkX`.
    const runs = (m: object, name: string) => name.startsWith('emit') || (name.startsWith('check') && !(`emit${name.slice('check'.length)}` in m));
    const exported = RULE_MODULES.flatMap((m) => Object.entries(m).filter(([name, value]) => typeof value === 'function' && runs(m, name)));
    const running = new Set<unknown>([...WINDOW_CHECKS, ...STEP_CHECKS]);
    for (const [name, check] of exported) {
      assert.ok(running.has(check), `${name} is exported by a rule module but is in neither WINDOW_CHECKS nor STEP_CHECKS`);
    }
    assert.equal(WINDOW_CHECKS.length + STEP_CHECKS.length, exported.length);
  });

  it('gives findings the default severity of their rule module', () => {
    for (const id of RULE_IDS) assert.equal(finding(id, { start: 0, end: 1 }, 'm').severity, RULES[id].severity);
  });

  it("package.json's per-rule severity setting has exactly the modules' rules", () => {
    const pkg = JSON.parse(fs.readFileSync(PACKAGE_JSON, 'utf8'));
    const setting = pkg.contributes.configuration.properties['prefixLens.severity'];
    assert.deepEqual(setting.properties, severityProperties(), 'run: node --import tsx scripts/rules.ts --write');
    assert.equal(setting.additionalProperties, false);
  });

  it('the README rule table is the one generated from the modules', () => {
    assert.ok(fs.readFileSync(README, 'utf8').includes(`${rulesTable()}\n`), 'run: node --import tsx scripts/rules.ts --write');
  });

  it('docs/rules.md has one section per rule, in order, stating its severity and weight', () => {
    const sections = docSections();
    assert.deepEqual([...sections.keys()], RULE_IDS);
    for (const [id, text] of sections) {
      const rule = RULES[id as keyof typeof RULES];
      assert.ok(text.includes(`## ${id}\n`), `docs/rules.md: the heading of ${id}`);
      const flat = text.replace(/\s+/g, ' ');
      assert.match(flat, new RegExp(`\\*\\*Severity\\*\\* ${rule.severity}\\.`), `docs/rules.md: severity of ${id}`);
      assert.match(flat, new RegExp(`\\*\\*Weight\\*\\* ${rule.decides}[ .]`), `docs/rules.md: weight of ${id}`);
    }
  });

  it("docs/rules.md's summary table agrees with the modules", () => {
    const doc = fs.readFileSync(RULES_DOC, 'utf8');
    const rows = [...doc.matchAll(/^\| \[`([^`]+)`\]\(#\1\) \| (\w+) \| (\w+) \|/gm)].map((m) => [m[1], m[2], m[3]]);
    assert.deepEqual(
      rows,
      RULE_IDS.map((id) => [id, RULES[id].severity, RULES[id].decides]),
    );
  });
});
