/**
 * One cell of a campaign: its run as resolved when the campaign was planned, in the
 * campaign's folder, judged against what the cell expects. A run that fails with an error
 * is a failed cell, not an exception; a cell that expected valid and was not comes with its
 * smallest reproducer when the campaign shrinks.
 */
import { appendFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CellPhases, CellResult } from '../campaign-data/summary-record.js';
import { runAndReport } from '../reported-run/reported-run.js';
import type { RunCondition } from '../run-data/conditions.js';
import { type RunTimings, runFile } from '../run-data/run-folder.js';
import { shrinkRun } from '../shrink/shrink.js';
import { errorMessage, errorStack } from '../util/errors.js';
import { judge } from './expect.js';
import { exploreCell } from './explore-cell.js';
import type { Cell, ResolvedCell } from './matrix.js';
import type { WorkloadSlots } from './workload-slots.js';

/** What every cell of one campaign shares: where it writes, how it logs, when it stops. */
export interface CellContext {
  runsDir: string;
  logsDir: string;
  signal: AbortSignal;
  slots: WorkloadSlots;
  /** Shrink a cell that expected valid and was invalid. */
  shrink: boolean;
  latest?: boolean;
  log: (line: string) => void;
  runLog?: (cell: Cell, line: string) => void;
}

/** A run's folder name in the campaign: "007-redis-lock-set-none-fenced-seed-1". */
export const cellSlug = (c: Cell) =>
  `${String(c.index + 1).padStart(3, '0')}-${c.id.replace(/[/=]/g, '-').replace(/[^A-Za-z0-9._-]/g, '_')}`;

/** A cell's phases: the run's, and the report written after it (the rest of the cell's time). */
function cellPhases(timings: RunTimings, durationS: number): CellPhases {
  const report = Math.max(0, Math.round((durationS - timings.totalS) * 100) / 100);
  return { ...timings.phases, report };
}

/** Why a run was not as configured when that is only the machine's stalls of its holders (runner/machine-stalls.ts). */
function machineStalledOnly(conditions: readonly RunCondition[]): string | undefined {
  if (conditions.length === 0 || conditions.some((c) => c.kind !== 'machine-stall')) return undefined;
  return conditions[0]?.message;
}

/** The last run folder under <runs>/<slug>/ (run() names it by its start time). */
function findRunDir(runsDir: string, slug: string): string | undefined {
  const base = join(runsDir, slug);
  if (!existsSync(base)) return undefined;
  const stamps = readdirSync(base).sort();
  const last = stamps[stamps.length - 1];
  return last === undefined ? undefined : join(base, last);
}

/**
 * Runs the cell and judges it; `workloadOver` is called once its workload slot is given
 * back, so that the next cell may start its cluster.
 */
export async function runCell(
  ctx: CellContext,
  { resolved, ...cell }: ResolvedCell,
  workloadOver: () => void,
): Promise<CellResult> {
  const slug = cellSlug(cell);
  const logFile = join(ctx.logsDir, `${slug}.log`);
  const runLog = (line: string) => {
    appendFileSync(logFile, `${line}\n`);
    ctx.runLog?.(cell, line);
  };
  const cellStart = Date.now();
  const durationS = () => (Date.now() - cellStart) / 1000;
  ctx.log(`[${cell.index + 1}] ${cell.id}: starting (expect ${cell.expect})`);
  // Its folder in the campaign's: a name and a store change nothing that was resolved.
  const config = { ...resolved.config, name: slug, storeDir: ctx.runsDir };
  const workloadSlot = async (cellSignal: AbortSignal | undefined) => {
    const giveBack = await ctx.slots.take(cellSignal);
    return () => {
      giveBack();
      workloadOver();
    };
  };
  const { explore } = cell;
  if (explore) {
    // Each try takes a slot for its workload as a run does; the cell's is over once all are.
    const slotPerTry = async (s: AbortSignal | undefined) => ctx.slots.take(s);
    try {
      return await exploreCell(
        { runsDir: ctx.runsDir, signal: ctx.signal, workloadSlot: slotPerTry, runLog },
        { ...cell, explore },
        resolved.config,
        slug,
      );
    } finally {
      workloadOver();
    }
  }
  let result: CellResult;
  try {
    // Each run's lines go to its log file; live progress would interleave across runs.
    const once = () =>
      runAndReport(
        { ...resolved, config },
        {
          log: runLog,
          progress: false,
          signal: ctx.signal,
          buildImage: false,
          latest: ctx.latest,
          workloadSlot,
        },
      );
    let r = await once();
    // Not run as configured only because the machine stalled a holder (the harness's
    // overlap, not the lock's): run once more, and say so in the cell's message.
    const stalled = machineStalledOnly(r.conditions);
    if (stalled && !ctx.signal.aborted) {
      ctx.log(`[${cell.index + 1}] ${cell.id}: ${stalled}: running it once more`);
      runLog(`${stalled}: running it once more`);
      r = await once();
    }
    const outcome = judge(
      cell.expect,
      { valid: r.valid, results: r.results, aborted: ctx.signal.aborted, conditions: r.conditions },
      cell.availability,
    );
    result = {
      cell,
      ...outcome,
      ...(stalled ? { message: `${outcome.message} (run twice: the first ${stalled})` } : {}),
      durationS: durationS(),
      phases: cellPhases(r.timings, durationS()),
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
    const runDir = findRunDir(ctx.runsDir, slug);
    result = { cell, ...judge(cell.expect, { error: message, aborted: ctx.signal.aborted }), durationS: durationS() };
    if (runDir) {
      result.dir = runDir;
      result.report = runFile(runDir, 'report');
    }
  }
  // A false alarm (or a regression) comes with its smallest reproducer.
  if (ctx.shrink && cell.expect === 'valid' && result.actual === 'invalid' && result.dir) {
    ctx.log(`[${cell.index + 1}] ${cell.id}: expected valid, was invalid: shrinking`);
    try {
      const shrunk = await shrinkRun(result.dir, { maxRuns: 30, log: runLog, signal: ctx.signal });
      result.shrink = shrunk.page;
    } catch (err) {
      runLog(`shrink failed: ${errorMessage(err)}`);
    }
  }
  return result;
}
