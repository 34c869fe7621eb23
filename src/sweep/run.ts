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
import { analyseDriftPoint } from './drift-analyse.js';
import { driftAim, driftPointLabel, driftPoints } from './drift-grid.js';
import { type DriftSweepResult, driftSweepHtml, driftSweepTable } from './drift-html.js';
import { type DriftRunMeasure, measureDriftRun } from './drift-measure.js';
import { pointLabel, type SweepSpec, sweepCampaign, sweepPoints } from './grid.js';
import { type SweepResult, sweepHtml, sweepJson } from './html.js';
import { measureRun, type RunMeasure } from './measure.js';

export interface SweepOutcome {
  /** A pause sweep's result, or a drift sweep's (`drift` in its spec). */
  result: SweepResult | DriftSweepResult;
  /** The terminal table. */
  table: string;
  campaign: CampaignResult;
  files: { sweepJson: string; sweepHtml: string };
}

/** A cell's run gave a verdict: errors and interruptions measure nothing. */
const gaveVerdict = (r: CellResult) =>
  r.dir !== undefined && (r.actual === 'valid' || r.actual === 'invalid' || r.actual === 'unknown');

/** The runs of a cell that gave a verdict. */
function measured(r: CellResult): RunMeasure | undefined {
  return r.dir && gaveVerdict(r) ? measureRun(loadRun(r.dir)) : undefined;
}

/** Each drift point's runs, measured and analysed against the model. */
function driftResult(spec: SweepSpec, drift: number[], c: CampaignResult, startedAt: string): DriftSweepResult {
  const aim = driftAim(spec.backend);
  const points = driftPoints({ ...spec, drift });
  const byEntry = points.map(() => [] as DriftRunMeasure[]);
  for (const r of c.cells) if (r.dir && gaveVerdict(r)) byEntry[r.cell.entry]?.push(measureDriftRun(loadRun(r.dir)));
  return {
    spec,
    dir: c.dir,
    startedAt,
    finishedAt: new Date().toISOString(),
    points: points.map((p, i) =>
      analyseDriftPoint(p, driftPointLabel(p), aim.lease(p.ttlMs), spec.holdMs, byEntry[i] ?? []),
    ),
  };
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
  const files = {
    sweepJson: join(c.dir, CAMPAIGN_FILES.sweepJson),
    sweepHtml: join(c.dir, CAMPAIGN_FILES.sweepHtml),
  };
  if (spec.drift) {
    const result = driftResult(spec, spec.drift, c, startedAt);
    writeFileSync(files.sweepJson, sweepJson(result));
    writeFileSync(files.sweepHtml, driftSweepHtml(result));
    return { result, table: driftSweepTable(result), campaign: c, files };
  }
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
  writeFileSync(files.sweepJson, sweepJson(result));
  writeFileSync(files.sweepHtml, sweepHtml(result));
  return { result, table: sweepTable(result), campaign: c, files };
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
