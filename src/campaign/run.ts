/**
 * Running a campaign: the cells of one shard, k at a time in this process (each run has
 * its own cluster and network), every verdict compared with its expectation. The campaign
 * folder is self-contained:
 *
 *     <store>/campaigns/<name>/<timestamp>[-shard-i-of-n]/
 *       campaign.json        the validated campaign (and campaign.yaml, the file as given)
 *       summary.html         the table of cells: expected vs actual, links to each run
 *       summary.json         the same as data
 *       junit.xml            one test case per run
 *       runs/<NNN-cell>/<timestamp>/   each run's own folder (test.json, history.jsonl ...)
 *       logs/<NNN-cell>.log  each run's log lines (with a runLog hook) and its error, if any
 *
 * A run that fails with an error is a failed cell and the campaign goes on. Aborting
 * (Ctrl-C) aborts the runs in progress (they heal and tear down), starts no more, and
 * writes what was finished. The summary files are rewritten after every cell, so a
 * campaign killed outright still leaves the cells it finished. An internal error of the
 * campaign itself (a summary that cannot be written, a hook that throws) stops it the same
 * way, then summary.json says failed, with the error, and the error is thrown.
 */

import { estimate, progressText } from '../campaign-data/state.js';
import type { CampaignSummary, CellResult } from '../campaign-data/summary-record.js';
import { ensureEngine, ensureImage } from '../cluster/docker-engine.js';
import { allClusterImages } from '../runner/images.js';
import { plural } from '../util/plural.js';
import { removeIdleSideCpuGroups } from '../util/side-cpu-group.js';
import { CampaignRecord } from './campaign-record.js';
import { launchCells } from './cell-launcher.js';
import { loadCampaign } from './load.js';
import type { Cell, CellOptions, ResolvedCell } from './matrix.js';
import { openCampaignFolder } from './open-campaign-folder.js';
import { runCell } from './run-cell.js';
import type { CampaignFile } from './spec.js';
import type { CampaignPlan } from './validate.js';
import { WorkloadSlots } from './workload-slots.js';

export { cellSlug } from './run-cell.js';

/** How a campaign's cells are run: where, how many at once, for how long. */
export interface CampaignRunOptions {
  /** Where campaigns (and their runs) are written (default "store"). */
  store?: string;
  /** Workloads at once (default 1). */
  parallel?: number;
  /**
   * Clusters started ahead of a free workload slot, so that a cell's start overlaps the
   * running ones (default 1; none while memory is short). More kept a 2-core machine at a
   * load of 15-23 with --parallel 2, and lease-based cells that expect valid lost it.
   */
  startAhead?: number;
  /** Shrink every cell that expected valid and was invalid (as the file's `shrink: true`). */
  shrink?: boolean;
  /** Build the node image when it is missing (default true). */
  buildImage?: boolean;
  /** Write `latest` links (default true; CI artifact stores want no symlinks). */
  latest?: boolean;
  /**
   * Seconds the campaign may take: past them, runs in progress stop (heal and tear down),
   * no more start, and the campaign ends cut short with the cells that never ran named, well
   * before a CI job's own limit kills it without a word.
   */
  timeBudgetS?: number;
}

/** A campaign's options: those set on its cells as it is planned, and how they are run. */
export interface CampaignOptions extends CellOptions, CampaignRunOptions {}

export interface CampaignHooks {
  /** Aborting stops the campaign: runs in progress heal and tear down, no more start. */
  signal?: AbortSignal;
  /** Progress: one line per cell started and finished. */
  log?: (line: string) => void;
  /**
   * Each run's own log lines (also written to logs/<cell>.log); without it runs are quiet
   * and logs/ holds only the errors.
   */
  runLog?: (cell: Cell, line: string) => void;
  /** Called as each cell ends. */
  onCell?: (result: CellResult) => void;
}

export interface CampaignResult extends CampaignSummary {
  files: { summaryHtml: string; summaryJson: string; junit: string };
}

/**
 * Runs a campaign from a file's path or a campaign object: planned for these options
 * (load.ts), then run. Throws a UserError when the campaign is not valid or no Docker
 * engine answers; a failing run is a failed cell, not an exception.
 */
export async function campaign(
  input: string | CampaignFile,
  options: CampaignOptions = {},
  hooks: CampaignHooks = {},
): Promise<CampaignResult> {
  return runCampaign(await loadCampaign(input, options), options, hooks);
}

