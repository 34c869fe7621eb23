/** Campaigns planned as the CLI plans them, for tests that want a spec or its cells. */
import { campaignSource } from '../../src/campaign/load.js';
import type { CampaignFile, CampaignSpec } from '../../src/campaign/spec.js';
import { campaignData, fallbackName } from '../../src/campaign/spec.js';
import { type CampaignPlan, planCampaign } from '../../src/campaign/validate.js';

/** A campaign object validated, its cells resolved; `source` names it in messages. */
export const planOf = (file: CampaignFile, source?: string): CampaignPlan => planCampaign(campaignSource(file, source));

/** A campaign object's spec, validated whole. */
export const specOf = (file: CampaignFile, source?: string): CampaignSpec => planOf(file, source).spec;

/** Campaign YAML's spec, validated whole as a file of that name would be; paths from `baseDir`. */
export function specOfYaml(text: string, source = 'campaign.yaml', baseDir?: string): CampaignSpec {
  const data = campaignData(text, source);
  return planCampaign({ data, source, fallbackName: fallbackName(source), ...(baseDir ? { baseDir } : {}) }).spec;
}
