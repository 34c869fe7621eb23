/**
 * A drift sweep (`sweep --drift`): the clock of the process that keeps the lease runs at
 * 1 + ρ (node-clock's rate, on real servers), one point per ρ (× TTL × concurrency), so
 * that each point sets ρ against the bound the lock assumes (drift-formula.ts). Where the
 * clock goes is the backend's: Redlock's shared master during a clients-majorities split
 * (the key that completes a bare majority), a lone Redis, the etcd or ZooKeeper leader
 * (whose lessor or session tracker keeps the leases). ρ = 0 is the control: the same
 * faults with no clock moved.
 */
import { driftMs } from '../backends/redlock.js';
import type { LeaseShape } from '../stats/drift-formula.js';
import { UserError } from '../util/errors.js';

/** How a drift sweep moves a backend's clock, and the lease it moves. */
export interface DriftAim {
  /** The faults besides the clock's (Redlock: the split that makes a bare majority). */
  alongside: string[];
  /** node-clock's aim. */
  clockAim: 'bridge' | 'one' | 'leader';
  lease: (ttlMs: number) => LeaseShape;
  /** Defaults where the sweep gives none: a hold long enough to outlive a drifted lease. */
  ttlMs: number;
  holdMs: number;
  /** Acquires per second a client tries: a waiter ready when the key goes. */
  rate?: number;
}

// etcd's client keeps a lease alive every third of its TTL; ZooKeeper's pings a session
// when idle a third of its timeout.
const RENEWED_THRICE = () => ({ kind: 'renewed', renewalsPerTtl: 3 }) as const;

export const DRIFT_AIMS: Readonly<Record<string, DriftAim>> = {
  redlock: {
    alongside: ['partition:clients-majorities'],
    clockAim: 'bridge',
    lease: (ttlMs) => ({ kind: 'single', driftMs: driftMs(ttlMs) }),
    ttlMs: 3000,
    holdMs: 2000,
    rate: 2,
  },
  redis: {
    alongside: [],
    clockAim: 'one',
    lease: () => ({ kind: 'single', driftMs: 0 }),
    ttlMs: 3000,
    holdMs: 2000,
    rate: 2,
  },
  etcd: { alongside: [], clockAim: 'leader', lease: RENEWED_THRICE, ttlMs: 2000, holdMs: 600 },
  zookeeper: { alongside: [], clockAim: 'leader', lease: RENEWED_THRICE, ttlMs: 2000, holdMs: 600 },
};

/** How a drift sweep moves `backend`'s clock; a backend it knows no lease of: one line, the fix. */
export function driftAim(backend: string): DriftAim {
  const aim = DRIFT_AIMS[backend];
  if (aim) return aim;
  throw new UserError(
    `--drift sweeps the lease keeper's clock on ${Object.keys(DRIFT_AIMS).join(', ')}; '${backend}' has no lease a drift sweep knows to aim at: run a node-clock:<aim>:rate=<rho> nemesis instead`,
  );
}

/** The least and greatest ρ node-clock runs (kind.ts's rate=<ρ>); 0 is the control point. */
export const DRIFT_RHO_BOUNDS = { min: -0.9, max: 10 } as const;

/** A drift point's nemesis: the backend's faults, and its clock at 1 + ρ unless ρ = 0. */
export function driftNemesis(aim: DriftAim, rho: number): string {
  const clock = rho === 0 ? [] : [`node-clock:${aim.clockAim}:rate=${rho}`];
  const all = [...aim.alongside, ...clock];
  return all.length === 0 ? 'none' : all.join(',');
}

/** One point of a drift sweep. */
export interface DriftPoint {
  rho: number;
  ttlMs: number;
  concurrency: number;
}

/** "rho=0.5,ttl=3000,concurrency=5": the point's label, part of its cells' ids. */
export const driftPointLabel = (p: DriftPoint) => `rho=${p.rho},ttl=${p.ttlMs},concurrency=${p.concurrency}`;

/** The grid's points, ρ innermost. */
export function driftPoints(spec: { drift: readonly number[]; ttlMs: number[]; concurrency: number[] }): DriftPoint[] {
  return spec.concurrency.flatMap((concurrency) =>
    spec.ttlMs.flatMap((ttlMs) => spec.drift.map((rho) => ({ rho, ttlMs, concurrency }))),
  );
}
