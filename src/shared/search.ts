/**
 * The one binary search of the code base (engine, extension and webview alike;
 * no imports, so the webview bundle takes nothing else with it).
 */

/**
 * The first index in `[0, count)` at which `before(index)` is false, or
 * `count` when there is none. `before` must hold on a prefix of the indexes
 * and fail on the rest (a sorted array searched for a bound).
 */
export function partitionPoint(count: number, before: (index: number) => boolean): number {
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
