/**
 * A campaign folder's layout (<store>/campaigns/<name>/<timestamp>/), in one place: what
 * the campaign writes, what a sweep and a bench add beside it, and what merge and serve
 * read back (summary.json: only through read-summary.ts). Each cell's run folder is
 * under runs/ (its own layout: run-data/run-folder.ts).
 */
import { join } from 'node:path';

export const CAMPAIGN_FILES = {
  /** The campaign as it ran (stamped with the lockchaos version). */
  spec: 'campaign.json',
  /** The campaign file it ran from, copied. */
  yaml: 'campaign.yaml',
  summaryJson: 'summary.json',
  summaryHtml: 'summary.html',
  junit: 'junit.xml',
  /** Each cell's run folder. */
  runs: 'runs',
  /** Each cell's progress lines. */
  logs: 'logs',
  /** A sweep's result and page, beside the campaign it ran. */
  sweepJson: 'sweep.json',
  sweepHtml: 'sweep.html',
  /** A lock benchmark's result and page, beside the campaign it ran. */
  benchJson: 'bench.json',
  benchHtml: 'bench.html',
} as const;

/** The summary files every campaign folder holds (a merge's too), by their paths under `dir`. */
export const summaryFiles = (dir: string) => ({
  summaryHtml: join(dir, CAMPAIGN_FILES.summaryHtml),
  summaryJson: join(dir, CAMPAIGN_FILES.summaryJson),
  junit: join(dir, CAMPAIGN_FILES.junit),
});
