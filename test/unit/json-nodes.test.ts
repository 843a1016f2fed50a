/**
 * `toValue` gives what `JSON.parse` gives for the same text: duplicate keys
 * keep the last, and a `__proto__` key is an own property (not the object's
 * prototype), so a fix or a usage record built from nodes loses nothing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { toValue } from '../../src/core/json/nodes';
import { parseJson } from '../../src/core/json/parse';

function viaNodes(text: string): unknown {
  const parsed = parseJson(text);
  assert.ok(parsed.ok, text);
  return toValue(parsed.node);
}

describe('toValue', () => {
  it('keeps a __proto__ key as an own property, as JSON.parse does', () => {
    const text = '{"__proto__":{"polluted":true},"a":[1,{"__proto__":null}]}';
    const value = viaNodes(text) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
    assert.ok(Object.hasOwn(value, '__proto__'));
    assert.equal(JSON.stringify(value), JSON.stringify(JSON.parse(text)));
  });

  it('equals JSON.parse on random JSON, duplicate and __proto__ keys included', () => {
    const key = fc.oneof(fc.constantFrom('__proto__', 'a', 'constructor'), fc.string({ maxLength: 4 }));
    const leaf = fc.oneof(fc.constant('null'), fc.boolean(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string()).map((v) => JSON.stringify(v));
    const { text } = fc.letrec<{ text: string }>((tie) => ({
      text: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('text'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`), fc.array(fc.tuple(key, tie('text')), { maxLength: 5 }).map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`)),
    }));
    fc.assert(
      fc.property(text, (t) => {
        assert.equal(JSON.stringify(viaNodes(t)), JSON.stringify(JSON.parse(t)));
      }),
      { numRuns: 500 },
    );
  });
});
