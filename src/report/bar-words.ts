/** What the timeline writes on and about an operation's bar: its value in brief, its label, the kinds' order. */
import { decodeGrant, decodeWrite } from '../../checkers/op-values.js';
import type { LenientOutcome } from '../history/pairs.js';
import { plural } from '../util/plural.js';

/** A bar's outcome, as its index in this list. */
export const BAR_OUTCOMES: readonly LenientOutcome[] = ['ok', 'fail', 'info', 'pending'];

/** The usual order of the lock-set workload's operation kinds; others follow by name. */
const KIND_ORDER = ['acquire', 'read', 'write', 'release'];

/** A value in at most ~80 characters: long sets shortened to their ends and length. */
export function brief(value: unknown): string {
  if (value === undefined) return '';
  if (Array.isArray(value)) {
    if (value.length === 2 && Array.isArray(value[0]) && !Array.isArray(value[1])) {
      return `[${brief(value[0])}, ${brief(value[1])}]`;
    }
    if (value.length > 6 && value.every((v) => typeof v === 'number' || typeof v === 'string')) {
      const ends = (xs: unknown[]) => xs.map((v) => JSON.stringify(v)).join(',');
      return `[${ends(value.slice(0, 3))},…,${ends(value.slice(-2))}] (${value.length})`;
    }
  }
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

/**
 * The words on a timeline bar: what the operation did, not its raw value. An acquire's
 * token, the element a write adds (and its token), the size of a set read; else brief().
 */
export function barLabel(f: string, value: unknown): string {
  if (f === 'acquire' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const { token } = decodeGrant(value);
    return token !== undefined ? `token ${token}` : '';
  }
  if (f === 'write' && Array.isArray(value)) {
    const { set, token } = decodeWrite(value);
    const added = set.at(-1);
    if (typeof added === 'number') return `+${added}${token !== undefined ? ` (token ${token})` : ''}`;
  }
  if (f === 'read') {
    if (value === null) return 'empty';
    if (Array.isArray(value)) return `${plural(value.length, 'element')}`;
  }
  if (f === 'release') return ''; // its value is the grant: in the details, not on the bar
  return brief(value);
}

/** Operation kinds in report order: the lock-set workload's first, in their usual order, then the others by name. */
export function kindOrder(fs: Iterable<string>): string[] {
  return [...new Set(fs)].sort((a, b) => {
    const ia = KIND_ORDER.indexOf(a);
    const ib = KIND_ORDER.indexOf(b);
    if (ia !== -1 || ib !== -1) return (ia === -1 ? 99 : ia) - (ib === -1 ? 99 : ib);
    return a < b ? -1 : a > b ? 1 : 0;
  });
}
