/**
 * What a campaign's cells add up to: the totals, each configuration over its seeds, the
 * code points faults were aimed at, and the cells that have not run. summary.json carries
 * them (write-summary.ts), its reader hands them on (read-summary.ts), and every page
 * shows these numbers, not numbers of its own.
 */
import type { CellName } from './cell.js';
import { markOf } from './mark.js';
import type {
  CampaignSummary,
  CellResult,
  ConfigurationTally,
  PointTally,
  SummaryRecord,
  SummaryTallies,
  Totals,
} from './summary-record.js';

export type { ConfigurationTally, PointTally, Totals } from './summary-record.js';

/** A cell the campaign's interruption left without a verdict (cut short, or never started). */
export const interrupted = (r: CellResult) => r.actual === 'aborted' || r.actual === 'not-run';

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

/** A summary's tallies as its record carries them (read-summary.ts, the pages): one rule for all. */
export function summaryTallies(s: CampaignSummary): SummaryTallies {
  return {
    totals: counts(s),
    configurations: byConfiguration(s).map((t) => ({ ...t, mark: markOf(t.met, t.ran) })),
    points: pointsByConfiguration(s),
    notRun: cellsNotRun(s),
  };
}

const isRecord = (s: CampaignSummary | SummaryRecord): s is SummaryRecord => 'totals' in s && 'notRun' in s;

/**
 * What a page shows of a summary's tallies: a record's own, as its reader made them; a
 * summary in memory (a campaign running, a merge) tallied once here.
 */
export const talliesOf = (s: CampaignSummary | SummaryRecord): SummaryTallies => (isRecord(s) ? s : summaryTallies(s));
