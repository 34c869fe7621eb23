/**
 * What a campaign's cells add up to: the totals, each configuration over its seeds, the
 * code points faults were aimed at, and the cells that have not run. summary.json carries
 * them (write-summary.ts), its reader hands them on (read-summary.ts), and every page
 * shows these numbers, not numbers of its own.
 */
import type { CellName } from './cell.js';
import type { CampaignSummary, CellResult } from './summary-record.js';

/** A cell the campaign's interruption left without a verdict (cut short, or never started). */
export const interrupted = (r: CellResult) => r.actual === 'aborted' || r.actual === 'not-run';

export interface Totals {
  cells: number;
  met: number;
  mismatched: number;
  errors: number;
  interrupted: number;
}

export function counts(s: Pick<CampaignSummary, 'cells'>): Totals {
  const c = s.cells;
  return {
    cells: c.length,
    met: c.filter((r) => r.met).length,
    mismatched: c.filter((r) => !r.met && (r.actual === 'valid' || r.actual === 'invalid' || r.actual === 'unknown'))
      .length,
    errors: c.filter((r) => r.actual === 'error').length,
    interrupted: c.filter(interrupted).length,
  };
}

/** A cell's configuration: its id without its seed ("redlock/lock-set/client-pause/unfenced"). */
export const configurationOf = (id: string) => id.replace(/\/seed-\d+$/, '');

/** One configuration over its seeds: how many of its runs met the expectation. */
export interface ConfigurationTally {
  /** The cell id without its seed: "redlock/lock-set/client-pause/unfenced". */
  configuration: string;
  expect: string;
  met: number;
  /** Runs that gave a verdict (not interrupted, not run). */
  ran: number;
  seeds: number;
}

/**
 * Cells grouped by configuration, in campaign order: "caught in 9 of 10 seeds" is the
 * number a reader of a nightly campaign wants for each one.
 */
export function byConfiguration(s: Pick<CampaignSummary, 'cells' | 'missingCells'>): ConfigurationTally[] {
  const tallies = new Map<string, ConfigurationTally>();
  const tally = (c: CellName) => {
    const configuration = configurationOf(c.id);
    const t = tallies.get(configuration) ?? { configuration, expect: c.expect ?? '?', met: 0, ran: 0, seeds: 0 };
    t.seeds++;
    tallies.set(configuration, t);
    return t;
  };
  // In campaign order, a merge's missing cells (not run) among the others.
  const results = new Map(s.cells.map((r) => [r.cell.index, r]));
  const all = [...s.cells.map((r) => r.cell), ...(s.missingCells ?? [])].sort((a, b) => a.index - b.index);
  for (const c of all) {
    const t = tally(c);
    const r = results.get(c.index);
    if (r && !interrupted(r)) t.ran++;
    if (r?.met) t.met++;
  }
  return [...tallies.values()];
}

/** A configuration's code point over its seeds: the sums of its runs' rows. */
export interface PointTally {
  configuration: string;
  point: string;
  fault: string;
  reached: number;
  hits: number;
  followed: number;
  /** Runs of the configuration that reported it, and those in which the fault hit at least once. */
  runs: number;
  runsHit: number;
}

/**
 * The code points faults were aimed at, by configuration, summed over its seeds: how often
 * clients reached each, how often the fault hit there (and in how many runs), how many hits
 * a violation followed. A point reached in no run reads as not exercised.
 */
export function pointsByConfiguration(s: Pick<CampaignSummary, 'cells'>): PointTally[] {
  const tallies = new Map<string, PointTally>();
  for (const r of s.cells) {
    const configuration = configurationOf(r.cell.id);
    for (const row of r.coverage ?? []) {
      if (row.fault === undefined) continue;
      const key = `${configuration}\u0000${row.point}\u0000${row.fault}`;
      const t = tallies.get(key) ?? {
        configuration,
        point: row.point,
        fault: row.fault,
        reached: 0,
        hits: 0,
        followed: 0,
        runs: 0,
        runsHit: 0,
      };
      t.reached += row.reached ?? 0;
      t.hits += row.hits;
      t.followed += row.followed;
      t.runs += 1;
      if (row.hits > 0) t.runsHit += 1;
      tallies.set(key, t);
    }
  }
  return [...tallies.values()];
}

/**
 * The cells that have not run: written as not-run when the campaign ended, or planned and
 * absent (a runner killed, or one still running).
 */
export function cellsNotRun(s: Pick<CampaignSummary, 'cells' | 'planned'>): CellName[] {
  if (s.planned) {
    const ran = new Set(s.cells.filter((r) => r.actual !== 'not-run').map((r) => r.cell.index));
    return s.planned.filter((c) => !ran.has(c.index));
  }
  return s.cells
    .filter((r) => r.actual === 'not-run')
    .map((r) => ({ index: r.cell.index, id: r.cell.id, expect: r.cell.expect }));
}
