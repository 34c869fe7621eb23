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
