/**
 * A sweep point's runs, summed up: observed P(two holders at once) with its confidence
 * intervals, against the formula's prediction from the pauses as measured and the
 * validity their holders believed; and the runs where the two disagree.
 */
import { clopperPearson, type Interval, wilson } from '../stats/binomial-interval.js';
import { nearestRank } from '../stats/quantiles.js';
import { pausesOutlivingLease, predictedRunViolation, violationProbability } from '../stats/violation-formula.js';
import type { SweepPoint } from './grid.js';
import type { RunMeasure } from './measure.js';

export interface Spread {
  min: number;
  median: number;
  max: number;
}

export interface Proportion {
  k: number;
  n: number;
  /** k/n; null for n = 0. */
  p: number | null;
  /** 95% intervals; null for n = 0. */
  wilson: Interval | null;
  clopperPearson: Interval | null;
}

export interface SweepRun {
  dir: string;
  seed: number;
  verdict: boolean | 'unknown';
  notAsConfigured: boolean;
  overlaps: number;
  dataViolation: boolean;
  pauses: number;
  /** Pauses that outlived the validity their holder had left. */
  outlived: number;
  /** The formula for this run: 1 − (1 − p)^pauses, p the point's share of pauses that outlived. */
  predicted: number;
  /** The formula's claim for this run (a pause outlived its lease ⇔ two holders) did not hold. */
  disagrees: boolean;
}

/** What a sweep's run says of its outcome, whatever the sweep's axis. */
export type RunOutcome = Pick<SweepRun, 'dir' | 'seed' | 'verdict' | 'notAsConfigured' | 'overlaps' | 'dataViolation'>;

/** A run's outcome, from its measure (which carries more). */
export const runOutcome = (m: RunOutcome): RunOutcome => ({
  dir: m.dir,
  seed: m.seed,
  verdict: m.verdict,
  notAsConfigured: m.notAsConfigured,
  overlaps: m.overlaps,
  dataViolation: m.dataViolation,
});

export interface PointResult extends SweepPoint {
  label: string;
  trials: number;
  /** Runs in which two clients believed they held the lock at once (the formula's event). */
  observed: Proportion;
  /** Runs the verdict called invalid. */
  runsInvalid: number;
  /** Runs with a data violation: lost updates, a stale token accepted, a store not linearizable. */
  runsDataViolation: number;
  grants: number;
  overlaps: number;
  violationsPerHold: number | null;
  violationsPerPause: number | null;
  /** Pauses of holders: how many outlived their lease (P(Pause > T_valid)), lengths as measured. */
  pauses: Proportion & { measuredMs: Spread | null; drawnMs: Spread | null; validityLeftMs: Spread | null };
  /** Validity the holders believed at their grants, ms. */
  validityMs: Spread | null;
  /** The formula's P(run has two holders), and its range over the interval of P(Pause > T_valid). */
  predicted: { p: number; low: number; high: number } | null;
  /** The prediction lies outside the observation's exact 95% interval. */
  disagree: boolean;
  runs: SweepRun[];
}

/** Min, median and max, to `places` decimals (tenths of a millisecond by default). */
export function spread(xs: readonly number[], places = 1): Spread | null {
  if (xs.length === 0) return null;
  const sorted = [...xs].sort((a, b) => a - b);
  const scale = 10 ** places;
  const r = (x: number) => Math.round(x * scale) / scale;
  return { min: r(sorted[0] as number), median: r(nearestRank(sorted, 0.5)), max: r(sorted.at(-1) as number) };
}

export function proportion(k: number, n: number): Proportion {
  return n === 0
    ? { k, n, p: null, wilson: null, clopperPearson: null }
    : { k, n, p: k / n, wilson: wilson(k, n), clopperPearson: clopperPearson(k, n) };
}

export function analysePoint(point: SweepPoint, label: string, measures: readonly RunMeasure[]): PointResult {
  const allPauses = measures.flatMap((m) => m.pauses);
  const outlive = pausesOutlivingLease(allPauses);
  const pauses = proportion(outlive.k, outlive.n);
  const perRun = measures.map((m) => m.pauses.length);
  const predicted =
    pauses.p === null || pauses.wilson === null
      ? null
      : {
          p: predictedRunViolation(pauses.p, perRun),
          low: predictedRunViolation(pauses.wilson.low, perRun),
          high: predictedRunViolation(pauses.wilson.high, perRun),
        };
  const observed = proportion(measures.filter((m) => m.overlaps > 0).length, measures.length);
  const grants = measures.reduce((s, m) => s + m.grants, 0);
  const overlaps = measures.reduce((s, m) => s + m.overlaps, 0);
  const runs = measures.map((m): SweepRun => {
    const outlived = pausesOutlivingLease(m.pauses).k;
    return {
      ...runOutcome(m),
      pauses: m.pauses.length,
      outlived,
      predicted: pauses.p === null ? 0 : violationProbability(new Array<number>(m.pauses.length).fill(pauses.p)),
      disagrees: outlived > 0 !== m.overlaps > 0,
    };
  });
  const cp = observed.clopperPearson;
  return {
    ...point,
    label,
    trials: measures.length,
    observed,
    runsInvalid: measures.filter((m) => m.verdict === false).length,
    runsDataViolation: measures.filter((m) => m.dataViolation).length,
    grants,
    overlaps,
    violationsPerHold: grants > 0 ? overlaps / grants : null,
    violationsPerPause: allPauses.length > 0 ? overlaps / allPauses.length : null,
    pauses: {
      ...pauses,
      measuredMs: spread(allPauses.map((p) => p.pauseMs)),
      drawnMs: spread(allPauses.flatMap((p) => (p.drawnMs === null ? [] : [p.drawnMs]))),
      validityLeftMs: spread(allPauses.map((p) => p.validityLeftMs)),
    },
    validityMs: spread(measures.flatMap((m) => m.validityMs)),
    predicted,
    disagree: predicted !== null && cp !== null && (predicted.p < cp.low - 1e-9 || predicted.p > cp.high + 1e-9),
    runs,
  };
}
