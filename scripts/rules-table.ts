/**
 * Prints the rule table of the README from the RULES table, so the docs never
 * drift from the engine: `node --import tsx scripts/rules-table.ts`.
 */
import { RULE_IDS, RULES } from '../src/core/findings';

/** The Markdown table: id (linked to docs/rules.md), severity, decision weight, title, condition protected. */
export function rulesTable(): string {
  const rows = RULE_IDS.map((id) => {
    const rule = RULES[id];
    const weight = rule.decides === 'none' ? '—' : rule.decides;
    return `| [\`${id}\`](docs/rules.md#${id}) | ${rule.severity} | ${weight} | ${rule.title} | ${rule.protects} |`;
  });
  return ['| rule | severity | decides | meaning | protects |', '|---|---|---|---|---|', ...rows].join('\n');
}

if (require.main === module) process.stdout.write(`${rulesTable()}\n`);
