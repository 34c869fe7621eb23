/**
 * The nemesis protocol, after Jepsen's: a fault kind knows how to start one fault, stop
 * it, and heal everything it may have left in effect. The schedule (schedule.ts) decides
 * when, from the run's seeded PRNG, and records every start and stop in the history.
 */
import type { Rng } from '../util/rng.js';

export interface FaultStart {
  /** What was done, recorded as the value of the start operation. */
  value: unknown;
  /** How long the fault should last before it is stopped. */
  durationMs: number;
}

export interface Nemesis {
  /** The fault kind, e.g. "pause-client"; history ops are start-<kind> / stop-<kind>. */
  readonly kind: string;
  /** Starts one fault; null when there is nothing to fault right now (skipped). */
  start(rng: Rng): Promise<FaultStart | null>;
  /** Stops the fault started last; returns what was undone. */
  stop(): Promise<unknown>;
  /** Undoes every fault still in effect. Idempotent; called at the end and on Ctrl-C. */
  healAll(): Promise<void>;
}

export interface NemesisOptions {
  /** Mean seconds between the end of one fault and the start of the next. */
  intervalS: number;
  ttlMs: number;
}
