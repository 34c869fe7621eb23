/**
 * Which checkers a run gets, and which of them count toward its verdict. With fencing,
 * two clients believing they hold the lock at once is expected (a paused holder outlives
 * its lease), so the verdict rests on the data: nothing acknowledged lost, no stale token
 * accepted. Without fencing, the beliefs themselves must not overlap.
 */
import { checkFencing } from '../../checkers/fencing.js';
import { checkLostUpdates } from '../../checkers/lost-updates.js';
import { checkMutualExclusion } from '../../checkers/mutual-exclusion.js';
import type { CheckResult } from '../../checkers/result.js';
import type { Op } from '../history/op.js';
import type { TestConfig } from './config.js';

export function checkRun(history: Op[], config: TestConfig, opts: { storeKey: string }): CheckResult[] {
  const results: CheckResult[] = [checkMutualExclusion(history, { counts: !config.fencing })];
  if (config.workload === 'lock-set') {
    results.push(checkLostUpdates(history, opts.storeKey));
    results.push(checkFencing(history, { storeKey: opts.storeKey, fenced: config.fencing }));
  }
  return results;
}
