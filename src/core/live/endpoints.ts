/**
 * The provider endpoints the live paths judge, and the errors they answer in
 * each provider's own shape (what that API itself returns for a bad request).
 */
import { RULES, type Decision, type Finding } from '../findings';
import { anthropicCodec } from '../formats/anthropic';
import { openaiChatCodec } from '../formats/openai-chat';
import { openaiResponsesCodec } from '../formats/openai-responses';
import type { ProviderCodec } from '../formats/request-log';

export type LiveProvider = 'anthropic' | 'openai-chat' | 'openai-responses';

export const LIVE_CODECS: Readonly<Record<LiveProvider, ProviderCodec>> = {
  anthropic: anthropicCodec,
  'openai-chat': openaiChatCodec,
  'openai-responses': openaiResponsesCodec,
};

/**
 * The provider of a request path: `…/messages` (Anthropic Messages),
 * `…/chat/completions`, `…/responses`. Anything else (count_tokens, batches,
 * models, a GET of a stored response) is not a context window and is not judged.
 */
export function providerOfPath(pathname: string): LiveProvider | undefined {
  const path = pathname.replace(/\/+$/, '');
  if (path.endsWith('/messages')) return 'anthropic';
  if (path.endsWith('/chat/completions')) return 'openai-chat';
  if (path.endsWith('/responses')) return 'openai-responses';
  return undefined;
}

/** What a runtime should do, per rule, to make an aborting rewrite acceptable. */
const WHAT_TO_DO: Partial<Record<Finding['rule'], string>> = {
  'tool-use-orphaned': 'send a result for every tool call (or remove the call together with its result)',
  'tool-result-orphaned': 'remove this tool result together with its call, or keep the call it answers',
  'tool-result-misplaced': 'put each tool result where the provider requires it, right after its call',
  'tool-result-duplicated': 'keep exactly one result per tool call',
  'tool-call-id-reused': 'give every tool call its own id',
  'pair-straddled': 'edit a tool call and its result together, or neither',
  'schema-dropped': 'keep the schema of a tool while a call to it is still in the window',
  'schema-changed': 'keep the schema version a call was made with while its result is in the window',
  'prefix-mutated': 'change only what comes after what the model has already read (append), or compact in whole pairs with an elision marker',
  'elision-unmarked': 'put an elision marker where history was removed',
  'render-unstable': 're-send consumed messages with the same bytes as before',
};

/** The text of a refusal: the decision, each deciding rule with its call ids, and what to do. */
export function refusalMessage(decision: Decision, findings: readonly Finding[]): string {
  const deciding = findings.filter((f) => RULES[f.rule].decides === decision || RULES[f.rule].decides === 'abort');
  const rules = [...new Set(deciding.map((f) => f.rule))];
  const reasons = rules.map((rule) => {
    const ids = [...new Set(deciding.filter((f) => f.rule === rule && f.toolCallId).map((f) => f.toolCallId as string))];
    const first = deciding.find((f) => f.rule === rule)?.message ?? RULES[rule].title;
    return `${rule}${ids.length ? ` [${ids.join(', ')}]` : ''}: ${first}`;
  });
  const todo = rules.flatMap((rule) => WHAT_TO_DO[rule] ?? []);
  return (
    `Prefix Lens refused this request (${decision.toUpperCase()}); it was not sent to the model. ` +
    `${reasons.join('; ')}. ` +
    (todo.length ? `To fix: ${todo.join('; ')}.` : '')
  ).trim();
}

/** The tool call ids named by a set of findings, in order. */
export function toolCallIdsOf(findings: readonly Finding[]): string[] {
  return [...new Set(findings.flatMap((f) => (f.toolCallId ? [f.toolCallId] : [])))];
}

/**
 * A 400 body in the provider's error shape. Anthropic:
 * `{"type":"error","error":{"type":"invalid_request_error","message":…}}`;
 * OpenAI: `{"error":{"message":…,"type":"invalid_request_error","param":null,"code":…}}`.
 */
export function providerErrorBody(provider: LiveProvider | undefined, message: string, code = 'prefix_lens_refused'): string {
  if (provider === 'anthropic') {
    const type = code === 'request_too_large' ? code : 'invalid_request_error';
    return JSON.stringify({ type: 'error', error: { type, message } });
  }
  return JSON.stringify({ error: { message, type: 'invalid_request_error', param: null, code } });
}
