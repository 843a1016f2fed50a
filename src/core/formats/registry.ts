/**
 * Every format adapter, in sniffing order: the most specific first, because
 * `detectFormat` takes the first whose sniff matches.
 *
 * Adding a format: import its adapter here and add one entry to ADAPTERS,
 * above the more general formats it could be mistaken for.
 */
import type { FormatId } from '../model';
import type { FormatAdapter } from '../transcript';
import { nativeAdapter } from './native';
// ── format adapters: one import per format, below this line ──
import { claudeCodeAdapter, GEMINI_PARTS_MESSAGE } from './claude-code';
import { codexAdapter } from './codex';
import { geminiCliAdapter } from './gemini-cli';
import { inspectAdapter } from './inspect';
import { otelAdapter } from './otel';
import { bedrockAdapter } from './bedrock';
import { geminiAdapter } from './gemini';
import { anthropicAdapter } from './anthropic';
import { openaiChatAdapter } from './openai-chat';
import { openaiResponsesAdapter } from './openai-responses';

export const ADAPTERS: readonly FormatAdapter[] = [
  nativeAdapter,
  // ── format adapters: one entry per format, most specific first, below this line ──
  claudeCodeAdapter,
  codexAdapter,
  geminiCliAdapter,
  inspectAdapter,
  otelAdapter,
  bedrockAdapter,
  anthropicAdapter,
  openaiChatAdapter,
  openaiResponsesAdapter,
  geminiAdapter,
];

/** The first adapter whose sniff matches the head of a file. */
export function detectFormat(head: string): FormatAdapter | undefined {
  return ADAPTERS.find((adapter) => {
    try {
      return adapter.sniff(head);
    } catch {
      return false;
    }
  });
}

/** Formats recognised well enough to name them, but not read (no real sample to build a reader from). */
const UNREAD_FORMATS: readonly { readonly label: string; readonly sniff: (head: string) => boolean }[] = [
  {
    label: 'Qwen Code session JSONL (a Claude-Code-like envelope around Gemini-style parts)',
    sniff: (head) => GEMINI_PARTS_MESSAGE.test(head) && /"parentUuid"\s*:/.test(head) && /"sessionId"\s*:/.test(head),
  },
];

/** The name of a known format no reader reads, when the head looks like one. */
export function unreadFormat(head: string): string | undefined {
  return UNREAD_FORMATS.find((format) => format.sniff(head))?.label;
}

/** One line naming every format, for the hint on a file no adapter recognises. */
export function formatsHint(): string {
  return `Known formats: ${ADAPTERS.map((adapter) => `${adapter.id} (${adapter.label})`).join(', ')}`;
}

export function adapterFor(id: FormatId | string): FormatAdapter | undefined {
  return ADAPTERS.find((adapter) => adapter.id === id);
}
