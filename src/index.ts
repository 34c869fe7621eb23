/**
 * lockchaos as a library: run one test, check a history, run a campaign. The CLI is a thin
 * layer over these.
 *
 *     import { run, check, campaign } from 'lockchaos';
 *
 *     const r = await run({ ...DEFAULTS, name: '', backend: 'redlock', nemesis: 'client-pause', seed: 7 });
 *     r.valid;                                   // true | false | 'unknown'
 *     check(r.history, 'mutex', { only: ['acquire', 'release'] }).valid; // against a model
 *     const c = await campaign('examples/nightly.yaml', { shard: { index: 1, count: 4 } });
 *     c.met;                                     // every cell met its expectation
 *
 * Only checking stored histories? `import { check } from 'lockchaos/check'` loads far less.
 */

export { checkPerf, type PerfDetails } from '../checkers/perf.js';
export { checkRun } from '../workloads/checks.js';
export { WORKLOADS } from '../workloads/index.js';
// Building blocks for a backend of your own (docs/adding-a-backend.md).
export {
  type AcquireOptions,
  BACKOFF,
  type BackendCapabilities,
  type BackendOption,
  type BackendOptions,
  backoffMs,
  type ClientOptions,
  DefiniteFailure,
  type Grant,
  type LockClient,
  type NodeAddress,
  type NotReleased,
  type ReleaseResult,
  releaseFailure,
  type ShiftTtls,
  wholeNumber,
} from './backends/backend.js';
// Registries and errors.
export { BACKENDS, type Backend, loadBackend } from './backends/index.js';
export { DATA_DIR, startWithData, waitForTcp, waitUntilReady } from './backends/node-start.js';
export {
  classifyRedisError,
  REDIS_CLOCK,
  REDIS_PORT,
  REDIS_SERVER_TIME,
  redisClient,
  redisNodeSpec,
  shiftRedisTtls,
  waitForRedis,
} from './backends/redis-node.js';
// How likely, and at what cost: the violation sweep, the lock benchmark, their statistics.
export { BENCH_DEFAULTS, type BenchSpec } from './bench/grid.js';
export type { BenchReport } from './bench/html.js';
export type { BenchResult } from './bench/measure.js';
export { type BenchOutcome, bench } from './bench/run.js';
// Campaigns.
export {
  type Actual,
  type CampaignFile,
  type CampaignHooks,
  type CampaignOptions,
  type CampaignPlan,
  type CampaignResult,
  type CampaignRunOptions,
  type CampaignSource,
  type CampaignSpec,
  type CampaignSummary,
  type Cell,
  type CellOptions,
  type CellResult,
  campaign,
  campaignSource,
  type Expectation,
  expandCells,
  loadCampaign,
  type MatrixEntryFile,
  parseShard,
  planCampaign,
  type ResolvedCell,
  type RunOptionsFile,
  readCampaignPlan,
  runCampaign,
  type Shard,
  shardCells,
} from './campaign/index.js';
// Checking histories offline: also its own entry, 'lockchaos/check', which loads none of the
// Docker and client libraries that this one does.
export * from './check.js';
export { loadReplayConfig } from './cli/run.js';
export type { NodeHandle, NodeSpec, PeerNames } from './cluster/cluster.js';
export { NODE_IMAGE, POSTGRES_IMAGE } from './cluster/docker-engine.js';
// One run: configuration, the runner (with its progress and report.html), its per-run checkers.
export { type ReportedRunHooks as RunHooks, runAndReport as run } from './reported-run/reported-run.js';
export { DEFAULTS, type TestConfig } from './run-data/config.js';
export { prepareRun } from './run-data/prepare.js';
export { type ResolvedRun, resolveRun, testName, validateConfig } from './run-data/resolve.js';
export type { RunResult } from './runner/run.js';
export { SCENARIOS, type Scenario } from './scenarios/index.js';
export * from './stats/index.js';
export type { PointResult } from './sweep/analyse.js';
export { SWEEP_DEFAULTS, type SweepSpec } from './sweep/grid.js';
export type { SweepResult } from './sweep/html.js';
export { type SweepOutcome, sweep } from './sweep/run.js';
