/**
 * The violations a checker's stored result names, for the report: each checker decodes its
 * own details (mutualExclusionViolations and the others, beside their checkers). A result
 * of a checker that names none in structure (linearizability's) has none here: the report
 * shows its summary.
 */
import { evidenceViolations } from './evidence.js';
import { fencingViolations } from './fencing.js';
import { lostUpdatesViolations } from './lost-updates.js';
import { mutualExclusionViolations } from './mutual-exclusion.js';
import type { CheckResult } from './result.js';
import type { CheckerViolation } from './violation.js';

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
