/**
 * Which checkers a run gets, and which of them count toward its verdict. With fencing,
 * two clients believing they hold the lock at once is expected (a paused holder outlives
 * its lease), so the verdict rests on the data: nothing acknowledged lost, no stale token
 * accepted. Without fencing, the beliefs themselves must not overlap.
 *
 * The linearizability checks ask whether each object behaved like the object it claims to
 * be: the store like a register (a fenced one with fencing), which must always hold; the
 * lock like a mutex with owners, which a lease lock is not (a lease expires under a holder
 * that never released it, e.g. one that gave up after a timeout): shown, not counted;
 * mutual-exclusion judges the holders' beliefs. perf (availability and latency, in and
 * out of fault windows) is shown for every run and never counted. evidence counts: too few
 * grants, accepted writes or reads to judge safety make the run unknown, never valid.
 */
import { checkEvidence } from '../../checkers/evidence.js';
import { checkFencing } from '../../checkers/fencing.js';
import {
  type CheckOptions,
  checkLinearizable,
  checkLinearizablePaired,
  type LinearizableResult,
} from '../../checkers/linearizable/index.js';
import { checkLostUpdates } from '../../checkers/lost-updates.js';
import { checkMutualExclusion } from '../../checkers/mutual-exclusion.js';
import { checkPerf } from '../../checkers/perf.js';
import type { CheckResult } from '../../checkers/result.js';
import type { Op } from '../history/op.js';
import { type LenientPairing, pairHistory, strictSubset } from '../history/pairs.js';
import { errorMessage } from '../util/errors.js';
import type { TestConfig } from './config.js';

/** Per linearizability check: past this the answer is `unknown`, never a hang. */
const LINEARIZABLE_TIME_LIMIT_MS = 60_000;

/**
 * A checker, timed (junit.xml's case time); one that throws (a history it cannot read)
 * answers `unknown` with the reason. `counts` undefined: as the checker says.
 */
function guarded(checker: string, counts: boolean | undefined, check: () => CheckResult): CheckResult {
  const t0 = performance.now();
  const timeMs = () => Math.round((performance.now() - t0) * 1000) / 1000;
  try {
    const r = check();
    return { ...r, counts: counts ?? r.counts ?? true, timeMs: timeMs() };
  } catch (err) {
    const why = errorMessage(err);
    return { checker, valid: 'unknown', counts: counts ?? true, summary: `could not check: ${why}`, timeMs: timeMs() };
  }
}

/**
 * The linearizability of the client operations `keep` selects (the lock's, or the store's),
 * from the run's one pairing. A history that breaks Jepsen's rules is filtered and paired
 * strictly instead, so that the check names the break as it always did.
 */
function linearizableSubset(
  history: readonly Op[],
  paired: LenientPairing,
  keep: (op: Op) => boolean,
  model: string,
  options: CheckOptions,
): LinearizableResult {
  const subset = strictSubset(paired, keep);
  if (subset) return checkLinearizablePaired(subset, model, options);
  return checkLinearizable(
    history.filter((op) => op.process === 'nemesis' || keep(op)),
    model,
    options,
  );
}

export function checkRun(history: Op[], config: TestConfig, opts: { storeKey: string }): CheckResult[] {
  // Paired once, here: every checker below (and the report after them) reads this pairing.
  const paired = pairHistory(history);
  const results: CheckResult[] = [
    guarded('mutual-exclusion', !config.fencing, () => checkMutualExclusion(history, { counts: !config.fencing })),
  ];
  const onStore = (op: Op) => op.key === opts.storeKey;
  results.push(
    guarded('linearizable(mutex)', false, () =>
      linearizableSubset(history, paired, (op) => !onStore(op), 'mutex', {
        only: ['acquire', 'release'],
        timeLimitMs: LINEARIZABLE_TIME_LIMIT_MS,
      }),
    ),
  );
  if (config.workload === 'lock-set') {
    results.push(guarded('lost-updates', true, () => checkLostUpdates(history, opts.storeKey)));
    results.push(
      guarded('fencing', undefined, () => checkFencing(history, { storeKey: opts.storeKey, fenced: config.fencing })),
    );
    const model = config.fencing ? 'fenced-register' : 'register';
    results.push(
      guarded(`linearizable(${model})`, true, () =>
        linearizableSubset(history, paired, onStore, model, {
          only: ['read', 'write'],
          timeLimitMs: LINEARIZABLE_TIME_LIMIT_MS,
        }),
      ),
    );
  }
  // Enough grants, accepted writes and reads to judge the rest: counted, since a safety
  // verdict on (next to) nothing is no verdict.
  results.push(
    guarded('evidence', true, () =>
      checkEvidence(history, {
        writes: config.workload === 'lock-set',
        storeKey: opts.storeKey,
        fenced: config.fencing,
      }),
    ),
  );
  // How the service served its clients in and out of faults: shown, never a verdict.
  results.push(guarded('perf', false, () => checkPerf(history)));
  return results;
}
