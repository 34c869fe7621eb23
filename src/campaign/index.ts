/** Campaigns: a YAML matrix of runs with expected verdicts, for nightly CI. */

export type { CampaignSummary, CellResult } from '../campaign-data/summary-record.js';
export { summaryJson } from '../campaign-data/write-summary.js';
export { type Actual, type CellOutcome, judge } from './expect.js';
export { campaignSource, loadCampaign, readCampaignPlan } from './load.js';
export {
  type Cell,
  type CellOptions,
  cellId,
  expandCells,
  parseShard,
  type ResolvedCell,
  type Shard,
  shardCells,
} from './matrix.js';
export { campaignJUnit, summaryHtml, terminalTable } from './report.js';
export {
  type CampaignHooks,
  type CampaignOptions,
  type CampaignResult,
  type CampaignRunOptions,
  campaign,
  cellSlug,
  runCampaign,
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
export { type CampaignPlan, type CampaignSource, type DryRunPlan, planCampaign, planDryRun } from './validate.js';
