/**
 * Running a sweep: its campaign (every point's trials, in parallel and shards as a
 * campaign runs), then each finished run measured from its folder, each point analysed,
 * and sweep.json and sweep.html written into the campaign's folder beside summary.html.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCampaign } from '../campaign/load.js';
import { type CampaignHooks, type CampaignOptions, type CampaignResult, runCampaign } from '../campaign/run.js';
import { CAMPAIGN_FILES } from '../campaign-data/campaign-folder.js';
import type { CellResult } from '../campaign-data/summary-record.js';
import { loadRun } from '../run-data/run-folder.js';
import { textTable } from '../util/text-table.js';
import { analysePoint } from './analyse.js';
import { pointLabel, type SweepSpec, sweepCampaign, sweepPoints } from './grid.js';
import { type SweepResult, sweepHtml, sweepJson } from './html.js';
import { measureRun, type RunMeasure } from './measure.js';

export interface SweepOutcome {
  result: SweepResult;
  campaign: CampaignResult;
  files: { sweepJson: string; sweepHtml: string };
}

/** The runs of a cell that gave a verdict; errors and interruptions measure nothing. */
function measured(r: CellResult): RunMeasure | undefined {
  if (!r.dir || (r.actual !== 'valid' && r.actual !== 'invalid' && r.actual !== 'unknown')) return undefined;
  return measureRun(loadRun(r.dir));
}

export async function sweep(
  spec: SweepSpec,
  options: CampaignOptions = {},
  hooks: CampaignHooks = {},
): Promise<SweepOutcome> {
  // A module backend, from the current folder.
  const plan = await loadCampaign(sweepCampaign(spec), options, 'sweep');
  const startedAt = new Date().toISOString();
  const c = await runCampaign(plan, options, hooks);
  const points = sweepPoints(spec);
  const byEntry = points.map(() => [] as RunMeasure[]);
  for (const r of c.cells) {
    const m = measured(r);
    if (m) byEntry[r.cell.entry]?.push(m);
  }
  const result: SweepResult = {
    spec,
    dir: c.dir,
    startedAt,
    finishedAt: new Date().toISOString(),
    points: points.map((p, i) => analysePoint(p, pointLabel(p), byEntry[i] ?? [])),
  };
  const files = {
    sweepJson: join(c.dir, CAMPAIGN_FILES.sweepJson),
    sweepHtml: join(c.dir, CAMPAIGN_FILES.sweepHtml),
  };
  writeFileSync(files.sweepJson, sweepJson(result));
  writeFileSync(files.sweepHtml, sweepHtml(result));
  return { result, campaign: c, files };
}

/** The terminal table: one line a point. */
export function sweepTable(r: SweepResult): string {
  const head = [
    'pause/TTL',
    'TTL',
    'clients',
    'two holders',
    'exact 95%',
    'formula',
    'invalid',
    'data viol.',
    'pauses>lease',
  ];
  const rows = r.points.map((p) => [
    String(p.pauseTtl),
    String(p.ttlMs),
    String(p.concurrency),
    `${p.observed.k}/${p.observed.n}`,
    p.observed.clopperPearson
      ? `${p.observed.clopperPearson.low.toFixed(2)}-${p.observed.clopperPearson.high.toFixed(2)}`
      : '-',
    p.predicted ? p.predicted.p.toFixed(2) : '-',
    String(p.runsInvalid),
    String(p.runsDataViolation),
    `${p.pauses.k}/${p.pauses.n}${p.disagree ? '  disagree' : ''}`,
  ]);
  return textTable(head, rows);
}
