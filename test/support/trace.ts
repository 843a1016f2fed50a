/** Builders for native traces in tests: plain objects in, JSONL text out. */
import { checkTranscript } from '../../src/core/check';
import type { CheckOptions, Report } from '../../src/core/results';

export const HEADER = { type: 'prefix-lens/trace', version: 1 };

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function trace(...events: Json[]): string {
  return [HEADER, ...events].map((e) => JSON.stringify(e)).join('\n') + '\n';
}

export const tool = (name: string, version = '1'): Json => ({ name, version, input_schema: { type: 'object' } });
export const system = (content: string): Json => ({ role: 'system', content });
export const user = (content: string): Json => ({ role: 'user', content });
export const assistant = (content: string, ...calls: Json[]): Json =>
  calls.length ? { role: 'assistant', content, tool_calls: calls } : { role: 'assistant', content };
export const call = (id: string, name: string, input: Json = {}, schemaVersion?: string): Json =>
  schemaVersion === undefined ? { id, name, input } : { id, name, input, schema_version: schemaVersion };
export const result = (id: string, content: string): Json => ({ role: 'tool', tool_call_id: id, content });

export const windowEvent = (tools: Json[], messages: Json[], boundary = messages.length): Json => ({ type: 'window', tools, messages, boundary });
export const rewrite = (source: string, fields: { tools?: Json[]; messages?: Json[]; applied?: boolean; boundary?: number }): Json => ({
  type: 'rewrite',
  source,
  ...fields,
});

/** Checks a trace text without token counting. */
export function check(text: string, options: CheckOptions = {}): Report {
  return checkTranscript({ file: 'test.trace.jsonl', text }, { tokens: false, ...options });
}

/** Rules of a report's findings (optionally of one step), sorted, distinct. */
export function rulesOf(report: Report, step?: number): string[] {
  return [...new Set(report.findings.filter((f) => step === undefined || f.step === step).map((f) => f.rule))].sort();
}
