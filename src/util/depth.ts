/**
 * How deeply a parsed JSON value nests, found without recursion (JSON.parse reads a value
 * nested 100,000 deep, but JSON.stringify and every recursive walk then overflow the
 * stack). Nothing lockchaos reads or writes nests more than a few levels.
 */
export const MAX_DEPTH = 64;

/** True when `value` nests deeper than `limit` arrays or objects. */
export function nestedDeeperThan(value: unknown, limit = MAX_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}
