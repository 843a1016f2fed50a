/**
 * The shared interface between the extension host code and the inspector panel:
 * one session per open transcript document, holding the engine's report
 * (checked with `keepRewrites: true`) and the selected step.
 */
import type * as vscode from 'vscode';
import type { Report } from '../core/api';
import type { SourceRange } from '../core/text';

export interface TranscriptSession {
  readonly uri: vscode.Uri;
  readonly document: vscode.TextDocument;
  readonly report: Report | undefined; // checked with keepRewrites: true
  readonly selectedStep: number | undefined; // 1-based
  readonly onDidChange: vscode.Event<void>; // report or selection changed
  selectStep(index: number): void; // also moves the editor selection to the step
  revealRange(range: SourceRange): Promise<void>; // show the document, select + reveal the range
  applyFix(step: number): Promise<boolean>; // the same edit as the "Compact in whole pairs" quick fix
}

export interface SessionRegistry {
  get(uri: vscode.Uri): TranscriptSession | undefined;
  active(): TranscriptSession | undefined; // the transcript of the active editor (or last active)
  readonly onDidChangeActive: vscode.Event<TranscriptSession | undefined>;
}
