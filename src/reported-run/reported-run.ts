/**
 * A run as the CLI, campaigns and shrink make it: the runner runs, and this layer shows
 * its progress and writes its report.html. (The runner imports nothing of the report.)
 */

import { Worker } from 'node:worker_threads';
import { buildRunReport } from '../report/html.js';
import { RunProgress } from '../report/progress.js';
import type { TestConfig } from '../run-data/config.js';
import { prepareRun } from '../run-data/prepare.js';
import type { ResolvedRun } from '../run-data/resolve.js';
import { type RunHooks, type RunResult, run } from '../runner/run.js';
import { cliCommand, compiledBeside } from '../util/paths.js';

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
    const built = await interruptibleReport(result.dir, hooks.signal);
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

/**
 * buildRunReport on a thread that Ctrl-C ends (undefined then). A run whose workload or
 * checking was interrupted has had its Ctrl-C: its report is built, and a second Ctrl-C
 * quits at once (interrupt.ts), which the thread leaves this thread free to hear.
 */
export async function interruptibleReport(
  dir: string,
  signal: AbortSignal | undefined,
): Promise<{ reportPath: string; headline: string } | undefined> {
  const url = compiledBeside(import.meta.url, './report-thread.js');
  if (!url) return buildRunReport(dir);
  const listen = signal?.aborted ? undefined : signal;
  const thread = new Worker(url, { workerData: { dir } });
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      resolve(undefined);
      void thread.terminate();
    };
    listen?.addEventListener('abort', onAbort, { once: true });
    const settle = () => listen?.removeEventListener('abort', onAbort);
    thread.once('message', (built: { reportPath: string; headline: string }) => {
      settle();
      resolve(built);
    });
    thread.once('error', (err) => {
      settle();
      reject(err);
    });
    thread.once('exit', (code) => {
      settle();
      if (!listen?.aborted) reject(new Error(`the report thread exited with code ${code} before it answered`));
    });
  });
}
