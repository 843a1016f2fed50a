/**
 * Quick fixes keyed on rule ids: each Prefix Lens diagnostic in the request
 * maps back to its finding; an aborting step offers the whole-pair fix
 * (preferred; a command writing a repaired copy on a log), a window-level orphan offers "Remove orphaned tool result" or
 * "Add a placeholder result for the pending call" (preferred).
 */
import * as vscode from 'vscode';
import { DIAGNOSTIC_SOURCE } from './diagnostics';
import { APPLY_FIX_COMMAND, compactFix, fixesToCopy, orphanFix, type PlannedFix } from './fixes';
import type { Session, Sessions } from './sessions';
import { type Finding, RULES, type RuleId } from './engine';

/** Rules whose step-level findings the compaction fix addresses (their `meta.fixes` name it). */
export const COMPACT_RULES: ReadonlySet<RuleId> = new Set(Object.values(RULES).flatMap((rule) => (rule.fixes.includes('compact') ? [rule.id] : [])));

function ruleOf(diagnostic: vscode.Diagnostic): string | undefined {
  const code = diagnostic.code;
  if (diagnostic.source !== DIAGNOSTIC_SOURCE || code === undefined) return undefined;
  return typeof code === 'object' ? String(code.value) : String(code);
}

/** The finding a diagnostic was published for (same rule and range). */
function findingOf(session: Session, diagnostic: vscode.Diagnostic): Finding | undefined {
  const rule = ruleOf(diagnostic);
  const start = session.document.offsetAt(diagnostic.range.start);
  const end = session.document.offsetAt(diagnostic.range.end);
  return session.report?.findings.find((f) => f.rule === rule && f.range.start === start && f.range.end === end);
}

function fixFor(session: Session, finding: Finding): PlannedFix | undefined {
  if (finding.step !== undefined) return COMPACT_RULES.has(finding.rule) ? compactFix(session, finding.step) : undefined;
  return orphanFix(session, finding);
}

export class TranscriptCodeActions implements vscode.CodeActionProvider {
  static readonly metadata: vscode.CodeActionProviderMetadata = { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] };

  constructor(private readonly sessions: Sessions) {}

  provideCodeActions(document: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const session = this.sessions.get(document.uri);
    if (!session) return [];
    const actions = new Map<string, vscode.CodeAction>();
    for (const diagnostic of context.diagnostics) {
      const finding = findingOf(session, diagnostic);
      const fix = finding && fixFor(session, finding);
      if (!fix) continue;
      const existing = actions.get(fix.title);
      if (existing) {
        existing.diagnostics?.push(diagnostic);
        continue;
      }
      const action = new vscode.CodeAction(fix.title, vscode.CodeActionKind.QuickFix);
      // A log a writer appends to is never edited: the command writes a repaired copy.
      if (fix.kind === 'compact' && fixesToCopy(session)) {
        action.command = { title: fix.title, command: APPLY_FIX_COMMAND, arguments: [session.uri, finding?.step] };
      } else action.edit = fix.edit;
      action.diagnostics = [diagnostic];
      action.isPreferred = true;
      actions.set(fix.title, action);
    }
    return [...actions.values()];
  }
}
