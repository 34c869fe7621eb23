/**
 * The one writer of summary.json (summary-record.ts): read-summary.ts reads back what it
 * writes, and a file written by an older build as well.
 */
import { relative } from 'node:path';
import { version } from '../version.js';
import { type CampaignSummary, SUMMARY_SCHEMA } from './summary-record.js';
import { talliesOf } from './tallies.js';

/**
 * summary.json's text: what wrote it and its schema first, the campaign and its state,
 * its tallies (tallies.ts), then its cells, with paths relative to the campaign folder so
 * that the folder can move. The one writer of the file (the campaign's record, a merge).
 */
export function summaryJson(s: CampaignSummary): string {
  const rel = (p: string | undefined) => (p === undefined ? undefined : relative(s.dir, p));
  const t = talliesOf(s);
  const out = {
    lockchaos: version,
    schema: SUMMARY_SCHEMA,
    name: s.name,
    description: s.description,
    source: s.source,
    shard: s.shard ?? null,
    totalCells: s.totalCells,
    startedAt: s.startedAt,
    finishedAt: s.finishedAt,
    interrupted: s.interrupted,
    state: s.state,
    ...(s.cutShortBy !== undefined ? { cutShortBy: s.cutShortBy } : {}),
    ...(s.failedBy !== undefined ? { failedBy: s.failedBy } : {}),
    ...(s.updatedAt !== undefined ? { updatedAt: s.updatedAt } : {}),
    ...(s.progress !== undefined ? { progress: s.progress } : {}),
    ...(s.runner !== undefined ? { runner: s.runner } : {}),
    met: s.met,
    notRun: t.notRun,
    ...(s.missing !== undefined ? { missing: s.missing } : {}),
    ...(s.mergedShards !== undefined ? { mergedShards: s.mergedShards } : {}),
    ...(s.missingCells !== undefined ? { missingCells: s.missingCells } : {}),
    totals: t.totals,
    // Marks are the reader's (mark.ts), from these numbers: the file keeps the numbers.
    configurations: t.configurations.map(({ mark: _, ...tally }) => tally),
    points: t.points,
    cells: s.cells.map((r) => ({
      index: r.cell.index,
      entry: r.cell.entry,
      id: r.cell.id,
      backend: r.cell.backend,
      workload: r.cell.workload,
      nemesis: r.cell.nemesis,
      scenario: r.cell.scenario,
      fencing: r.cell.fencing,
      seed: r.cell.seed,
      expect: r.cell.expect,
      availability: r.cell.availability,
      ...(r.cell.explore !== undefined ? { explore: r.cell.explore } : {}),
      actual: r.actual,
      met: r.met,
      message: r.message,
      ...(r.headline !== undefined ? { headline: r.headline } : {}),
      durationS: Math.round(r.durationS * 1000) / 1000,
      dir: rel(r.dir),
      report: rel(r.report),
      ...(r.stoppedEarlyS !== undefined ? { stoppedEarlyS: r.stoppedEarlyS } : {}),
      ...(r.stoppedEarlyWhy !== undefined ? { stoppedEarlyWhy: r.stoppedEarlyWhy } : {}),
      ...(r.phases !== undefined ? { phases: r.phases } : {}),
      ...(r.coverage !== undefined ? { coverage: r.coverage } : {}),
      ...(r.shrink !== undefined ? { shrink: rel(r.shrink) } : {}),
      ...(r.exploration !== undefined ? { exploration: { ...r.exploration, file: rel(r.exploration.file) } } : {}),
      checkers: r.checkers,
      config: r.cell.config,
    })),
    ...(s.planned !== undefined ? { planned: s.planned } : {}),
    ...(s.allCells !== undefined ? { allCells: s.allCells } : {}),
  };
  return `${JSON.stringify(out, null, 2)}\n`;
}
