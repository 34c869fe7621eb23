/**
 * The numbers an acquire's grant may hold, and what is wrong with one that is out of
 * range: a validity of 0 ms or more, a token from 0 to 2^53-1. Here, in the history's
 * layer, because the readers of stored histories refuse such grants (validate.ts), and the
 * checkers' grant values (checkers/op-values.ts) use the same rule.
 */

export function fieldProblem(field: 'validityMs' | 'token' | 'votes', v: unknown): string | undefined {
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    const shown = typeof v === 'string' ? `the string ${JSON.stringify(v)}` : String(v);
    return `${field} is ${shown}, not a finite number`;
  }
  if (field === 'validityMs' && v < 0) return `validityMs is ${v}, a negative number of ms (a validity is 0 or more)`;
  if (field === 'token' && (!Number.isSafeInteger(v) || v < 0)) return `token is ${v}, not an integer from 0 to 2^53-1`;
  return undefined;
}

/**
 * What is wrong with an acquire's ok value in a stored history, or undefined. A value that
 * is not an object, and fields that are not numbers, are a foreign history's (Jepsen's,
 * another tool's) and carry no grant (decodeGrant); a number there must be one a backend's
 * grant may hold (grantProblem): a history with validityMs -5 or token -5 is refused, not
 * checked as if a lock service had granted it.
 */
export function storedGrantProblem(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  for (const field of ['validityMs', 'token', 'votes'] as const) {
    if (typeof v[field] !== 'number') continue;
    const problem = fieldProblem(field, v[field]);
    if (problem) return problem;
  }
  return undefined;
}