/**
 * Every image any cell needs, before the first cell: a missing one is built (or the
 * campaign stops in one line), not an error in each of its cells.
 */
async function prepareImages(runs: readonly ResolvedCell[], build: boolean, log: (line: string) => void) {
  if (runs.length === 0) return;
  await ensureEngine();
  const needed = allClusterImages(runs.map((r) => r.resolved));
  log(`images for ${plural(runs.length, 'cell')}: ${needed.images.join(', ')}`);
  await ensureImage({ build, log, ...needed });
}

/**
 * The caller's signal, the time budget running out, or the campaign's own failure: each
 * stops the campaign, and says which.
 */
function campaignStop(given: AbortSignal | undefined, timeBudgetS: number | undefined) {
  const budget = new AbortController();
  const failure = new AbortController();
  const signal = AbortSignal.any([...(given ? [given] : []), budget.signal, failure.signal]);
  const timer =
    timeBudgetS === undefined
      ? undefined
      : setTimeout(() => budget.abort(`its time budget of ${timeBudgetS} s`), timeBudgetS * 1000);
  timer?.unref();
  const stopped = () => {
    const reason: unknown = budget.signal.aborted ? budget.signal.reason : given?.reason;
    return { aborted: signal.aborted, by: typeof reason === 'string' ? reason : 'its abort signal' };
  };
  return { signal, stopped, fail: () => failure.abort('an internal error'), dispose: () => clearTimeout(timer) };
}

/**
 * Runs a planned campaign's cells, each as it was resolved when the campaign was planned:
 * images, folder, then the cells as room allows, the summary rewritten as each ends.
 * Throws a UserError when no Docker engine answers; a failing run is a failed cell.
 */
export async function runCampaign(
  plan: CampaignPlan,
  options: CampaignRunOptions = {},
  hooks: CampaignHooks = {},
): Promise<CampaignResult> {
  const parallel = options.parallel ?? 1;
  if (!Number.isInteger(parallel) || parallel < 1)
    throw new RangeError(`parallel must be a whole number >= 1, got ${parallel}`);
  const log = hooks.log ?? (() => {});
  const runs = plan.cells;
  // The cells as results name them; their runs as resolved stay beside them, in `runs`.
  const cells: Cell[] = runs.map(({ resolved: _, ...cell }) => cell);

  await prepareImages(runs, options.buildImage ?? true, log);
  const folder = openCampaignFolder(plan, options);
  const stop = campaignStop(hooks.signal, options.timeBudgetS);
  const record = new CampaignRecord(plan, cells, folder.dir, folder.files, stop.stopped);
  const context = {
    ...folder,
    signal: stop.signal,
    slots: new WorkloadSlots(parallel),
    shrink: Boolean(plan.spec.shrink || options.shrink),
    latest: options.latest,
    log,
    runLog: hooks.runLog,
  };
  const ended = (result: CellResult) => {
    record.add(result);
    const { cell } = result;
    const pace = progressText(estimate(record.finished, cells.length, record.elapsedS()));
    const verdict = `${result.met ? 'ok' : 'MISMATCH'}: ${result.message}`;
    log(`[${cell.index + 1}] ${cell.id}: ${verdict} (${result.durationS.toFixed(1)} s; ${pace})`);
    hooks.onCell?.(result);
  };
  // The first error of the campaign itself: it stops the cells in progress (they heal and
  // tear down, as when aborted) before the campaign ends failed.
  let failure: { err: unknown } | undefined;
  const failed = (err: unknown) => {
    failure ??= { err };
    stop.fail();
  };
  try {
    record.begin();
    const room = { parallel, ahead: options.startAhead ?? 1 };
    await launchCells(runs, room, stop.signal, async (one, workloadOver) => {
      try {
        ended(await runCell(context, one, workloadOver));
      } catch (err) {
        failed(err);
      }
    });
    if (!failure) return { ...record.end(), files: folder.files };
  } catch (err) {
    failed(err);
  } finally {
    record.stopHeartbeat();
    stop.dispose();
    // Every cell has checked and reported: the group their side work ran in is empty.
    removeIdleSideCpuGroups();
  }
  record.fail(failure?.err);
  throw failure?.err;
}
