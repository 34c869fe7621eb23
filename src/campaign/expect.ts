/**
 * Did a cell meet its expectation? Both ways count: a correct configuration that raises an
 * alarm is a regression, and so is a known-unsafe configuration that stops failing (the
 * harness no longer catches what it should). An unknown verdict, an error or an
 * interruption never meets an expectation.
 */
import type { CheckResult, Validity } from '../../checkers/result.js';
import type { Expectation } from './spec.js';

/** What a cell ended with. */
export type Actual = 'valid' | 'invalid' | 'unknown' | 'error' | 'aborted' | 'not-run';

export interface Outcome {
  actual: Actual;
  met: boolean;
  /** One line: the violation or the mismatch in words. */
  message: string;
}

export function actualOf(valid: Validity): 'valid' | 'invalid' | 'unknown' {
  return valid === true ? 'valid' : valid === false ? 'invalid' : 'unknown';
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
    | { valid: Validity; results: readonly CheckResult[]; aborted?: boolean }
    | { error: string; aborted?: boolean }
    | { notRun: true },
): Outcome {
  if ('notRun' in ended) return { actual: 'not-run', met: false, message: 'not run: the campaign was interrupted' };
  if (ended.aborted) {
    return { actual: 'aborted', met: false, message: 'interrupted before the run finished: no verdict' };
  }
  if ('error' in ended) return { actual: 'error', met: false, message: `the run failed: ${ended.error}` };
  const actual = actualOf(ended.valid);
  const violations = said(ended.results, false);
  if (actual === 'unknown') {
    const why = said(ended.results, 'unknown');
    return { actual, met: false, message: `expected ${expect}, got unknown${why ? `: ${why}` : ''}` };
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
