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
 * campaign killed outright still leaves the cells it finished.
 */
import { appendFileSync, copyFileSync, existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { freemem } from 'node:os';
import { join } from 'node:path';
import { ensureEngine, ensureImage } from '../cluster/docker-engine.js';
import { runAndReport } from '../reported-run/reported-run.js';
import { DEFAULTS } from '../run-data/config.js';
import { pointLatest, type RunTimings, runFile } from '../run-data/run-folder.js';
import { allClusterImages } from '../runner/images.js';
import { shrinkRun } from '../shrink/shrink.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { errorMessage, errorStack } from '../util/errors.js';
import { makeDirs } from '../util/make-dirs.js';
import { plural } from '../util/plural.js';
import { stamped } from '../version.js';
import { CAMPAIGN_FILES, summaryFiles } from './campaign-folder.js';
import { judge } from './expect.js';
import { loadCampaign } from './load.js';
import type { Cell, CellOptions, ResolvedCell } from './matrix.js';
import {
  type CampaignSummary,
  type CellPhases,
  type CellResult,
  campaignJUnit,
  summaryHtml,
  summaryJson,
} from './report.js';
import { type CampaignFile, campaignRecord } from './spec.js';
import { estimate, HEARTBEAT_MS, progressText, thisRunner } from './state.js';
import type { CampaignPlan } from './validate.js';
import { WorkloadSlots } from './workload-slots.js';

/** How a campaign's cells are run: where, how many at once, for how long. */
export interface CampaignRunOptions {
  /** Where campaigns (and their runs) are written (default "store"). */
  store?: string;
  /** Workloads at once (default 1). */
  parallel?: number;
  /**
   * Clusters started ahead of a free workload slot, so that a cell's start overlaps the
   * running ones (default: as many as --parallel; none while memory is short).
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
 * Whether one more cell may start its cluster: up to --parallel cells before their workload
 * ends at any time, and `ahead` more started ahead while the machine has memory to spare.
 */
function roomForAnotherCluster(started: number, parallel: number, ahead: number): boolean {
  if (started < parallel) return true;
  return started < parallel + ahead && freemem() >= SPARE_MEMORY_FOR_A_CLUSTER;
}

/** Free memory below which no cluster starts ahead of a slot: a ZooKeeper ensemble's JVMs and then some. */
const SPARE_MEMORY_FOR_A_CLUSTER = 1.5 * 1024 ** 3;

/** A cell's phases: the run's, and the report written after it (the rest of the cell's time). */
function cellPhases(timings: RunTimings, durationS: number): CellPhases {
  const report = Math.max(0, Math.round((durationS - timings.totalS) * 100) / 100);
  return { ...timings.phases, report };
}

const stamp = () => new Date().toISOString().replace(/:/g, '-');

/** A run's folder name in the campaign: "007-redis-lock-set-none-fenced-seed-1". */
export const cellSlug = (c: Cell) =>
  `${String(c.index + 1).padStart(3, '0')}-${c.id.replace(/[/=]/g, '-').replace(/[^A-Za-z0-9._-]/g, '_')}`;

/** The one run folder under <runs>/<slug>/ (run() names it by its start time). */
function findRunDir(runsDir: string, slug: string): string | undefined {
  const base = join(runsDir, slug);
  if (!existsSync(base)) return undefined;
  const stamps = readdirSync(base).sort();
  const last = stamps[stamps.length - 1];
  return last === undefined ? undefined : join(base, last);
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
 * Runs a planned campaign's cells, each as it was resolved when the campaign was planned.
 * Throws a UserError when no Docker engine answers; a failing run is a failed cell.
 */
export async function runCampaign(
  plan: CampaignPlan,
  options: CampaignRunOptions = {},
  hooks: CampaignHooks = {},
): Promise<CampaignResult> {
  const { spec, shard, allCells, cells: runs } = plan;
  const parallel = options.parallel ?? 1;
  if (!Number.isInteger(parallel) || parallel < 1)
    throw new RangeError(`parallel must be a whole number >= 1, got ${parallel}`);
  // The cells as results name them; their runs as resolved stay beside them, in `runs`.
  const cells: Cell[] = runs.map(({ resolved: _, ...cell }) => cell);
  const log = hooks.log ?? (() => {});

  if (cells.length > 0) {
    await ensureEngine();
    // Every image any cell needs, before the first cell: a missing one is built (or the
    // campaign stops in one line), not an error in each of its cells.
    const needed = allClusterImages(runs.map((r) => r.resolved));
    log(`images for ${plural(cells.length, 'cell')}: ${needed.images.join(', ')}`);
    await ensureImage({ build: options.buildImage ?? true, log, ...needed });
  }

  const store = options.store ?? DEFAULTS.storeDir;
  const parent = join(store, 'campaigns', spec.name);
  const shardSuffix = shard ? `-shard-${shard.index}-of-${shard.count}` : '';
  const dir = join(parent, `${stamp()}${shardSuffix}`);
  const runsDir = join(dir, CAMPAIGN_FILES.runs);
  const logsDir = join(dir, CAMPAIGN_FILES.logs);
  makeDirs(runsDir);
  makeDirs(logsDir);
  writeFileSync(join(dir, CAMPAIGN_FILES.spec), `${JSON.stringify(stamped(campaignRecord(spec)), null, 2)}\n`);
  try {
    if (statSync(spec.source).isFile()) copyFileSync(spec.source, join(dir, CAMPAIGN_FILES.yaml));
  } catch {
    // not from a file (a campaign object)
  }
  if (options.latest !== false)
    try {
      pointLatest(parent, dir, `latest${shardSuffix}`);
    } catch {
      // another process on the same store got there first: the link is a convenience
    }

  const files = summaryFiles(dir);
  const t0 = Date.now();
  const startedAt = new Date(t0).toISOString();
  const runner = thisRunner();
  const planned = cells.map((c) => ({ index: c.index, id: c.id, expect: c.expect }));
  // The caller's signal, or the time budget running out: either stops the campaign.
  const budget = new AbortController();
  const signal = hooks.signal ? AbortSignal.any([hooks.signal, budget.signal]) : budget.signal;
  const budgetTimer =
    options.timeBudgetS === undefined
      ? undefined
      : setTimeout(() => budget.abort(`its time budget of ${options.timeBudgetS} s`), options.timeBudgetS * 1000);
  budgetTimer?.unref();
  const cutShortBy = (): string => {
    const reason: unknown = budget.signal.aborted ? budget.signal.reason : hooks.signal?.reason;
    return typeof reason === 'string' ? reason : 'its abort signal';
  };
  const done = new Map<number, CellResult>();
  const summary = (final: boolean): CampaignSummary => {
    const results = cells.map(
      (cell) =>
        done.get(cell.index) ?? ({ cell, durationS: 0, ...judge(cell.expect, { notRun: true }) } satisfies CellResult),
    );
    const interrupted = signal.aborted;
    const now = Date.now();
    const s: CampaignSummary = {
      name: spec.name,
      source: spec.source,
      dir,
      totalCells: allCells.length,
      startedAt,
      finishedAt: final ? new Date(now).toISOString() : '',
      interrupted,
      state: !final ? 'running' : interrupted ? 'cut-short' : 'finished',
      updatedAt: new Date(now).toISOString(),
      progress: estimate(done.size, cells.length, (now - t0) / 1000),
      runner,
      planned,
      met: final && !interrupted && results.every((r) => r.met),
      cells: final ? results : results.filter((r) => done.has(r.cell.index)),
    };
    if (final && interrupted) s.cutShortBy = cutShortBy();
    if (spec.description !== undefined) s.description = spec.description;
    if (shard) {
      s.shard = shard;
      // Every cell by name, so that a merge without some shards can say which cells it lacks.
      s.allCells = allCells.map((c) => ({ index: c.index, id: c.id, expect: c.expect }));
    }
    return s;
  };
  const write = (final: boolean) => {
    const s = summary(final);
    // Whole files only: serve and CI read them while the campaign runs.
    writeFileAtomic(files.summaryJson, summaryJson(s));
    writeFileAtomic(files.junit, campaignJUnit(s));
    writeFileAtomic(files.summaryHtml, summaryHtml(s));
    return s;
  };
  write(false);
  // The heartbeat: elapsed and estimate stay current, and a reader elsewhere can tell a
  // campaign that still runs from one whose runner was killed (state.ts).
  const heartbeat = setInterval(() => write(false), HEARTBEAT_MS);
  heartbeat.unref();

  let finished = 0;
  // --parallel workloads at once; as many clusters again start ahead of a free slot (and
  // finished cells tear down and check) while those run, as memory allows.
  const slots = new WorkloadSlots(parallel);
  const ahead = options.startAhead ?? parallel;
  const runCell = async ({ resolved, ...cell }: ResolvedCell, workloadOver: () => void): Promise<CellResult> => {
    const slug = cellSlug(cell);
    const logFile = join(logsDir, `${slug}.log`);
    const runLog = (line: string) => {
      appendFileSync(logFile, `${line}\n`);
      hooks.runLog?.(cell, line);
    };
    const cellStart = Date.now();
    log(`[${cell.index + 1}] ${cell.id}: starting (expect ${cell.expect})`);
    // Its folder in the campaign's: a name and a store change nothing that was resolved.
    const config = { ...resolved.config, name: slug, storeDir: runsDir };
    let result: CellResult;
    try {
      // Each run's lines go to its log file; live progress would interleave across runs.
      const r = await runAndReport(
        { ...resolved, config },
        {
          log: runLog,
          progress: false,
          signal,
          buildImage: false,
          latest: options.latest,
          workloadSlot: async (cellSignal) => {
            const giveBack = await slots.take(cellSignal);
            return () => {
              giveBack();
              workloadOver();
            };
          },
        },
      );
      const outcome = judge(
        cell.expect,
        { valid: r.valid, results: r.results, aborted: signal.aborted, conditions: r.conditions },
        cell.availability,
      );
      result = {
        cell,
        ...outcome,
        durationS: (Date.now() - cellStart) / 1000,
        phases: cellPhases(r.timings, (Date.now() - cellStart) / 1000),
        dir: r.dir,
        report: runFile(r.dir, 'report'),
        checkers: r.results.map((c) => ({
          checker: c.checker,
          valid: c.valid,
          counts: c.counts !== false,
          summary: c.summary,
        })),
        ...(r.headline ? { headline: r.headline } : {}),
        ...(r.stoppedEarly ? { stoppedEarlyS: r.stoppedEarly.atS, stoppedEarlyWhy: r.stoppedEarly.why } : {}),
        ...(r.coverage ? { coverage: r.coverage } : {}),
      };
    } catch (err) {
      const message = errorMessage(err).split('\n').filter(Boolean).join(' / ');
      runLog(`error: ${errorStack(err)}`);
      const runDir = findRunDir(runsDir, slug);
      result = {
        cell,
        ...judge(cell.expect, { error: message, aborted: signal.aborted }),
        durationS: (Date.now() - cellStart) / 1000,
      };
      if (runDir) {
        result.dir = runDir;
        result.report = runFile(runDir, 'report');
      }
    }
    // A false alarm (or a regression) comes with its smallest reproducer.
    if ((spec.shrink || options.shrink) && cell.expect === 'valid' && result.actual === 'invalid' && result.dir) {
      log(`[${cell.index + 1}] ${cell.id}: expected valid, was invalid: shrinking`);
      try {
        const shrunk = await shrinkRun(result.dir, { maxRuns: 30, log: runLog, signal });
        result.shrink = shrunk.page;
      } catch (err) {
        runLog(`shrink failed: ${errorMessage(err)}`);
      }
    }
    finished += 1;
    const pace = progressText(estimate(finished, cells.length, (Date.now() - t0) / 1000));
    log(
      `[${cell.index + 1}] ${cell.id}: ${result.met ? 'ok' : 'MISMATCH'}: ${result.message} (${result.durationS.toFixed(1)} s; ${pace})`,
    );
    return result;
  };

  // Cells on a target run one at a time (another's faults would land in its run: the hosts
  // are shared); cells with their own containers run beside them as --parallel allows.
  let targetTurn: Promise<unknown> = Promise.resolve();
  const onTarget = (one: ResolvedCell, workloadOver: () => void): Promise<CellResult> => {
    const turn = targetTurn.then(() => runCell(one, workloadOver));
    targetTurn = turn.catch(() => undefined);
    return turn;
  };
  /** Cells started whose workload is not over yet (starting, waiting for a slot, running). */
  const beforeTheirWorkloadEnds = new Set<Promise<void>>();
  const launch = (one: ResolvedCell): Promise<void> => {
    let workloadOver = () => {};
    const over = new Promise<void>((resolve) => {
      workloadOver = resolve;
    });
    beforeTheirWorkloadEnds.add(over);
    void over.then(() => beforeTheirWorkloadEnds.delete(over));
    return (async () => {
      try {
        const result = await (one.resolved.target ? onTarget(one, workloadOver) : runCell(one, workloadOver));
        done.set(one.index, result);
        write(false);
        hooks.onCell?.(result);
      } finally {
        workloadOver();
      }
    })();
  };
  /** Cells started and not ended; those past their workload tear down, check and report. */
  const inProgress = new Set<Promise<void>>();
  // Past their workload, as many as there are slots finish beside the running ones: more
  // would take the CPU the workloads' timing needs.
  const mayStartAnother = () =>
    inProgress.size < 2 * parallel + ahead && roomForAnotherCluster(beforeTheirWorkloadEnds.size, parallel, ahead);
  const launchAll = async () => {
    for (const one of runs) {
      while (!signal.aborted && !mayStartAnother()) await Promise.race([...beforeTheirWorkloadEnds, ...inProgress]);
      if (signal.aborted) break;
      const cell = launch(one);
      inProgress.add(cell);
      void cell.then(() => inProgress.delete(cell));
    }
    await Promise.all(inProgress);
  };
  try {
    await launchAll();
  } finally {
    clearInterval(heartbeat);
    clearTimeout(budgetTimer);
  }
  return { ...write(true), files };
}
