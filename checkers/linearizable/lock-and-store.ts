/**
 * The linearizability checks a run gets: whether each object behaved like the object it
 * claims to be. The store like a register (a fenced one with fencing), which must always
 * hold: counted. The lock like a mutex with owners, which a lease lock is not (a lease
 * expires under a holder that never released it, e.g. one that gave up after a timeout):
 * shown, not counted; mutual-exclusion judges the holders' beliefs.
 */
import type { Op } from '../../src/history/op.js';
import { strictSubset } from '../../src/history/pairs.js';
import type { CheckedRun, RunChecker } from '../checker.js';
import { checkLinearizable, checkLinearizablePaired, type LinearizableResult } from './check-linearizable.js';

/** Per linearizability check: past this the answer is `unknown`, never a hang. */
const LINEARIZABLE_TIME_LIMIT_MS = 60_000;

/**
 * The linearizability of the client operations `keep` selects (the lock's, or the store's),
 * from the run's one pairing. A history that breaks Jepsen's rules is filtered and paired
 * strictly instead, so that the check names the break as it always did.
 */
function linearizableSubset(
  run: CheckedRun,
  keep: (op: Op) => boolean,
  model: string,
  only: readonly string[],
): LinearizableResult {
  const options = { only, timeLimitMs: LINEARIZABLE_TIME_LIMIT_MS };
  const subset = strictSubset(run.paired, keep);
  if (subset) return checkLinearizablePaired(subset, model, options);
  return checkLinearizable(
    run.history.filter((op) => op.process === 'nemesis' || keep(op)),
    model,
    options,
  );
}

/** The lock's acquires and releases against a mutex: shown, not counted. */
export const lockLinearizableChecker: RunChecker = {
  name: () => 'linearizable(mutex)',
  counts: () => false,
  check: (run) => linearizableSubset(run, (op) => op.key !== run.storeKey, 'mutex', ['acquire', 'release']),
};

const storeModel = (run: CheckedRun) => (run.fencing ? 'fenced-register' : 'register');

/** The store's reads and writes against a register (fenced with fencing): counted. */
export const storeLinearizableChecker: RunChecker = {
  name: (run) => `linearizable(${storeModel(run)})`,
  counts: () => true,
  check: (run) => linearizableSubset(run, (op) => op.key === run.storeKey, storeModel(run), ['read', 'write']),
};
