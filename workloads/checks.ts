/**
 * The checks of a run: its workload's checkers on its history. The runner checks a run
 * when it ends; the report checks a run folder that has no results (its runner killed).
 */
import { runCheckers } from '../checkers/checker.js';
import type { CheckResult } from '../checkers/result.js';
import type { Op } from '../src/history/op.js';
import { UserError } from '../src/util/errors.js';
import { compiledBeside } from '../src/util/paths.js';
import { threadAnswer } from '../src/util/thread-answer.js';
import { workloadByName } from './index.js';

export function checkRun(
  history: readonly Op[],
  run: { workload: string; fencing: boolean },
  opts: { storeKey: string },
): CheckResult[] {
  const workload = workloadByName(run.workload);
  if (!workload) throw new UserError(`unknown workload '${run.workload}': no checkers for it`);
  return runCheckers(history, workload.checkers, { storeKey: opts.storeKey, fencing: run.fencing });
}

/** What interruptibleCheckRun gives when the signal came first: nothing was decided. */
export const CHECK_INTERRUPTED = 'interrupted';

/**
 * checkRun on a worker thread that `signal` ends: the results, or CHECK_INTERRUPTED once
 * the signal is aborted (the thread is terminated; nothing of it is kept). Without a signal,
 * or without the compiled thread (the TypeScript sources alone), on this thread.
 * `besideWorkloads` (a campaign's cell, others running theirs): the thread yields the CPU.
 */
export async function interruptibleCheckRun(
  history: readonly Op[],
  run: { workload: string; fencing: boolean },
  opts: { storeKey: string },
  signal?: AbortSignal,
  besideWorkloads = false,
): Promise<CheckResult[] | typeof CHECK_INTERRUPTED> {
  if (signal?.aborted) return CHECK_INTERRUPTED;
  const url = compiledBeside(import.meta.url, './check-thread.js');
  if (!signal || !url) return checkRun(history, run, opts);
  const results = await threadAnswer<CheckResult[], CheckResult[]>(
    url,
    { workerData: { history, run: { workload: run.workload, fencing: run.fencing }, opts, besideWorkloads } },
    signal,
    (answer) => ({ answer }),
    'the checking thread',
  );
  return results ?? CHECK_INTERRUPTED;
}
