/**
 * The checks of a run: its workload's checkers on its history. The runner checks a run
 * when it ends; the report checks a run folder that has no results (its runner killed).
 */
import type { CheckResult } from '../checkers/result.js';
import { runCheckers } from '../checkers/run-checker.js';
import type { Op } from '../src/history/op.js';
import { UserError } from '../src/util/errors.js';
import { workloadByName } from './index.js';

export function checkRun(
  history: readonly Op[],
  run: { workload: string; fencing: boolean },
  opts: { storeKey: string },
): CheckResult[] {
  const workload = workloadByName(run.workload);
  if (!workload) throw new UserError(`unknown workload '${run.workload}': no checkers for it`);
  return runCheckers(history, workload.checkers, { storeKey: opts.storeKey, fenced: run.fencing });
}
