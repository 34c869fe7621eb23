/**
 * A configuration's outcome on one night, from how many of its runs met their expectation:
 * all (met), none (not met), some (flaky), or no run with a verdict. One rule for serve's
 * trend rows and the job summary's flips, so they agree on what a flip is.
 */
export type Mark = 'met' | 'not-met' | 'flaky' | 'not-run';

export const markOf = (met: number, ran: number): Mark =>
  ran === 0 ? 'not-run' : met === ran ? 'met' : met === 0 ? 'not-met' : 'flaky';

export const MARK_TEXT: Record<Mark, { symbol: string; word: string }> = {
  met: { symbol: '●', word: 'met' },
  'not-met': { symbol: '✕', word: 'not met' },
  flaky: { symbol: '◐', word: 'flaky' },
  'not-run': { symbol: '·', word: 'not run' },
};
