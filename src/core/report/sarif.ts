/**
 * SARIF 2.1.0 output: one run, the rule table as `tool.driver.rules`, one
 * result per finding with its physical location (1-based line/column in
 * UTF-16 code units, plus the character offset). Pure: the CLI's `--sarif`
 * and the extension's "Export Report" share it.
 */
import type { Report } from '../results';
import { RULE_IDS, RULES, type Finding, type RelatedLocation, type RuleId, type Severity } from '../findings';
import { LineIndex, type SourceRange } from '../text';
import { toJsonReport } from './json';

export const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';
export const SARIF_VERSION = '2.1.0';

export interface SarifOptions {
  /** The tool's version (package.json `version`). */
  readonly toolVersion: string;
  /** Where docs/rules.md lives; each rule's helpUri is `${rulesDocUri}#<rule-id>`. */
  readonly rulesDocUri: string;
  /** Absolute `file://` URI of the directory relative file paths are resolved against. */
  readonly baseUri?: string;
}

type Json = { readonly [key: string]: unknown };

const LEVEL: Readonly<Record<Severity, 'error' | 'warning' | 'note'>> = {
  error: 'error',
  warning: 'warning',
  info: 'note',
};

/** Builds a SARIF log for the reports of one run of the checker. */
export function toSarif(reports: readonly Report[], options: SarifOptions): Json {
  const ruleIndex = new Map<RuleId, number>(RULE_IDS.map((id, i) => [id, i]));
  return {
    $schema: SARIF_SCHEMA,
    version: SARIF_VERSION,
    runs: [
      {
        tool: { driver: driver(options) },
        invocations: [invocation(reports, options)],
        columnKind: 'utf16CodeUnits',
        ...(options.baseUri ? { originalUriBaseIds: { SRCROOT: { uri: withSlash(options.baseUri) } } } : {}),
        artifacts: reports.map((r) => ({ location: artifactLocation(r.file, options), sourceLanguage: 'json' })),
        results: reports.flatMap((r, artifact) => {
          const lines = LineIndex.fromStarts(r.lineStarts);
          return r.findings.map((f) => result(f, r.file, artifact, lines, ruleIndex, options));
        }),
        properties: {
          reports: reports.map((r) => {
            const json = toJsonReport(r);
            return { file: json.file, format: json.format, steps: json.steps };
          }),
        },
      },
    ],
  };
}

/** Whether every file was read to its end and every finding listed; what went wrong otherwise. */
function invocation(reports: readonly Report[], options: SarifOptions): Json {
  const notes: Json[] = [];
  reports.forEach((r, index) => {
    const location = { physicalLocation: { artifactLocation: { ...artifactLocation(r.file, options), index } } };
    if (r.stopped) notes.push({ level: 'error', message: { text: `Reading stopped, the rest was not checked: ${r.stopped.reason}` }, locations: [location] });
    if (r.omitted) notes.push({ level: 'error', message: { text: `Findings above the limit per rule were not listed: ${JSON.stringify(r.omitted)}` }, locations: [location] });
  });
  return { executionSuccessful: notes.length === 0, ...(notes.length > 0 && { toolExecutionNotifications: notes }) };
}

function driver(options: SarifOptions): Json {
  return {
    name: 'prefix-lens',
    fullName: 'Prefix Lens',
    version: options.toolVersion,
    semanticVersion: options.toolVersion,
    informationUri: options.rulesDocUri,
    rules: RULE_IDS.map((id) => {
      const rule = RULES[id];
      return {
        id,
        name: camelName(id),
        shortDescription: { text: rule.title },
        fullDescription: { text: `${rule.title}. Protects ${rule.protects}. Weighs as: ${rule.decides}.` },
        helpUri: `${options.rulesDocUri}#${id}`,
        defaultConfiguration: { level: LEVEL[rule.severity] },
        properties: { decides: rule.decides, protects: rule.protects },
      };
    }),
  };
}

function result(
  f: Finding,
  file: string,
  artifactIndex: number,
  lines: LineIndex,
  ruleIndex: ReadonlyMap<RuleId, number>,
  options: SarifOptions,
): Json {
  return {
    ruleId: f.rule,
    ruleIndex: ruleIndex.get(f.rule) ?? -1,
    level: LEVEL[f.severity],
    message: { text: f.message },
    locations: [
      { physicalLocation: { artifactLocation: { ...artifactLocation(file, options), index: artifactIndex }, region: region(f.range, lines) } },
    ],
    ...(f.related?.length ? { relatedLocations: f.related.map((r, i) => related(r, i, file, lines, options)) } : {}),
    properties: { step: f.step ?? null, ...(f.toolCallId !== undefined ? { toolCallId: f.toolCallId } : {}) },
  };
}

/** A related location; one in another file gets a character region only (its lines are not known here). */
function related(r: RelatedLocation, id: number, file: string, lines: LineIndex, options: SarifOptions): Json {
  const sameFile = r.file === undefined || r.file === file;
  const regionOf = sameFile ? region(r.range, lines) : charRegion(r.range);
  return {
    id,
    message: { text: r.message },
    physicalLocation: { artifactLocation: artifactLocation(r.file ?? file, options), region: regionOf },
  };
}

function region(range: SourceRange, lines: LineIndex): Json {
  const start = lines.position(range.start);
  const end = lines.position(Math.max(range.end, range.start));
  return {
    startLine: start.line,
    startColumn: start.column,
    endLine: end.line,
    endColumn: end.column,
    ...charRegion(range),
  };
}

function charRegion(range: SourceRange): { charOffset: number; charLength: number } {
  return { charOffset: range.start, charLength: Math.max(0, range.end - range.start) };
}

/** A file path as a SARIF artifact location: absolute paths as file URIs, relative ones against SRCROOT. */
export function artifactLocation(file: string, options: Pick<SarifOptions, 'baseUri'>): { uri: string; uriBaseId?: string } {
  const slashed = file.replace(/\\/g, '/');
  if (slashed.startsWith('/')) return { uri: `file://${encodePath(slashed)}` };
  const drive = /^[A-Za-z]:\//.exec(slashed)?.[0];
  if (drive) return { uri: `file:///${drive}${encodePath(slashed.slice(drive.length))}` };
  const relative = encodePath(slashed.replace(/^\.\//, ''));
  return options.baseUri ? { uri: relative, uriBaseId: 'SRCROOT' } : { uri: relative };
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Percent-encodes each path segment (`#`, `?`, `%`, spaces, controls…), keeping the slashes. */
function encodePath(path: string): string {
  return path
    .split('/')
    .map((segment) => encodeURIComponent(segment.replace(LONE_SURROGATE, '\ufffd')))
    .join('/');
}

function withSlash(uri: string): string {
  return uri.endsWith('/') ? uri : `${uri}/`;
}

/** `tool-result-orphaned` → `ToolResultOrphaned` (SARIF rule `name`). */
function camelName(id: string): string {
  return id.replace(/(^|-)([a-z])/g, (_m, _dash: string, c: string) => c.toUpperCase());
}
