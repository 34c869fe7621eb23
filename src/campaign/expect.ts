/**
 * Did a cell meet its expectation? Both ways count: a correct configuration that raises an
 * alarm is a regression, and so is a known-unsafe configuration that stops failing (the
 * harness no longer catches what it should). An unknown verdict, an error or an
 * interruption never meets an expectation. A cell may also expect availability (the share
 * of acquires ok outside fault windows, from perf): a lock that answers nobody is not a
 * correct configuration, whatever its safety verdict.
 */

import { availabilityShortfall } from '../../checkers/availability.js';
import { type CheckResult, type Validity, verdictName, verdictWord } from '../../checkers/result.js';
import type { Actual, Expectation } from '../campaign-data/cell.js';
import { conditionsText, type RunCondition } from '../run-data/conditions.js';

export { ACTUALS, type Actual } from '../campaign-data/cell.js';

export interface CellOutcome {
  actual: Actual;
  met: boolean;
  /** One line: the violation or the mismatch in words. */
  message: string;
}

const counted = (results: readonly CheckResult[]) => results.filter((r) => r.counts !== false);

/** The counted checkers that said `want`, as "checker: summary; ...". */
function said(results: readonly CheckResult[], want: Validity): string {
  return counted(results)
    .filter((r) => r.valid === want)
    .map((r) => `${r.checker}: ${r.summary}`)
    .join('; ');
}

export function judge(
  expect: Expectation,
  ended:
    | { valid: Validity; results: readonly CheckResult[]; aborted?: boolean; conditions?: readonly RunCondition[] }
    | { error: string; aborted?: boolean }
    | { notRun: true },
  /** The least share of acquires that must be ok outside fault windows, when one is expected. */
  availability?: number,
): CellOutcome {
  if ('notRun' in ended) return { actual: 'not-run', met: false, message: 'never ran: the campaign was cut short' };
  if (ended.aborted) {
    return { actual: 'aborted', met: false, message: 'interrupted before the run finished: no verdict' };
  }
  if ('error' in ended) return { actual: 'error', met: false, message: `the run failed: ${ended.error}` };
  if (ended.conditions?.some((c) => c.kind === 'interrupted')) {
    return { actual: 'aborted', met: false, message: `${conditionsText(ended.conditions)}: no verdict` };
  }
  if (ended.conditions?.length) {
    const got = verdictWord(ended.valid);
    return { actual: 'error', met: false, message: `the run ${conditionsText(ended.conditions)} (verdict ${got})` };
  }
  const actual = verdictName(ended.valid);
  const violations = said(ended.results, false);
  if (actual === 'unknown') {
    const why = said(ended.results, 'unknown');
    return { actual, met: false, message: `expected ${expect}, got unknown${why ? `: ${why}` : ''}` };
  }
  const short = availability === undefined ? undefined : availabilityShortfall(ended.results, availability);
  if (expect === 'any') {
    const what = actual === 'invalid' ? `invalid: ${violations}` : 'valid';
    return short
      ? { actual, met: false, message: `${what}, but the lock was not available: ${short}` }
      : { actual, met: true, message: `${what} (a measurement: any verdict)` };
  }
  if (actual === expect && short) {
    return { actual, met: false, message: `${actual} as expected, but the lock was not available: ${short}` };
  }
  if (actual === expect) {
    return {
      actual,
      met: true,
      message: actual === 'invalid' ? `invalid as expected: ${violations}` : 'valid as expected',
    };
  }
  if (actual === 'invalid') return { actual, met: false, message: `expected valid, got INVALID: ${violations}` };
  const checked = counted(ended.results)
    .map((r) => `${r.checker}: ${r.summary}`)
    .join('; ');
  return {
    actual,
    met: false,
    message: `expected invalid, got valid: the known-unsafe configuration was not caught${checked ? ` (${checked})` : ''}`,
  };
}
