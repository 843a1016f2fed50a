/** The `prefixLens.*` settings, read fresh each time (no cached mutable state). */
import * as vscode from 'vscode';
import type { Limits, RuleId, TokenEncoding } from './engine';

export type SeverityOverride = 'error' | 'warning' | 'info' | 'hint' | 'off';

export interface Settings {
  /** Extra globs whose files are checked when their content is a recognised transcript. */
  readonly include: readonly string[];
  readonly tokens: TokenEncoding | false;
  readonly workerThresholdBytes: number;
  readonly severity: Readonly<Partial<Record<RuleId, SeverityOverride>>>;
  readonly debounceMs: number;
  readonly codeLens: boolean;
  /** `prefixLens.limits.*` that are set (docs/limits.md); unset ones keep the engine's defaults. */
  readonly limits: Partial<Limits>;
  /** Warn when a re-check of an open transcript finds a new aborting step. */
  readonly notifyOnAbort: boolean;
}

const LIMIT_KEYS: readonly (keyof Limits)[] = ['maxFileBytes', 'maxLineChars', 'maxDecompressedBytes', 'maxZipEntries', 'maxFindingsPerRule'];

function readLimits(config: vscode.WorkspaceConfiguration): Partial<Limits> {
  const out: Partial<Record<keyof Limits, number>> = {};
  for (const key of LIMIT_KEYS) {
    const value = config.get<unknown>(`limits.${key}`);
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) out[key] = value;
  }
  return out;
}

export const SECTION = 'prefixLens';

export function readSettings(scope?: vscode.ConfigurationScope): Settings {
  const config = vscode.workspace.getConfiguration(SECTION, scope);
  const tokenizer = config.get<string>('tokenizer', 'o200k_base');
  return {
    include: config.get<string[]>('include', []),
    tokens: tokenizer === 'off' ? false : tokenizer === 'cl100k_base' ? 'cl100k_base' : 'o200k_base',
    workerThresholdBytes: Math.max(0, config.get<number>('workerThresholdBytes', 2_000_000)),
    severity: config.get<Partial<Record<RuleId, SeverityOverride>>>('severity', {}),
    debounceMs: Math.max(0, config.get<number>('debounceMs', 300)),
    codeLens: config.get<boolean>('codeLens.enabled', true),
    limits: readLimits(config),
    notifyOnAbort: config.get<boolean>('notifyOnAbort', true),
  };
}

/** Settings whose change means every transcript must be checked again. */
export const RECHECK_KEYS = ['include', 'tokenizer', 'workerThresholdBytes', 'limits'].map((k) => `${SECTION}.${k}`);
/** Settings whose change only re-publishes diagnostics. */
export const REPUBLISH_KEYS = [`${SECTION}.severity`];
