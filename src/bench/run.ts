/**
 * Running a benchmark: its campaign (one run a point), then each run measured from its
 * folder, and bench.json and bench.html written into the campaign's folder.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCampaign } from '../campaign/load.js';
import { type CampaignHooks, type CampaignOptions, type CampaignResult, runCampaign } from '../campaign/run.js';
import { CAMPAIGN_FILES } from '../campaign-data/campaign-folder.js';
import { loadRun } from '../run-data/run-folder.js';
import { type BenchSpec, benchCampaign, benchPoints } from './grid.js';
import { type BenchReport, benchHtml, benchJson } from './html.js';
import { type BenchResult, measureBench } from './measure.js';

export interface BenchOutcome {
  report: BenchReport;
  campaign: CampaignResult;
  files: { benchJson: string; benchHtml: string };
}

export async function bench(
  spec: BenchSpec,
  options: CampaignOptions = {},
  hooks: CampaignHooks = {},
): Promise<BenchOutcome> {
  const t0 = Date.now();
  const startedAt = new Date().toISOString();
  // Module backends, from the current folder.
  const plan = await loadCampaign(benchCampaign(spec), options, 'bench');
  const c = await runCampaign(plan, options, hooks);
  const points = benchPoints(spec);
  const results: BenchResult[] = [];
  for (const r of c.cells) {
    const point = points[r.cell.entry];
    if (!point || !r.dir || (r.actual !== 'valid' && r.actual !== 'invalid' && r.actual !== 'unknown')) continue;
    results.push(measureBench(point, loadRun(r.dir)));
  }
  const report: BenchReport = {
    spec,
    dir: c.dir,
    startedAt,
    finishedAt: new Date().toISOString(),
    durationS: (Date.now() - t0) / 1000,
    points: results,
  };
  const files = {
    benchJson: join(c.dir, CAMPAIGN_FILES.benchJson),
    benchHtml: join(c.dir, CAMPAIGN_FILES.benchHtml),
  };
  writeFileSync(files.benchJson, benchJson(report));
  writeFileSync(files.benchHtml, benchHtml(report));
  return { report, campaign: c, files };
}
