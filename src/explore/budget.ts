/** An exploration's budget: a number of runs (`--budget 30`) or of minutes (`--budget 20m`). */
import { UserError } from '../util/errors.js';

export type Budget = { runs: number } | { minutes: number };

/** An exploration's budget when none is given: 30 runs. */
export const DEFAULT_BUDGET: Budget = { runs: 30 };

export function parseBudget(text: string): Budget {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(m?)\s*$/.exec(text);
  const n = m ? Number(m[1]) : Number.NaN;
  if (!m || !(n > 0) || (m[2] === '' && !Number.isInteger(n))) {
    throw new UserError(
      `--budget takes a whole number of runs (--budget 30) or of minutes (--budget 20m) above 0, got '${text}'`,
    );
  }
  return m[2] === 'm' ? { minutes: n } : { runs: n };
}

/** Whether another try fits: `made` tries so far, `elapsedMs` since the exploration began. */
export function budgetAllows(budget: Budget, made: number, elapsedMs: number): boolean {
  return 'runs' in budget ? made < budget.runs : elapsedMs < budget.minutes * 60_000;
}
