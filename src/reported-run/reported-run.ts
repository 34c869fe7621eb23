/**
 * A run as the CLI, campaigns and shrink make it: the runner runs, and this layer shows
 * its progress and writes its report.html. (The runner imports nothing of the report.)
 */

import { RunProgress } from '../report/progress.js';
import { interruptibleReport } from '../report/report-on-thread.js';
import type { TestConfig } from '../run-data/config.js';
import { prepareRun } from '../run-data/prepare.js';
import type { ResolvedRun } from '../run-data/resolve.js';
import { type RunHooks, type RunResult, run } from '../runner/run.js';
import { cliCommand } from '../util/paths.js';

export interface ReportedRunHooks extends Omit<RunHooks, 'progress'> {
  /** Where a configuration came from (`--replay: 'run/test.json'`): named in a problem with it. */
  configFrom?: string;
  /** Live progress on stderr while the workload runs (default: when `log` is given). */
  progress?: boolean;
}

/** A run and its report: the verdict in one sentence when report.html was written. */
export type ReportedRun = RunResult & { headline?: string };

export async function runAndReport(
  input: TestConfig | ResolvedRun,
  hooks: ReportedRunHooks = {},
): Promise<ReportedRun> {
  const log = hooks.log ?? (() => {});
  const showProgress = Boolean(hooks.log) && hooks.progress !== false;
  const { configFrom, ...runHooks } = hooks;
  const resolved = 'nodeSpecs' in input ? input : await prepareRun(input, configFrom);
  const result = await run(resolved, {
    ...runHooks,
    progress: showProgress ? (p) => new RunProgress(p) : undefined,
  });
  try {
    const built = await interruptibleReport(result.dir, hooks.signal, {
      // A campaign's cell writes its report while other cells' workloads run.
      besideWorkloads: hooks.workloadSlot !== undefined,
      unbounded: (mib) =>
        log(`the report needed more than its bound of ${mib} MiB of heap: building it again without one`),
    });
    if (built === undefined) {
      log(`report.html not written (interrupted): ${cliCommand} report ${result.dir} writes it`);
      return result;
    }
    log(`report: ${built.reportPath}`);
    return { ...result, headline: built.headline };
  } catch (err) {
    log(`report.html not written: ${String(err)}`);
    return result;
  }
}
