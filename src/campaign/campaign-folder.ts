/**
 * A campaign folder's layout (<store>/campaigns/<name>/<timestamp>/), in one place: what
 * the campaign writes, what a sweep and a bench add beside it, and what merge and serve
 * read back. Each cell's run folder is under runs/ (its own layout: run-data/run-folder.ts).
 */
import { join } from 'node:path';
import { MiB, readRegularFile } from '../util/regular-file.js';

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

/**
 * The most of a summary.json that is read (merge, a store's nights, serve): a campaign of
 * MAX_CELLS cells writes a few MiB. A larger one (or a device, a FIFO) was not written by
 * a campaign, and reading it whole cost a reader gigabytes.
 */
export const MAX_SUMMARY_JSON_BYTES = 32 * MiB;

/** A summary.json's text, a regular file within MAX_SUMMARY_JSON_BYTES, else a UserError naming it. */
export const readSummaryText = (path: string): string =>
  readRegularFile(path, 'campaign summary', {
    maxBytes: MAX_SUMMARY_JSON_BYTES,
    fix: 'not a summary.json lockchaos campaign writes: give the folders lockchaos wrote',
  }).toString('utf8');
