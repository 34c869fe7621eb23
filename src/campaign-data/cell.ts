/**
 * A campaign's cell as its folder records it, and the words a stored cell is made of: its
 * expectation, what it ended with, its shard, the campaign's name. The campaign (src/campaign)
 * makes cells from a matrix; the folder's readers (merge, serve, the job summary) need only
 * these, so they live with the data, below both.
 */
import type { TestConfig } from '../run-data/config.js';

/**
 * The verdict a cell should end with; `any` for a measurement (lockchaos sweep, bench): a
 * verdict of either kind meets it, unknown or an error does not.
 */
export type Expectation = 'valid' | 'invalid' | 'any';
export const EXPECTATIONS: readonly Expectation[] = ['valid', 'invalid', 'any'];

/** What a cell ended with: a verdict, or why it has none. */
export const ACTUALS = ['valid', 'invalid', 'unknown', 'error', 'aborted', 'not-run'] as const;
export type Actual = (typeof ACTUALS)[number];

/** The most cells a campaign may expand to: more could not run in any night. */
export const MAX_CELLS = 10_000;

/** A campaign's name: a folder name under <store>/campaigns/ (a shard's is held to it too). */
export const CAMPAIGN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

/**
 * A cell that explores (lockchaos explore, docs/exploring.md) instead of running one fault:
 * its budget (tries, or minutes), each try's time limit, and the shrink runs per broken
 * point. Its expectation is met by the exploration's outcome: valid when no configuration
 * broke the lock, invalid when one did.
 */
export interface CellExploration {
  budget: { runs: number } | { minutes: number };
  runTimeS: number;
  shrinkRuns: number;
  /** Ends at the first configuration that broke the lock (explore --until-broken). */
  untilBroken?: boolean;
}

export interface Cell {
  /** Position in the campaign's full cell list (0-based), the same in every shard. */
  index: number;
  /** The matrix entry it came from (0-based). */
  entry: number;
  /** "redlock/lock-set/client-pause/unfenced/seed-1" (scenario cells: "scenario=control/..."). */
  id: string;
  backend: string;
  workload: string;
  nemesis: string;
  scenario?: string;
  fencing: boolean;
  seed: number;
  expect: Expectation;
  /** The least share of acquires ok outside fault windows, when the cell expects one. */
  availability?: number;
  /** A cell that explores: its nemesis is `explore`, its configuration's `none` (the exploration chooses). */
  explore?: CellExploration;
  /** The run's configuration; the campaign sets name and storeDir when it runs the cell. */
  config: TestConfig;
}

/** A cell by its place and id: enough to name one that has no result here. */
export interface CellName {
  index: number;
  id: string;
  expect?: Expectation;
}
