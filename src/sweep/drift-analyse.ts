/**
 * A drift point's runs, summed up: observed P(two holders at once) with its exact 95%
 * interval, against the model (drift-formula.ts): does a clock at 1 + ρ outrun the bound
 * the lock assumes, and a hold of this length? The clocks as read back say whether the
 * drift the point names is the drift that ran.
 */

import { type DriftPrediction, type LeaseShape, predictDrift } from '../stats/drift-formula.js';
import { type Proportion, proportion, type RunOutcome, runOutcome, type Spread, spread } from './analyse.js';
import type { DriftPoint } from './drift-grid.js';
import type { DriftRunMeasure } from './drift-measure.js';

/** A run of a drift point: what a pause sweep's run says of its outcome, and its drifts. */
export interface DriftRun extends RunOutcome {
  drifts: number;
  driftsNotApplied: number;
}

export interface DriftPointResult extends DriftPoint {
  label: string;
  holdMs: number;
  trials: number;
  lease: LeaseShape;
  predicted: DriftPrediction;
  /** Runs in which two clients believed they held the lock at once. */
  observed: Proportion;
  runsInvalid: number;
  runsDataViolation: number;
  /** Drifts that moved a process, and those that moved none. */
  drifts: number;
  driftsNotApplied: number;
  /** The moved clocks' offsets at each drift's end, ms, and the rates those readings imply. */
  offsetMs: Spread | null;
  readRho: Spread | null;
  /**
   * The model and the runs disagree: two holders where it expects none, or none in any run
   * where it expects them; or a drift point whose drifts never moved a clock.
   */
  disagree: boolean;
  runs: DriftRun[];
}

export function analyseDriftPoint(
  point: DriftPoint,
  label: string,
  lease: LeaseShape,
  holdMs: number,
  measures: readonly DriftRunMeasure[],
): DriftPointResult {
  const predicted = predictDrift(lease, point.ttlMs, holdMs, point.rho);
  const observed = proportion(measures.filter((m) => m.overlaps > 0).length, measures.length);
  const all = measures.flatMap((m) => m.drifts);
  const notApplied = measures.reduce((s, m) => s + m.driftsNotApplied.length, 0);
  const driftedNothing = point.rho !== 0 && measures.length > 0 && all.length === 0;
  const disagree = measures.length > 0 && predicted.unsafe === (observed.k === 0);
  return {
    ...point,
    label,
    holdMs,
    trials: measures.length,
    lease,
    predicted,
    observed,
    runsInvalid: measures.filter((m) => m.verdict === false).length,
    runsDataViolation: measures.filter((m) => m.dataViolation).length,
    drifts: all.length,
    driftsNotApplied: notApplied,
    offsetMs: spread(all.flatMap((d) => (d.offsetMs === null ? [] : [d.offsetMs]))),
    // Three places: tenths would read ρ = 0.005 as 0.
    readRho: spread(
      all.flatMap((d) => (d.readRho === null ? [] : [d.readRho])),
      3,
    ),
    disagree: disagree || driftedNothing,
    runs: measures.map((m) => ({
      ...runOutcome(m),
      drifts: m.drifts.length,
      driftsNotApplied: m.driftsNotApplied.length,
    })),
  };
}
