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
  return sameFields(a as Record<string, unknown>, b as Record<string, unknown>);
}

/**
 * The same own enumerable string-keyed properties with the same values. A
 * walk without a key array per object (a request log's window is thousands
 * of objects, compared after every edit: follow-reuse.ts `converged`).
 */
function sameFields(x: Record<string, unknown>, y: Record<string, unknown>): boolean {
  let count = 0;
  for (const key in x) {
    if (!hasOwn.call(x, key)) continue;
    count++;
    if (!hasOwn.call(y, key) || !sameValue(x[key], y[key])) return false;
  }
  for (const key in y) if (hasOwn.call(y, key) && --count < 0) return false;
  return count === 0;
}

const hasOwn = Object.prototype.hasOwnProperty;

function sameItems(a: ArrayLike<unknown>, b: ArrayLike<unknown>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i])) return false;
  return true;
}
