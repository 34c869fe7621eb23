/**
 * --summary-md FILE and --previous DIR (campaign, campaign merge): the campaign in
 * Markdown for a CI run's own page. Under GitHub Actions it goes to the job summary
 * ($GITHUB_STEP_SUMMARY) with no flag, and its report links point at the run's artifacts.
 */
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { summaryMarkdown } from '../campaign/summary-md.js';
import { CAMPAIGN_FILES } from '../campaign-data/campaign-folder.js';
import { previousNight } from '../campaign-data/nights.js';
import { readSummary } from '../campaign-data/read-summary.js';
import type { CampaignSummary } from '../campaign-data/summary-record.js';
import { UserError } from '../util/errors.js';

export const JOB_SUMMARY_FLAGS = {
  'summary-md': { type: 'string' },
  previous: { type: 'string' },
} as const;

export const JOB_SUMMARY_HELP = `  --summary-md FILE  write the result in Markdown to FILE: the tally, the configurations that
                     did not meet their expectation with their headline and report, the
                     flips since --previous, the cells that never ran. Under GitHub Actions it
                     is also appended to the job summary ($GITHUB_STEP_SUMMARY) with no flag
  --previous DIR     the night to compare with: its campaign folder, or a store (its newest
                     earlier night of this campaign); the Markdown summary and
                     summary.html name what flipped`;

type Values = Record<string, string | boolean | undefined>;

/** The campaign --previous names: a campaign folder, or a store holding earlier nights of it. */
export function previousOf(
  given: string,
  summary: Pick<CampaignSummary, 'name' | 'startedAt'>,
): CampaignSummary | undefined {
  if (existsSync(join(given, CAMPAIGN_FILES.summaryJson))) return readSummary(given);
  if (existsSync(join(given, 'campaigns'))) {
    const dir = previousNight(given, summary.name, summary.startedAt.slice(0, 10));
    return dir === undefined ? undefined : readSummary(dir);
  }
  throw new UserError(
    `--previous: ${given} is neither a campaign folder (no summary.json) nor a store (no campaigns/): give the previous night's campaign folder or the store`,
  );
}

/** Writes the Markdown where it is asked for; returns the files written. */
export function writeJobSummary(
  summary: CampaignSummary,
  values: Values,
  options: { previous?: CampaignSummary; artifactRoot?: string; env?: NodeJS.ProcessEnv } = {},
): string[] {
  const env = options.env ?? process.env;
  const asked = values['summary-md'] as string | undefined;
  const step = env.GITHUB_ACTIONS === 'true' ? env.GITHUB_STEP_SUMMARY : undefined;
  if (asked === undefined && !step) return [];
  const previous =
    options.previous ?? (values.previous === undefined ? undefined : previousOf(values.previous as string, summary));
  const runUrl =
    env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY && env.GITHUB_RUN_ID
      ? `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}#artifacts`
      : undefined;
  const written: string[] = [];
  const text = (file: string) =>
    summaryMarkdown(summary, {
      ...(previous ? { previous } : {}),
      ...(options.artifactRoot ? { artifactRoot: options.artifactRoot } : {}),
      ...(step && runUrl ? { artifactUrl: runUrl } : {}),
      fileDir: dirname(resolve(file)),
    });
  if (asked !== undefined && resolve(asked) !== (step && resolve(step))) {
    writeFileSync(asked, text(asked));
    written.push(asked);
  }
  // The job summary is one file per step that each write adds to.
  if (step) {
    appendFileSync(step, text(step));
    written.push(step);
  }
  return written;
}
