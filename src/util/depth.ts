/**
 * How deeply a parsed JSON value nests, found without recursion (JSON.parse reads a value
 * nested 100,000 deep, but JSON.stringify and every recursive walk then overflow the
 * stack). Nothing lockchaos reads or writes nests more than a few levels.
 */
export const MAX_DEPTH = 64;

/** True when `value` nests deeper than `limit` arrays or objects. */
export function nestedDeeperThan(value: unknown, limit = MAX_DEPTH): boolean {
  if (value === null || typeof value !== 'object') return false;
  // Two stacks of plain values, not one of pairs: a million-operation history is walked
  // op by op, and a pair per value would be most of the cost.
  const values: object[] = [value];
  const depths: number[] = [0];
  while (values.length > 0) {
    const v = values.pop() as object;
    const depth = depths.pop() as number;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === 'object') {
        values.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}
