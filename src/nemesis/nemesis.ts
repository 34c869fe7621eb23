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
  /**
   * monotonicNow() just before the fault first changed anything, when its start goes on
   * after that (warps processes one by one, each a helper run): it is in effect from there,
   * and a lock taken over before the start completed is the fault's doing, not the lock's.
   * Recorded in the start's value as `inEffectFrom` (checkers/fault-windows.ts reads it).
   */
  inEffectFrom?: bigint;
}

export interface Nemesis {
  /** The fault kind, e.g. "client-pause"; history ops are start-<kind> / stop-<kind>. */
  readonly kind: string;
  /**
   * Starts one fault, drawing what it needs (which node, how far) from rng; null when there
   * is nothing to fault right now (skipped). A plan fixes what a schedule gives.
   */
  start(rng: Rng, plan?: FaultPlan): Promise<FaultStart | null>;
  /** Stops the fault started last; returns what was undone. */
  stop(): Promise<unknown>;
  /** Undoes every fault still in effect. Idempotent; called at the end and on Ctrl-C. */
  healAll(): Promise<void>;
}

/** What a given schedule fixes of a fault before it starts (schedule.ts); the rest is drawn. */
export interface FaultPlan {
  durationMs?: number;
}

/**
 * The fault's duration: the plan's when it fixes one. The draw is made either way, so the
 * draws after it (which node, how far) are the same with a plan as without.
 */
export const planned = (plan: FaultPlan | undefined, drawnMs: number) => plan?.durationMs ?? drawnMs;

/**
 * When and how long: the run's timing, the same for every fault kind, given once. A fault
 * lasts around the interval; time-based faults draw sizes around the TTL. The fields are
 * the run's parameters by their own names: a run hands its configuration as it is.
 */
export interface FaultTiming {
  /** Mean seconds between the end of one fault and the start of the next. */
  nemesisIntervalS: number;
  ttlMs: number;
  /** client-pause: pause exactly this many TTLs instead of a draw (a sweep's fixed ratio). */
  pauseTtl?: number;
}

/** How long one fault lasts: around the mean interval between faults (0.5-1.5x). */
export const faultDurationMs = (intervalS: number, rng: Rng) => Math.round(1000 * intervalS * rng.uniform(0.5, 1.5));

/**
 * A shift, jump or delay of about a lease (`from` to 1.5 TTLs): long enough to outlive or
 * overtake a held lease, the size every time-based fault draws.
 */
export const aboutTtlMs = (ttlMs: number, rng: Rng, from = 0.5) => Math.round(ttlMs * rng.uniform(from, 1.5));
