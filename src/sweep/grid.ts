/**
 * A sweep as a campaign: one matrix entry per point of the grid (pause/TTL ratio × TTL ×
 * concurrency), each with its trials as seeds, so a sweep runs, shards and stores exactly
 * as a campaign does. Unfenced points expect any verdict (they measure); fenced points
 * expect valid: a data violation with fencing on is a failure, not a measurement.
 */

import type { CampaignFile, MatrixEntryFile } from '../campaign/spec.js';
import { DEFAULTS } from '../run-data/config.js';
import { driftAim, driftNemesis, driftPointLabel, driftPoints } from './drift-grid.js';

export interface SweepSpec {
  backend: string;
  fencing: boolean;
  /** Client pause lengths as multiples of the TTL. */
  pauseTtl: number[];
  ttlMs: number[];
  concurrency: number[];
  /** Runs per point; their seeds are firstSeed, firstSeed + 1, ... */
  trials: number;
  firstSeed: number;
  timeLimitS: number;
  nemesisIntervalS: number;
  holdMs: number;
  /** The campaign's name (its folder under <store>/campaigns/). */
  name: string;
  /** A target inventory's absolute path (--target): the lock service the sweep runs on. */
  target?: string;
  /**
   * A drift sweep: the lease keeper's clock at 1 + ρ for each ρ here (drift-grid.ts), in
   * place of the client pauses; pauseTtl is then not an axis.
   */
  drift?: number[];
}

export const SWEEP_DEFAULTS = {
  pauseTtl: [0.25, 0.5, 0.75, 1, 1.25, 1.5, 2],
  ttlMs: [DEFAULTS.ttlMs],
  concurrency: [DEFAULTS.concurrency],
  trials: 5,
  firstSeed: 1,
  // Short runs with a pause every 2 s or so: 3 to 4 pauses a run, 25 runs a sweep in ~8 min.
  timeLimitS: 10,
  nemesisIntervalS: 2,
  holdMs: DEFAULTS.holdMs,
} as const;

/** One point of the grid. */
export interface SweepPoint {
  pauseTtl: number;
  ttlMs: number;
  concurrency: number;
}

/** "pause-ttl=0.5,ttl=1000,concurrency=5": the point's label, part of its cells' ids. */
export const pointLabel = (p: SweepPoint) => `pause-ttl=${p.pauseTtl},ttl=${p.ttlMs},concurrency=${p.concurrency}`;

/** The grid's points, pause/TTL innermost (the plot's x axis). */
export function sweepPoints(spec: Pick<SweepSpec, 'pauseTtl' | 'ttlMs' | 'concurrency'>): SweepPoint[] {
  return spec.concurrency.flatMap((concurrency) =>
    spec.ttlMs.flatMap((ttlMs) => spec.pauseTtl.map((pauseTtl) => ({ pauseTtl, ttlMs, concurrency }))),
  );
}

export function sweepCampaign(spec: SweepSpec): CampaignFile {
  const matrix: MatrixEntryFile[] = spec.drift ? driftMatrix(spec, spec.drift) : pauseMatrix(spec);
  const axis = spec.drift
    ? `the lease keeper's clock at 1 + ρ for ρ = ${spec.drift.join(', ')}`
    : `client pauses of ${spec.pauseTtl.join(', ')} x TTL`;
  return {
    name: spec.name,
    description: `lockchaos sweep: ${spec.backend}, fencing ${spec.fencing ? 'on' : 'off'}, ${axis}, ${spec.trials} trials a point`,
    seeds: Array.from({ length: spec.trials }, (_, i) => spec.firstSeed + i),
    defaults: {
      'time-limit': spec.timeLimitS,
      'nemesis-interval': spec.nemesisIntervalS,
      hold: spec.holdMs,
      ...(spec.target === undefined ? {} : { target: spec.target }),
    },
    matrix,
  };
}

function pauseMatrix(spec: SweepSpec): MatrixEntryFile[] {
  return sweepPoints(spec).map((p) => ({
    backend: spec.backend,
    workload: 'lock-set',
    nemesis: 'client-pause',
    fencing: spec.fencing ? 'on' : 'off',
    label: pointLabel(p),
    expect: spec.fencing ? 'valid' : 'any',
    options: { 'pause-ttl': p.pauseTtl, ttl: p.ttlMs, concurrency: p.concurrency },
  }));
}

/** A drift sweep measures with fencing off and expects valid with it on, as a pause sweep does. */
function driftMatrix(spec: SweepSpec, drift: number[]): MatrixEntryFile[] {
  const aim = driftAim(spec.backend);
  return driftPoints({ ...spec, drift }).map((p) => ({
    backend: spec.backend,
    workload: 'lock-set',
    nemesis: driftNemesis(aim, p.rho),
    fencing: spec.fencing ? 'on' : 'off',
    label: driftPointLabel(p),
    expect: spec.fencing ? 'valid' : 'any',
    options: { ttl: p.ttlMs, concurrency: p.concurrency, ...(aim.rate === undefined ? {} : { rate: aim.rate }) },
  }));
}
