/**
 * A checker as a workload declares it (workloads/*.ts, `checkers`): its name, whether its
 * verdict counts toward the run's, and its check on the run's history. runCheckers runs a
 * workload's list: the history paired once, each checker timed (junit.xml's case time),
 * and one that throws (a history it cannot read) answering `unknown` with the reason.
 */
import type { Op } from '../src/history/op.js';
import { type LenientPairing, pairHistory } from '../src/history/pairs.js';
import { errorMessage } from '../src/util/errors.js';
import type { CheckResult } from './result.js';

/** What a run's checkers are given: its history, paired once, and how the run was set up. */
export interface CheckedRun {
  history: readonly Op[];
  /** The history's lenient pairing: every checker reads this one (and the report after them). */
  paired: LenientPairing;
  /** The data store register's key: operations on it are the store's, the others the lock's. */
  storeKey: string;
  /** Whether the clients fenced their writes with their grant's token (the run's `fencing`). */
  fencing: boolean;
}

export interface RunChecker {
  /** The name its result carries (a linearizability check's says its model, which fencing chooses). */
  name(run: CheckedRun): string;
  /** Whether its verdict counts toward the run's, unless its result says otherwise. */
  counts(run: CheckedRun): boolean;
  check(run: CheckedRun): CheckResult;
}

/** The results of `checkers` on a history, in their order. */
export function runCheckers(
  history: readonly Op[],
  checkers: readonly RunChecker[],
  opts: { storeKey: string; fencing: boolean },
): CheckResult[] {
  const run: CheckedRun = { history, paired: pairHistory(history), ...opts };
  return checkers.map((checker) => guarded(checker, run));
}

function guarded(checker: RunChecker, run: CheckedRun): CheckResult {
  const t0 = performance.now();
  const timeMs = () => Math.round((performance.now() - t0) * 1000) / 1000;
  try {
    const r = checker.check(run);
    return { ...r, counts: r.counts ?? checker.counts(run), timeMs: timeMs() };
  } catch (err) {
    return {
      checker: checker.name(run),
      valid: 'unknown',
      counts: checker.counts(run),
      summary: `could not check: ${errorMessage(err)}`,
      timeMs: timeMs(),
    };
  }
}
