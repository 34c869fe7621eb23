/** What a shrink starts from and what it finds (shrink.ts finds it, html.ts shows it). */
import type { ScheduledFault } from '../nemesis/schedule.js';
import type { TestConfig } from '../run-data/config.js';
import type { SearchResult } from './search.js';

/** A run folder as shrink needs it: finished, invalid, with its schedule recorded. */
export interface FailingRun {
  dir: string;
  config: TestConfig & { schedule: ScheduledFault[] };
  /** The first counted violation, in words. */
  violation: string;
  operations: number;
}

export interface ShrinkResult extends SearchResult {
  original: FailingRun;
  /** The folder written: RUN_DIR/shrink. */
  out: string;
  smaller: boolean;
  minimalSchedule: string;
  page: string;
  /** The minimal candidate's run folder (the original's when nothing smaller failed). */
  minimalRun: string;
  elapsedS: number;
}
