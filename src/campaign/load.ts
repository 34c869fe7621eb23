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
import { expandCells } from './matrix.js';
import {
  type CampaignFile,
  type CampaignSpec,
  campaignData,
  fallbackName,
  moduleBackendsOf,
  readCampaignFile,
} from './spec.js';
import { type CampaignPlan, planCampaign } from './validate.js';

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

/** Reads, parses and validates a campaign file, and expands it; its module backends are taken from its folder. */
export async function loadCampaignPlan(path: string): Promise<CampaignPlan> {
  const data = campaignData(readCampaignFile(path), path);
  const baseDir = dirname(resolve(path));
  await loadCampaignBackends(data, baseDir, path);
  return planCampaign(data, path, fallbackName(path), baseDir);
}

/**
 * A campaign file read and validated without running any of it (`campaign --dry-run`): a
 * campaign file is code (its module backends run as they are imported; a run also runs
 * its client commands and builds its Dockerfiles), and a dry run is how one looks at a
 * file before trusting it. So no module is imported: a module backend's file must exist,
 * and what only the module could say is left unchecked, its paths in `unchecked`.
 */
export function readCampaignPlan(path: string): CampaignPlan & { unchecked: string[] } {
  const data = campaignData(readCampaignFile(path), path);
  const unchecked = new Set<string>();
  const plan = planCampaign(data, path, fallbackName(path), dirname(resolve(path)), {
    modules: 'unchecked',
    unchecked,
  });
  return { ...plan, unchecked: [...unchecked] };
}

/** Reads, parses and validates a campaign file: its spec (loadCampaignPlan keeps its cells too). */
export async function loadCampaign(path: string): Promise<CampaignSpec> {
  return (await loadCampaignPlan(path)).spec;
}

/**
 * The plan of what campaign() is given: a file's path; a campaign object, validated (its
 * module backends loaded, from the current folder); a spec validated before, taken as it
 * is once its module backends are loaded, and expanded; or a plan, as it is.
 */
export async function campaignPlanOf(
  input: string | CampaignFile | CampaignSpec | CampaignPlan,
): Promise<CampaignPlan> {
  if (typeof input === 'string') return loadCampaignPlan(input);
  if ('cells' in input) return input;
  const spec = 'source' in input && typeof input.source === 'string' ? (input as CampaignSpec) : undefined;
  await loadCampaignBackends(input, spec?.baseDir ?? process.cwd(), spec?.source ?? 'campaign');
  return spec ? { spec, cells: expandCells(spec) } : planCampaign(input);
}
