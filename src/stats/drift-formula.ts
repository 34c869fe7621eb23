/**
 * When does a clock running at 1 + ρ break a lease lock? Two shapes of lease, two bounds:
 *
 * - A lease granted once and never renewed (a Redis key set with PX; each Redlock master's
 *   key): the server's clock counts the TTL, so the key lives TTL/(1 + ρ) of true time. The
 *   holder, on its own true clock, believes it holds for TTL − elapsed − drift, where drift
 *   is the allowance its client subtracts (Redlock: 1% of the TTL + 2 ms; plain Redis:
 *   none). That allowance covers ρ ≤ drift/(TTL − drift): the lock's own bound. Past it the
 *   holder's belief can outlast the key, and a hold of h ms does once TTL/(1 + ρ) < h,
 *   ρ > TTL/h − 1: someone else can take the key while the holder still writes.
 * - A lease the client renews every TTL/k (etcd's keepalives and ZooKeeper's pings, k = 3):
 *   a renewal restarts the count, so the lease lapses only if it runs out between two
 *   renewals, TTL/(1 + ρ) < TTL/k, ρ > k − 1; below that bound no hold is ever too long.
 *
 * A model, not an oracle: it leaves out the acquire's own latency and the chance that no
 * other client is waiting when the key goes; the sweep sets it beside what was observed.
 */

export type LeaseShape = { kind: 'single'; driftMs: number } | { kind: 'renewed'; renewalsPerTtl: number };

export interface DriftPrediction {
  /** How long the lease lasts by true time on a clock at 1 + ρ, ms. */
  leaseTrueMs: number;
  /** The largest ρ the lock's own design covers (its drift allowance, or its renewal margin). */
  coveredRho: number;
  /** The least ρ at which a hold of holdMs outlives the lease it believes it has. */
  breakingRho: number;
  /** ρ > breakingRho: the model expects two holders at once. */
  unsafe: boolean;
}

/** How long a TTL of ttlMs lasts by true time on a clock running at 1 + ρ (ρ > −1). */
export function leaseTrueMs(ttlMs: number, rho: number): number {
  if (!(rho > -1)) throw new RangeError(`a clock rate 1 + ρ is positive, got ρ = ${rho}`);
  return ttlMs / (1 + rho);
}

export function predictDrift(shape: LeaseShape, ttlMs: number, holdMs: number, rho: number): DriftPrediction {
  if (!(ttlMs > 0) || !(holdMs > 0)) throw new RangeError(`a TTL and a hold are positive, got ${ttlMs} and ${holdMs}`);
  const lease = leaseTrueMs(ttlMs, rho);
  if (shape.kind === 'renewed') {
    const k = shape.renewalsPerTtl;
    if (!(k > 1)) throw new RangeError(`a lease renewed k times a TTL needs k > 1, got ${k}`);
    return { leaseTrueMs: lease, coveredRho: k - 1, breakingRho: k - 1, unsafe: rho > k - 1 };
  }
  const drift = Math.min(Math.max(shape.driftMs, 0), ttlMs);
  const coveredRho = drift >= ttlMs ? Number.POSITIVE_INFINITY : drift / (ttlMs - drift);
  // A hold no longer than what the client believes: past that it has stopped believing.
  const believedMs = Math.min(holdMs, ttlMs - drift);
  const breakingRho = Math.max(coveredRho, ttlMs / believedMs - 1);
  return { leaseTrueMs: lease, coveredRho, breakingRho, unsafe: rho > breakingRho };
}
