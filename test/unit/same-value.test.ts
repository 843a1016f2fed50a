/**
 * `sameValue` (core/same-value.ts), the equality the follower's reuse asks of
 * two windows after an edit: on JSON values and their clones it answers as
 * `util.isDeepStrictEqual`, whatever the keys' order; symbol keys are not
 * compared, and an object with a key more or less is not the same.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { sameValue } from '../../src/core/same-value';

describe('sameValue', () => {
  it('answers as isDeepStrictEqual on JSON values, equal (clones) or not', () => {
    fc.assert(
      fc.property(fc.clone(fc.jsonValue(), 2), fc.jsonValue(), ([a, b], c) => {
        assert.equal(sameValue(a, b), true);
        assert.equal(sameValue(a, c), isDeepStrictEqual(a, c));
        assert.equal(sameValue(c, a), isDeepStrictEqual(c, a));
      }),
      { numRuns: 500 },
    );
  });

  it('an object with a key more (or less), or in another order, and symbol keys', () => {
    const tag = Symbol('carried');
    assert.equal(sameValue({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 }), true, 'the keys in another order');
    assert.equal(sameValue({ a: 1 }, { a: 1, b: undefined }), false, 'a key more, undefined');
    assert.equal(sameValue({ a: 1, b: undefined }, { a: 1 }), false, 'a key less');
    assert.equal(sameValue({ a: 1, c: 2 }, { a: 1, b: 2 }), false, 'as many keys, not the same');
    assert.equal(sameValue({ a: 1, [tag]: 1 }, { a: 1, [tag]: 2 }), true, 'symbol keys not compared');
    const inherited = Object.assign(Object.create({ extra: 1 }) as object, { a: 1 });
    assert.equal(sameValue(inherited, Object.assign(Object.create(Object.getPrototypeOf(inherited) as object) as object, { a: 1 })), true, 'inherited keys not compared');
    assert.equal(sameValue(Object.defineProperty({}, 'a', { get: () => 1, enumerable: true }), { a: 1 }), true, 'an enumerable getter read');
  });
});
