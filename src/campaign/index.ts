/** Campaigns: a YAML matrix of runs with expected verdicts, for nightly CI. */
export { type Actual, type CellOutcome, judge } from './expect.js';
export { campaignPlanOf, loadCampaign, loadCampaignPlan } from './load.js';
export { type Cell, cellId, expandCells, parseShard, type Shard, shardCells } from './matrix.js';
export {
  type CampaignSummary,
  type CellResult,
  campaignJUnit,
  summaryHtml,
  summaryJson,
  terminalTable,
} from './report.js';
export {
  type CampaignHooks,
  type CampaignOptions,
  type CampaignResult,
  campaign,
  campaignCells,
  cellSlug,
} from './run.js';
export { SchemaError } from './schema.js';
export {
  type CampaignFile,
  type CampaignSpec,
  type CellMatch,
  type CellMatchFile,
  EXPECTATIONS,
  type Expectation,
  type MatrixEntry,
  type MatrixEntryFile,
  type RunOptions,
  type RunOptionsFile,
} from './spec.js';
export { type CampaignPlan, parseCampaign, planCampaign, validateCampaign } from './validate.js';
