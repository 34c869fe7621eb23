/**
 * A new campaign's folder (<store>/campaigns/<name>/<timestamp>[-shard-i-of-n]/, laid out
 * in campaign-folder.ts): made before its first cell, with the campaign as validated, the
 * file it came from, and the `latest` link beside it.
 */
import { copyFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CAMPAIGN_FILES, summaryFiles } from '../campaign-data/campaign-folder.js';
import { DEFAULTS } from '../run-data/config.js';
import { pointLatest } from '../run-data/run-folder.js';
import { makeDirs } from '../util/make-dirs.js';
import { stamped } from '../version.js';
import { campaignRecord } from './spec.js';
import type { CampaignPlan } from './validate.js';

const stamp = () => new Date().toISOString().replace(/:/g, '-');

/** The campaign's folder, made: the campaign as validated (and its file, copied), the latest link. */
export function openCampaignFolder(plan: CampaignPlan, options: { store?: string; latest?: boolean }) {
  const { spec, shard } = plan;
  const parent = join(options.store ?? DEFAULTS.storeDir, 'campaigns', spec.name);
  const shardSuffix = shard ? `-shard-${shard.index}-of-${shard.count}` : '';
  const dir = join(parent, `${stamp()}${shardSuffix}`);
  const runsDir = join(dir, CAMPAIGN_FILES.runs);
  const logsDir = join(dir, CAMPAIGN_FILES.logs);
  makeDirs(runsDir);
  makeDirs(logsDir);
  writeFileSync(join(dir, CAMPAIGN_FILES.spec), `${JSON.stringify(stamped(campaignRecord(spec)), null, 2)}\n`);
  try {
    if (statSync(spec.source).isFile()) copyFileSync(spec.source, join(dir, CAMPAIGN_FILES.yaml));
  } catch {
    // not from a file (a campaign object)
  }
  if (options.latest !== false)
    try {
      pointLatest(parent, dir, `latest${shardSuffix}`);
    } catch {
      // another process on the same store got there first: the link is a convenience
    }
  return { dir, runsDir, logsDir, files: summaryFiles(dir) };
}
