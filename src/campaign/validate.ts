/**
 * A campaign validated whole: its shape (spec.ts), then its matrix expanded (matrix.ts), so
 * that every cell is known to be runnable. The cells that check made are kept beside the
 * spec, as its plan, so that running the campaign expands it no more (every cell is
 * resolved in the expansion: at thousands of cells that is worth doing once). A problem is
 * one UserError line, "SOURCE: PATH: problem".
 */
import { UserError } from '../util/errors.js';
import { type Cell, type ExpandOptions, expandCells } from './matrix.js';
import { SchemaError } from './schema.js';
import { type CampaignSpec, campaignData, campaignShape, fallbackName } from './spec.js';

/** A campaign validated, with every cell it expands to (all shards', in order). */
export interface CampaignPlan {
  spec: CampaignSpec;
  cells: Cell[];
}

/** Validates a campaign given as data (parsed YAML, or an object from library code), and expands it. */
export function planCampaign(
  raw: unknown,
  source = 'campaign',
  fallback?: string,
  baseDir?: string,
  expand?: ExpandOptions,
): CampaignPlan {
  try {
    const spec = campaignShape(raw, source, fallback, baseDir);
    return { spec, cells: expandCells(spec, expand) };
  } catch (err) {
    if (err instanceof SchemaError) throw new UserError(`${source}: ${err.message}`);
    throw err;
  }
}

/** Validates a campaign given as data; its spec alone (planCampaign keeps its cells too). */
export function validateCampaign(raw: unknown, source = 'campaign', fallback?: string, baseDir?: string): CampaignSpec {
  return planCampaign(raw, source, fallback, baseDir).spec;
}

/** Parses and validates campaign YAML; `source` names it in messages. */
export function parseCampaign(text: string, source = 'campaign.yaml', baseDir?: string): CampaignSpec {
  return validateCampaign(campaignData(text, source), source, fallbackName(source), baseDir);
}
