/**
 * A run's report built on a worker thread (report-thread.ts): Ctrl-C is heard while it is
 * built, and its heap is bounded by the history it reads (report-heap.ts).
 */
import { statSync } from 'node:fs';
import { runFile } from '../run-data/run-folder.js';
import { UserError } from '../util/errors.js';
import { compiledBeside } from '../util/paths.js';
import { threadAnswer } from '../util/thread-answer.js';
import { type BuiltReport, builtReport } from './built-report.js';
import { buildRunReport } from './html.js';
import { reportHeapMiB } from './report-heap.js';
import type { ReportThreadMessage } from './report-thread.js';

/** What the report's thread is told of, as it goes. */
export interface ReportThreadHooks {
  /** The run is read and checked: its report.html and junit.xml are about to be replaced. */
  writing?: () => void;
  /** The report did not fit its bounded heap (report-heap.ts) and is built again without it. */
  unbounded?: (boundMiB: number) => void;
  /** The heap bound in MiB (default: report-heap.ts's, from history.jsonl's size). */
  boundMiB?: number;
  /** Other runs' workloads go on beside it (a campaign's cell): the thread yields the CPU. */
  besideWorkloads?: boolean;
}

/**
 * buildRunReport on a thread that Ctrl-C ends (undefined then), with a heap bounded by the
 * history's size. A run whose workload or checking was interrupted has had its Ctrl-C: its
 * report is built, and a second Ctrl-C quits at once (interrupt.ts), which the thread leaves
 * this thread free to hear. A user's mistake (no run folder, an unreadable history) is
 * thrown as the UserError it was.
 */
export async function interruptibleReport(
  dir: string,
  signal: AbortSignal | undefined,
  hooks: ReportThreadHooks = {},
): Promise<BuiltReport | undefined> {
  const url = compiledBeside(import.meta.url, './report-thread.js');
  return url ? reportOnBoundedThread(url, dir, signal, hooks) : builtReport(buildRunReport(dir, {}, hooks.writing));
}

/** The report on its thread with a bounded heap, built again without the bound when it did not fit. */
async function reportOnBoundedThread(
  url: URL,
  dir: string,
  signal: AbortSignal | undefined,
  hooks: ReportThreadHooks,
): Promise<BuiltReport | undefined> {
  // Told once, also when the report is built a second time.
  let writing = hooks.writing;
  const once = {
    ...hooks,
    writing: () => {
      writing?.();
      writing = undefined;
    },
  };
  const boundMiB = hooks.boundMiB ?? reportHeapMiB(historyBytes(dir));
  try {
    return await reportOnThread(url, dir, signal, once, boundMiB);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ERR_WORKER_OUT_OF_MEMORY') throw err;
    hooks.unbounded?.(boundMiB);
    return reportOnThread(url, dir, signal, once, undefined);
  }
}

/** history.jsonl's size, 0 when there is none (buildRunReport then names what is missing). */
function historyBytes(dir: string): number {
  try {
    return statSync(runFile(dir, 'history')).size;
  } catch {
    return 0;
  }
}

function reportOnThread(
  url: URL,
  dir: string,
  signal: AbortSignal | undefined,
  hooks: ReportThreadHooks,
  boundMiB: number | undefined,
): Promise<BuiltReport | undefined> {
  const resourceLimits = boundMiB === undefined ? undefined : { maxOldGenerationSizeMb: boundMiB };
  return threadAnswer<ReportThreadMessage, BuiltReport>(
    url,
    { workerData: { dir, besideWorkloads: hooks.besideWorkloads }, ...(resourceLimits ? { resourceLimits } : {}) },
    signal,
    (message) => {
      if (message.kind === 'writing') return void hooks.writing?.();
      if (message.kind === 'built') return { answer: message.built };
      return { failure: new UserError(message.userError) };
    },
    'the report thread',
  );
}
