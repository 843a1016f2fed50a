/**
 * Equality of plain data as `assert.deepStrictEqual` sees a report: the same
 * primitives, arrays, typed arrays and objects of one prototype with the same
 * own enumerable string-keyed properties, recursively. Symbol properties (a
 * message's `CARRIED_FROM`) are not compared; a Map or a Set only equals
 * itself (none is in a window: answering false only costs a re-read).
 */
export function sameValue(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b) || a instanceof Map || a instanceof Set) return false;
  if (Array.isArray(a) || ArrayBuffer.isView(a)) return sameItems(a as ArrayLike<unknown>, b as ArrayLike<unknown>);
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  const [x, y] = [a as Record<string, unknown>, b as Record<string, unknown>];
  return keys.every((key) => Object.prototype.hasOwnProperty.call(y, key) && sameValue(x[key], y[key]));
}

function sameItems(a: ArrayLike<unknown>, b: ArrayLike<unknown>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i])) return false;
  return true;
}
