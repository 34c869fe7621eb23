/**
 * The values the lock workloads record on the history, written and read here only: the
 * workloads encode them, the checkers, the report and the sweep decode them.
 *
 * - An acquire's ok completion records the grant: `{validityMs, token?, votes?}` (the
 *   validity the client believes, the fencing token, Redlock's votes).
 * - An extend (a client program's library extended its lease on its own) records the
 *   lease's new validity from then, `{validityMs}`, on its ok; a failed one its error.
 * - A write (lock-set) records the new set, or `[set, token]` with fencing (token null when
 *   the grant carried none); the element added is always the set's last.
 */
import { fieldProblem } from '../src/history/grant-fields.js';

export { storedGrantProblem } from '../src/history/grant-fields.js';

/** A grant as an acquire's ok completion records it. */
export interface GrantValue {
  validityMs?: number;
  token?: number;
  votes?: number;
}

/** A write's value taken apart: the set, and the token when the write was fenced. */
export interface WriteValue {
  set: readonly unknown[];
  /** Whether the value was [set, token]. */
  fenced: boolean;
  token?: number;
}

/** A backend's grant (src/backends/backend.ts, Grant) as the acquire's value. */
export function encodeGrant(grant: { validityMs: number; token?: number; votes?: number }): GrantValue {
  const value: GrantValue = { validityMs: Math.round(grant.validityMs) };
  if (grant.token !== undefined) value.token = grant.token;
  if (grant.votes !== undefined) value.votes = grant.votes;
  return value;
}

/** An extension's ok value: the lease's validity from the extension on, in whole ms. */
export function encodeExtension(validityMs: number): GrantValue {
  return { validityMs: Math.round(validityMs) };
}

/** How an acquire's info error begins when its grant was refused (grantProblem). */
export const REFUSED_GRANT = 'refused grant: ';

/** The largest fencing token: 2^53-1, the largest whole number a JSON number holds exactly. */
export const MAX_TOKEN = Number.MAX_SAFE_INTEGER;

/**
 * What is wrong with one number of a grant, or undefined: a validity must be a finite
 * number of ms, 0 or more (a lease that ran out before the answer came is 0, not less), a
 * token a whole number from 0 to 2^53-1 (a fencing token the store compares: 1.5 and -5
 * are none, and a larger number is not kept exactly), votes a finite number.
 */
/**
 * What is wrong with a backend's grant, or undefined (fieldProblem). JSON has no NaN or
 * Infinity (history.jsonl would hold null), and a string token compares as text: such a
 * grant is refused, not recorded as something else.
 */
export function grantProblem(grant: { validityMs: unknown; token?: unknown; votes?: unknown }): string | undefined {
  for (const field of ['validityMs', 'token', 'votes'] as const) {
    const v = grant[field];
    if (v === undefined && field !== 'validityMs') continue;
    const problem = fieldProblem(field, v);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * The numeric fields of an acquire's value; any other value (a foreign history's) has none,
 * nor does a number no grant holds (storedGrantProblem: the readers refuse those).
 */
export function decodeGrant(value: unknown): GrantValue {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  const v = value as Record<string, unknown>;
  const grant: GrantValue = {};
  if (typeof v.validityMs === 'number' && !fieldProblem('validityMs', v.validityMs)) grant.validityMs = v.validityMs;
  if (typeof v.token === 'number' && !fieldProblem('token', v.token)) grant.token = v.token;
  if (typeof v.votes === 'number' && !fieldProblem('votes', v.votes)) grant.votes = v.votes;
  return grant;
}

/** The set written, fenced with the grant's token when `fenced` (see the top of this file). */
export function encodeWrite(set: readonly number[], fenced: boolean, token: number | undefined): unknown {
  return fenced ? [set, token] : set;
}

/** A write's value: [set, token] when fenced, else the set itself; anything else an empty set. */
export function decodeWrite(value: unknown): WriteValue {
  if (!Array.isArray(value)) return { set: [], fenced: false };
  if (value.length === 2 && Array.isArray(value[0])) {
    const token = value[1];
    return typeof token === 'number' ? { set: value[0], fenced: true, token } : { set: value[0], fenced: true };
  }
  return { set: value, fenced: false };
}
