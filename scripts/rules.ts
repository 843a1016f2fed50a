/**
 * Everything outside the engine that lists the rules, derived from the rule
 * modules (`src/core/rules/index.ts`): the README rule table and the per-rule
 * severity setting in package.json. `node --import tsx scripts/rules.ts`
 * prints the table; `--write` rewrites both files. `test/unit/rule-modules.test.ts`
 * fails when either (or a docs/rules.md anchor) disagrees with the modules.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RULE_IDS, RULES } from '../src/core/findings';

const ROOT = path.join(__dirname, '..');
export const README = path.join(ROOT, 'README.md');
export const PACKAGE_JSON = path.join(ROOT, 'package.json');

/** The Markdown table: id (linked to docs/rules.md), severity, decision weight, title, condition protected, fixes. */
export function rulesTable(): string {
  const rows = RULE_IDS.map((id) => {
    const rule = RULES[id];
    const weight = rule.decides === 'none' ? '—' : rule.decides;
    const fixes = rule.fixes.length ? rule.fixes.map((fix) => `\`${fix}\``).join(', ') : '—';
    return `| [\`${id}\`](docs/rules.md#${id}) | ${rule.severity} | ${weight} | ${rule.title} | ${rule.protects} | ${fixes} |`;
  });
  return ['| rule | severity | decides | meaning | protects | fixes |', '|---|---|---|---|---|---|', ...rows].join('\n');
}

/** The `properties` of the `prefixLens.severity` setting: one override per rule. */
export function severityProperties(): Record<string, unknown> {
  const override = { type: 'string', enum: ['error', 'warning', 'info', 'hint', 'off'] };
  return Object.fromEntries(RULE_IDS.map((id) => [id, { ...override, description: `Severity of \`${id}\` diagnostics` }]));
}

/** The README with its rule table (the table under "## Rules") replaced. */
export function withRulesTable(readme: string): string {
  const table = /^\| rule \| severity \|.*\n(?:\|.*\n?)*/m;
  if (!table.test(readme)) throw new Error('README.md has no rule table to replace');
  return readme.replace(table, `${rulesTable()}\n`);
}

/** package.json with the severity setting's properties replaced. */
export function withSeveritySchema(packageText: string): string {
  const pkg = JSON.parse(packageText);
  pkg.contributes.configuration.properties['prefixLens.severity'].properties = severityProperties();
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

if (require.main === module) {
  if (process.argv.includes('--write')) {
    fs.writeFileSync(README, withRulesTable(fs.readFileSync(README, 'utf8')));
    fs.writeFileSync(PACKAGE_JSON, withSeveritySchema(fs.readFileSync(PACKAGE_JSON, 'utf8')));
  } else {
    process.stdout.write(`${rulesTable()}\n`);
  }
}
