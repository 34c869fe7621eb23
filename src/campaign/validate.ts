/**
 * A campaign validated whole: its shape (spec.ts), then its matrix expanded once (matrix.ts),
 * so that every cell is known to be runnable. A problem is one UserError line,
 * "SOURCE: PATH: problem".
 */
import { UserError } from '../util/errors.js';
import { expandCells } from './matrix.js';
import { SchemaError } from './schema.js';
import { type CampaignSpec, campaignData, campaignShape, fallbackName } from './spec.js';

/** Validates a campaign given as data (parsed YAML, or an object from library code). */
export function validateCampaign(raw: unknown, source = 'campaign', fallback?: string, baseDir?: string): CampaignSpec {
  try {
    const spec = campaignShape(raw, source, fallback, baseDir);
    expandCells(spec);
    return spec;
  } catch (err) {
    if (err instanceof SchemaError) throw new UserError(`${source}: ${err.message}`);
    throw err;
  }
}

/** Parses and validates campaign YAML; `source` names it in messages. */
export function parseCampaign(text: string, source = 'campaign.yaml', baseDir?: string): CampaignSpec {
  return validateCampaign(campaignData(text, source), source, fallbackName(source), baseDir);
}
