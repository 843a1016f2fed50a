/**
 * Reading request bodies as they arrive, carrying the history over: a request
 * repeats an earlier one's messages byte for byte, plus a little, so the
 * leading elements it shares with a recent request (found with native
 * `startsWith`, see formats/carry.ts) are skipped by the parser and their
 * messages reused. Only the new tail is parsed and read, as in a request log.
 * The last few requests (one per recent conversation) are kept as sources.
 */
import { parseJson, type JsonObject } from '../json/parse';
import { asObject, rangeOf } from '../json/nodes';
import { carryMessages, carrySpans, planCarry, type CarrySource } from '../formats/carry';
import type { ParsedRequest, ProviderCodec } from '../formats/request-log';

export type ReadOutcome =
  | { readonly kind: 'read'; readonly request: ParsedRequest }
  | { readonly kind: 'malformed'; readonly reason: string }
  | { readonly kind: 'not-a-request' };

/** Requests kept as carry sources (each holds its body text). */
const SOURCES = 4;

export class RequestReader {
  private readonly sources: CarrySource[] = [];

  read(codec: ProviderCodec, body: string): ReadOutcome {
    const carried = this.readCarried(codec, body);
    if (carried) return carried;
    const parsed = parseJson(body);
    if (!parsed.ok) return { kind: 'malformed', reason: `the request body is not valid JSON (${parsed.error.message} at offset ${parsed.error.offset})` };
    const object = asObject(parsed.node);
    if (!object || !codec.isRequest(object)) return { kind: 'not-a-request' };
    return { kind: 'read', request: this.readAndKeep(codec, object, body, []) };
  }

  /** The request read with a recent source's leading messages skipped; undefined when none applies. */
  private readCarried(codec: ProviderCodec, body: string): ReadOutcome | undefined {
    if (!codec.carrier) return undefined;
    for (const source of this.sources) {
      const plan = planCarry(source, { length: body.length, text: () => body });
      if (!plan) continue;
      const parsed = parseJson(body, 0, plan.skip);
      const object = parsed.ok ? asObject(parsed.node) : undefined;
      // Skipped elsewhere than in the messages array (or not a request): read it in full instead.
      if (!parsed.ok || !object || !codec.isRequest(object) || !parsed.skippedIn || parsed.skippedIn !== codec.carrier.messagesArray(object)) return undefined;
      const messages = carryMessages(source, plan.count, 0, rangeOf(parsed.skippedIn));
      return { kind: 'read', request: this.readAndKeep(codec, object, body, messages) };
    }
    return undefined;
  }

  private readAndKeep(codec: ProviderCodec, object: JsonObject, body: string, carried: Parameters<NonNullable<ProviderCodec['carrier']>['readRequest']>[1]): ParsedRequest {
    if (!codec.carrier) return codec.readRequest(object);
    const read = codec.carrier.readRequest(object, carried);
    this.sources.unshift({ text: () => body, base: 0, items: read.items, spans: carrySpans(undefined, 0, read.items, 0, (i) => body.charCodeAt(i)) });
    if (this.sources.length > SOURCES) this.sources.pop();
    return read.request;
  }
}
