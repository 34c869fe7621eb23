/**
 * A campaign folder's summary.json, as one record: what the campaign (and a merge) writes
 * with write-summary.ts, and what every reader gets back from read-summary.ts (merge, serve,
 * the job summary, nights, flips), its paths made absolute and its tallies with it, so that
 * no page works them out again. A file written before a field was reads without it.
 */
import type { CoverageRow } from '../../checkers/coverage.js';
import type { RunPhaseSeconds } from '../run-data/run-phases.js';
import { SCHEMA_VERSION } from '../version.js';
import type { Actual, Cell, CellName, Shard } from './cell.js';
import type { Mark } from './mark.js';
import type { CampaignProgress, CampaignRunner, CampaignStateName } from './state.js';

/**
 * The schema summary.json is written with (its `schema` field, version.ts's stamp). A file
 * without one was written before the stamp and reads as schema 1; raised when a field
 * changes meaning, and the reader then reads both.
 */
export const SUMMARY_SCHEMA = SCHEMA_VERSION;

export interface CellResult {
  cell: Cell;
  actual: Actual;
  met: boolean;
  /** One line: the violation or the mismatch in words. */
  message: string;
  /** The run's verdict in one sentence, report.html's first line (when the report was written). */
  headline?: string;
  /** Seconds from the cell's start to its verdict (0 when not run). */
  durationS: number;
  /** The run's folder (path as the store was given), when the run made one. */
  dir?: string;
  /** The run's report page (it may not exist: older runs, or a run that failed early). */
  report?: string;
  /** Each checker's verdict, in one line each. */
  checkers?: { checker: string; valid: boolean | 'unknown'; counts: boolean; summary: string }[];
  /** --stop-on-violation ended the run's workload after this many seconds ... */
  stoppedEarlyS?: number;
  /** ... on this violation, in words. */
  stoppedEarlyWhy?: string;
  /** Seconds per phase: where the cell's time went beside its workload. */
  phases?: CellPhases;
  /** The page of the smallest reproducer `shrink: true` found for this cell. */
  shrink?: string;
  /** The run's code points: reached, the faults aimed at them, hits and what followed. */
  coverage?: CoverageRow[];
  /** A cell that explores (Cell.explore): what the exploration tried and what broke the lock. */
  exploration?: CellExplorationResult;
}

/** An exploring cell's outcome, as its summary keeps it (the whole of it is in its explore.json). */
export interface CellExplorationResult {
  /** Its explore.json: every try's spec, seed, verdict and run folder. */
  file: string;
  tries: number;
  /** The points its baseline learned. */
  points: number;
  /** Each point × fault that broke the lock: its spec, the finding, its replay, and its shrunk replay. */
  broken: { spec: string; finding: string; replay: string; shrunk?: string }[];
}

/** A cell's phases: its run's (run-phases.ts), then writing its report. */
export type CellPhases = RunPhaseSeconds & { report?: number };

/** A campaign as it runs, or as it was read back: what the pages are made from. */
export interface CampaignSummary {
  name: string;
  description?: string;
  source: string;
  /** The campaign's folder. */
  dir: string;
  shard?: Shard;
  /** Cells in the whole campaign (all shards). */
  totalCells: number;
  startedAt: string;
  finishedAt: string;
  interrupted: boolean;
  /** Running, finished, cut short or failed (state.ts); a reader's view of a killed runner's "running" is cut short. */
  state: CampaignStateName;
  /** Cut short: by what, in words ("SIGINT", "its time budget of 600 s", "its runner stopped ..."). */
  cutShortBy?: string;
  /** Failed: the error its runner ended in ("internal error: ..."). */
  failedBy?: string;
  /** When the runner last wrote the folder (its heartbeat while it runs). */
  updatedAt?: string;
  progress?: CampaignProgress;
  runner?: CampaignRunner;
  /** This shard's cells by name, so that a reader of a killed campaign's folder can name those that never ran. */
  planned?: CellName[];
  /** True when every cell of this shard met its expectation (and it finished). */
  met: boolean;
  cells: CellResult[];
  /** Merged shards (campaign merge): cells of the campaign in no shard given. */
  missing?: number;
  /** Merged shards: how many shard folders went in. */
  mergedShards?: number;
  /** Merged shards: those cells, named (from the shards' allCells). */
  missingCells?: CellName[];
  /** A shard's: every cell of the campaign, so that a merge can name those of shards not given. */
  allCells?: CellName[];
}

/**
 * The state as the file says it, before a reader looks at its runner: serve asks again at
 * every scan (state.ts observedState), since the runner may have died since it was read.
 */
export interface WrittenState {
  state?: CampaignStateName;
  cutShortBy?: string;
  failedBy?: string;
  updatedAt?: string;
  finishedAt: string;
  interrupted: boolean;
  runner?: CampaignRunner;
}

/** What a campaign's cells add up to (tallies.ts). */
export interface Totals {
  cells: number;
  met: number;
  mismatched: number;
  errors: number;
  interrupted: number;
}

/** One configuration over its seeds: how many of its runs met the expectation. */
export interface ConfigurationTally {
  /** The cell id without its seed: "redlock/lock-set/client-pause/unfenced". */
  configuration: string;
  expect: string;
  met: number;
  /** Runs that gave a verdict (not interrupted, not run). */
  ran: number;
  seeds: number;
}

/** A configuration's code point over its seeds: the sums of its runs' rows. */
export interface PointTally {
  configuration: string;
  point: string;
  fault: string;
  reached: number;
  hits: number;
  followed: number;
  /** Runs of the configuration that reported it, and those in which the fault hit at least once. */
  runs: number;
  runsHit: number;
}

/** A configuration's tally over its seeds, with its outcome (mark.ts) for the night. */
export type MarkedTally = ConfigurationTally & { mark: Mark };

/** The tallies a summary carries, made from its cells by one rule (tallies.ts). */
export interface SummaryTallies {
  totals: Totals;
  configurations: MarkedTally[];
  points: PointTally[];
  /** This shard's cells that have no verdict: still to run, or (ended early) never ran. */
  notRun: CellName[];
}

/** summary.json as read back (read-summary.ts): the summary, what wrote it, and its tallies. */
export interface SummaryRecord extends CampaignSummary, SummaryTallies {
  /** The lockchaos version that wrote it; absent in a file from before the stamp. */
  lockchaos?: string;
  schema: number;
  written: WrittenState;
}
