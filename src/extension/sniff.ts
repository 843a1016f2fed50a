/**
 * Which documents are transcripts: a `.json` / `.jsonl` / `.eval` file (or one
 * matching `prefixLens.include`) whose first bytes the engine's format sniff
 * recognises. Ordinary JSON (package.json, tsconfig, settings) is never flagged.
 */
import * as vscode from 'vscode';
import { recognises } from './engine';
import type { Settings } from './settings';

/** File names that may hold a transcript (`.eval`: an Inspect log, a zip the engine reads from disk). */
export const EXTENSIONS = ['.json', '.jsonl', '.eval'];
/** How much of the document the sniff reads. */
export const SNIFF_CHARS = 64 * 1024;

/** Whether the file name qualifies at all (cheap; no content read). */
export function isCandidate(document: vscode.TextDocument, settings: Settings): boolean {
  if (document.uri.scheme === 'output' || document.uri.scheme === 'vscode-settings') return false;
  const path = document.uri.path.toLowerCase();
  if (EXTENSIONS.some((ext) => path.endsWith(ext))) return true;
  return settings.include.some((pattern) => vscode.languages.match({ pattern }, document) > 0);
}

export function isTranscript(document: vscode.TextDocument, settings: Settings): boolean {
  if (!isCandidate(document, settings)) return false;
  const head = document.getText(new vscode.Range(new vscode.Position(0, 0), document.positionAt(SNIFF_CHARS)));
  return recognises(head);
}
