/**
 * The "meaning" of rendered JSON: what stays when bytes that a model should not
 * care about are normalised away — key order (keys sorted), number form
 * (numbers by value), unicode normalisation (strings NFC) and the formatting of
 * JSON held in strings (tool arguments are parsed). Two renders with equal
 * meaning but different bytes are a re-render instability, not an edit.
 */
import { parseJson, type JsonNode } from './json/parse';
import { renderBlock, renderJson } from './render';
import type { Block, ToolCall, ToolResult } from './model';

/** Canonical text of a node's meaning. */
export function canonicalJson(node: JsonNode | undefined): string {
  if (!node) return 'null';
  switch (node.type) {
    case 'object': {
      const entries = node.properties
        .map((p) => [p.key.normalize('NFC'), canonicalJson(p.value)] as const)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return '{' + entries.map(([k, v]) => JSON.stringify(k) + ':' + v).join(',') + '}';
    }
    case 'array':
      return '[' + node.items.map(canonicalJson).join(',') + ']';
    case 'string': {
      const embedded = embeddedJson(node.value);
      return embedded ? canonicalJson(embedded) : JSON.stringify(node.value.normalize('NFC'));
    }
    case 'number':
      return numberMeaning(node.raw);
    case 'boolean':
      return node.value ? 'true' : 'false';
    case 'null':
      return 'null';
  }
}

function numberMeaning(raw: string): string {
  const value = Number(raw);
  return Number.isFinite(value) ? String(value) : raw;
}

/** A string that holds a JSON object or array (tool arguments), parsed; else undefined. */
export function embeddedJson(text: string): JsonNode | undefined {
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') return undefined;
  const parsed = parseJson(text);
  return parsed.ok ? parsed.node : undefined;
}

/** Meaning of a rendered JSON text (a block, a message, a tool). */
export function meaningOfText(rendered: string): string {
  const parsed = parseJson(rendered);
  return parsed.ok ? canonicalJson(parsed.node) : rendered;
}

export function blockMeaning(block: Block): string {
  return meaningOfText(renderBlock(block));
}

/** What a call means to its pair: name, input and schema version (not the id). */
export function callMeaning(call: ToolCall): string {
  return JSON.stringify([call.name, canonicalJson(call.input), call.schemaVersion ?? null]);
}

/** What a result means to its pair: content and error flag (not the id). */
export function resultMeaning(result: ToolResult): string {
  return JSON.stringify([canonicalJson(result.content), result.isError === true]);
}

export type RenderDifferenceCause =
  | 'key order'
  | 'whitespace inside an embedded JSON string'
  | 'number form'
  | 'unicode normalisation';

/**
 * When two rendered texts differ in bytes but not in meaning, names the causes
 * (e.g. "key order, number form"). Undefined when the bytes are equal or the
 * meanings differ.
 */
export function explainRenderDifference(a: string, b: string): string | undefined {
  if (a === b) return undefined;
  const pa = parseJson(a);
  const pb = parseJson(b);
  if (!pa.ok || !pb.ok) return undefined;
  if (canonicalJson(pa.node) !== canonicalJson(pb.node)) return undefined;
  const causes = new Set<RenderDifferenceCause>();
  collectCauses(pa.node, pb.node, causes);
  return causes.size ? [...causes].join(', ') : undefined;
}

/** Walks two nodes of equal meaning side by side and records why their bytes differ. */
function collectCauses(a: JsonNode, b: JsonNode, causes: Set<RenderDifferenceCause>): void {
  if (a.type === 'object' && b.type === 'object') {
    const keysA = a.properties.map((p) => p.key.normalize('NFC'));
    const keysB = b.properties.map((p) => p.key.normalize('NFC'));
    if (keysA.join('\u0000') !== keysB.join('\u0000')) causes.add('key order');
    if (a.properties.some((p, i) => p.key !== b.properties[i]?.key && p.key.normalize('NFC') === keysB[i])) {
      causes.add('unicode normalisation');
    }
    const byKey = new Map(b.properties.map((p) => [p.key.normalize('NFC'), p.value] as const));
    for (const p of a.properties) {
      const other = byKey.get(p.key.normalize('NFC'));
      if (other) collectCauses(p.value, other, causes);
    }
  } else if (a.type === 'array' && b.type === 'array') {
    a.items.forEach((item, i) => {
      const other = b.items[i];
      if (other) collectCauses(item, other, causes);
    });
  } else if (a.type === 'number' && b.type === 'number') {
    if (a.raw !== b.raw) causes.add('number form');
  } else if (a.type === 'string' && b.type === 'string') {
    stringCauses(a.value, b.value, causes);
  }
}

function stringCauses(a: string, b: string, causes: Set<RenderDifferenceCause>): void {
  if (a === b) return;
  const ea = embeddedJson(a);
  const eb = embeddedJson(b);
  if (ea && eb) {
    const ca = renderJson(ea);
    const cb = renderJson(eb);
    // Whitespace differs when the compact forms agree, or the amount of padding differs.
    if (ca === cb || a.length - ca.length !== b.length - cb.length) causes.add('whitespace inside an embedded JSON string');
    collectCauses(ea, eb, causes);
    return;
  }
  if (a.normalize('NFC') === b.normalize('NFC')) causes.add('unicode normalisation');
}
