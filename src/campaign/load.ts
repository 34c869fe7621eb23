/**
 * A campaign made ready to expand: its module backends imported first. Validation is
 * synchronous (it expands every cell and checks each as `lockchaos run` would), and a
 * module backend can only be checked once imported, which is asynchronous: so a file's or
 * an object's module paths are loaded here, from the campaign file's folder (an object's:
 * the current folder), before it is validated.
 */
import { dirname, resolve } from 'node:path';
import { isModulePath, loadBackend } from '../backends/index.js';
import { UserError } from '../util/errors.js';
import {
  type CampaignFile,
  type CampaignSpec,
  campaignData,
  fallbackName,
  moduleBackendsOf,
  readCampaignFile,
} from './spec.js';
import { validateCampaign } from './validate.js';

/** Imports the module backends a campaign names, from `baseDir`; one that cannot load is one line naming the campaign. */
export async function loadCampaignBackends(data: unknown, baseDir: string, source: string): Promise<void> {
  try {
    await loadModuleBackends(moduleBackendsOf(data), baseDir);
  } catch (err) {
    if (err instanceof UserError) throw new UserError(`${source}: ${err.message}`);
    throw err;
  }
}

/** Imports those of `names` that are module paths (from `baseDir`); built-in names need nothing. */
export async function loadModuleBackends(names: readonly string[], baseDir = process.cwd()): Promise<void> {
  for (const name of names) if (isModulePath(name)) await loadBackend(name, baseDir);
}

/** Reads, parses and validates a campaign file; its module backends are taken from its folder. */
export async function loadCampaign(path: string): Promise<CampaignSpec> {
  const data = campaignData(readCampaignFile(path), path);
  const baseDir = dirname(resolve(path));
  await loadCampaignBackends(data, baseDir, path);
  return validateCampaign(data, path, fallbackName(path), baseDir);
}

/**
 * A campaign object validated (its module backends, from the current folder, loaded); a
 * spec validated before is taken as it is, once its module backends are loaded.
 */
export async function campaignSpecOf(input: CampaignFile | CampaignSpec): Promise<CampaignSpec> {
  const baseDir = 'baseDir' in input && typeof input.baseDir === 'string' ? input.baseDir : process.cwd();
  const source = 'source' in input && typeof input.source === 'string' ? input.source : 'campaign';
  await loadCampaignBackends(input, baseDir, source);
  return 'source' in input && typeof input.source === 'string' ? (input as CampaignSpec) : validateCampaign(input);
}
