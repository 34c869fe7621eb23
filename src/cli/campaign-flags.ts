/**
 * The flags of commands that run a campaign (campaign, sweep, bench): how many runs at
 * once, which shard, where, and how verbose.
 */
import type { Shard } from '../campaign/matrix.js';
import { parseShard } from '../campaign/matrix.js';
import type { CampaignHooks, CampaignOptions } from '../campaign/run.js';
import { DEFAULTS } from '../run-data/config.js';
import { PARAMETERS } from '../run-data/parameters.js';
import { withinBounds } from '../run-data/resolve.js';
import { stamped } from '../version.js';
import { positiveNumber } from './args.js';

export const CAMPAIGN_RUN_FLAGS = {
  parallel: { type: 'string' },
  shard: { type: 'string' },
  store: { type: 'string' },
  'no-build': { type: 'boolean' },
  'no-latest': { type: 'boolean' },
  verbose: { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

/** --json: one object on stdout, in one line, with the lockchaos version first (stamped). */
export function printJson(data: object): void {
  console.log(JSON.stringify(stamped(data)));
}

export type Values = Record<string, string | boolean | undefined>;

export function campaignOptionsOf(values: Values): CampaignOptions & { shard?: Shard; parallel: number } {
  const s = (k: string) => values[k] as string | undefined;
  const options: CampaignOptions & { parallel: number } = {
    parallel: s('parallel') === undefined ? 1 : positiveNumber('parallel', s('parallel') as string, true),
    store: s('store') ?? DEFAULTS.storeDir,
    buildImage: !values['no-build'],
    latest: !values['no-latest'],
  };
  if (s('shard') !== undefined) options.shard = parseShard(s('shard') as string);
  return options;
}

/** Progress lines on stderr; each run's own lines too with --verbose. */
export function campaignHooksOf(values: Values, signal: AbortSignal): CampaignHooks {
  return {
    signal,
    log: (line) => console.error(line),
    runLog: values.verbose ? (cell, line) => console.error(`  [${cell.index + 1}] ${line}`) : undefined,
  };
}

/**
 * --time-limit of each run, bounded as `run` bounds it, before any run starts: past a day,
 * a dry run passed and then every cell failed, one by one.
 */
export function runTimeLimit(text: string): number {
  const seconds = positiveNumber('time-limit', text, false);
  withinBounds('time-limit', seconds, PARAMETERS.timeLimitS.bounds);
  return seconds;
}
