/**
 * A violation as the checker that found it names it, for the report to show: its kind, in
 * words, and the operations to mark. Each checker decodes its own stored details into these
 * (its words' `violations`, beside the checker; words-registry.ts), from results.json as
 * the run wrote it; the report only places them on its timeline. A checker that names none
 * in structure (linearizability) has none here: the report shows its summary.
 */
import type { CheckerViolation, CheckResult, HeldSpan, ViolationKind } from './result.js';
import { wordsOf } from './words-registry.js';

export type { CheckerViolation, HeldSpan, ViolationKind };

export function violationsOf(result: CheckResult): CheckerViolation[] {
  return wordsOf(result).violations?.(result) ?? [];
}

/**
 * A result's first violation in words, as JUnit's failure message gives it: the checker's
 * `first` detail (mutual-exclusion's and lost-updates' a line, fencing's one per kind),
 * else its summary.
 */
export function firstViolationWords(r: CheckResult): string {
  const first = r.details?.first;
  if (typeof first === 'string') return first;
  if (Array.isArray(first) && first.every((x) => typeof x === 'string')) return first.join('; ');
  return r.summary;
}
