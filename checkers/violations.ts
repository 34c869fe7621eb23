/**
 * A violation as the checker that found it names it, for the report to show: its kind, in
 * words, and the operations to mark. Each checker decodes its own stored details into these
 * (mutualExclusionViolations and the others, beside their checkers), from results.json as
 * the run wrote it; the report only places them on its timeline. A checker that names none
 * in structure (linearizability) has none here: the report shows its summary.
 */
import { evidenceViolations } from './evidence.js';
import { fencingViolations } from './fencing.js';
import { lostUpdatesViolations } from './lost-updates.js';
import { mutualExclusionViolations } from './mutual-exclusion.js';
import type { CheckerViolation, CheckResult, HeldSpan, ViolationKind } from './result.js';

export type { CheckerViolation, HeldSpan, ViolationKind };

/** By the name the checker's results carry. */
const VIOLATIONS: Record<string, (result: CheckResult) => CheckerViolation[]> = {
  'mutual-exclusion': mutualExclusionViolations,
  'lost-updates': lostUpdatesViolations,
  fencing: fencingViolations,
  evidence: evidenceViolations,
};

export function violationsOf(result: CheckResult): CheckerViolation[] {
  return Object.hasOwn(VIOLATIONS, result.checker) ? VIOLATIONS[result.checker](result) : [];
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
