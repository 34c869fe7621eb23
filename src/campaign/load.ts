/**
 * The way into a campaign: load (a file read and parsed, or an object taken as it is),
 * its module backends imported (module-backends.ts, from the campaign file's folder; an
 * object's: the current folder), then validated with every cell resolved once
 * (validate.ts): the plan that run.ts runs. A dry run imports none: a campaign file is code
 * (its module backends run as they are imported; a run also runs its client commands and
 * builds its Dockerfiles), and a dry run is how one looks at a file before trusting it.
 */
import { dirname, resolve } from 'node:path';
import { UserError } from '../util/errors.js';
import type { CellOptions } from './matrix.js';
import { backendNamesOf, loadModuleBackends } from './module-backends.js';
import { type CampaignFile, campaignData, fallbackName, readCampaignFile } from './spec.js';
import { type CampaignPlan, type CampaignSource, type DryRunPlan, planCampaign, planDryRun } from './validate.js';

/**
 * A campaign as given, read: a file's path (read, parsed, its paths from its folder), or a
 * campaign object, named `source` in messages (its paths from the current folder).
 */
export function campaignSource(input: string | CampaignFile, source = 'campaign'): CampaignSource {
  if (typeof input !== 'string') return { data: input, source };
  const name = fallbackName(input);
  const data = campaignData(readCampaignFile(input), input);
  return { data, source: input, fallbackName: name, baseDir: dirname(resolve(input)) };
}

/**
 * A campaign's plan for these options, its module backends imported first; `source`
 * names a campaign object in messages (a file is named by its path).
 */
export async function loadCampaign(
  input: string | CampaignFile,
  options: CellOptions = {},
  source = 'campaign',
): Promise<CampaignPlan> {
  const given = campaignSource(input, source);
  const modules = backendNamesOf(given.data);
  try {
    await loadModuleBackends(modules, given.baseDir);
  } catch (err) {
    // One that cannot load is one line naming the campaign.
    if (err instanceof UserError) throw new UserError(`${given.source}: ${err.message}`);
    throw err;
  }
  return planCampaign(given, options);
}

/**
 * A campaign file's plan for these options, without running any of it (`campaign
 * --dry-run`): no module is imported; a module backend's file must exist, and what only
 * the module could say is left unchecked, its paths in `unchecked`.
 */
export function readCampaignPlan(path: string, options: CellOptions = {}): DryRunPlan {
  return planDryRun(campaignSource(path), options);
}
