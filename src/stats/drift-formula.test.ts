import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { leaseTrueMs, predictDrift } from './drift-formula.js';

const redlock = { kind: 'single', driftMs: 32 } as const; // 1% of 3000 + 2 ms
const etcd = { kind: 'renewed', renewalsPerTtl: 3 } as const;

describe('the drift model', () => {
  it('puts the Redlock stories where their scenarios say', () => {
    // A 2 s hold of a 3 s lease: the key outlives it up to ρ = 0.5.
    expect(predictDrift(redlock, 3000, 2000, 1).unsafe).toBe(true);
    expect(predictDrift(redlock, 3000, 2000, 0.005).unsafe).toBe(false);
    expect(predictDrift(redlock, 3000, 2000, 0.4).unsafe).toBe(false);
    expect(predictDrift(redlock, 3000, 2000, 0.6).unsafe).toBe(true);
    expect(predictDrift(redlock, 3000, 2000, 1).breakingRho).toBeCloseTo(0.5, 9);
    // The client's allowance covers 32/2968.
    expect(predictDrift(redlock, 3000, 2000, 0).coveredRho).toBeCloseTo(32 / 2968, 12);
    expect(leaseTrueMs(3000, 1)).toBe(1500);
  });

  it('breaks a renewed lease only past its renewal margin, whatever the hold', () => {
    expect(predictDrift(etcd, 2000, 600, 0.5).unsafe).toBe(false);
    expect(predictDrift(etcd, 2000, 60_000, 1.9).unsafe).toBe(false);
    expect(predictDrift(etcd, 2000, 600, 3).unsafe).toBe(true);
    expect(predictDrift(etcd, 2000, 600, 3).leaseTrueMs).toBe(500);
  });

  it('refuses a clock that stops or runs backward, and a non-positive TTL or hold', () => {
    expect(() => leaseTrueMs(1000, -1)).toThrow(RangeError);
    expect(() => predictDrift(redlock, 1000, 500, Number.NaN)).toThrow(RangeError);
    expect(() => predictDrift(redlock, 0, 500, 0)).toThrow(RangeError);
    expect(() => predictDrift(redlock, 1000, -1, 0)).toThrow(RangeError);
    expect(() => predictDrift({ kind: 'renewed', renewalsPerTtl: 1 }, 1000, 500, 0)).toThrow(RangeError);
  });

  const ttl = fc.integer({ min: 100, max: 60_000 });
  const hold = fc.integer({ min: 1, max: 60_000 });
  const rho = fc.double({ min: -0.95, max: 10, noNaN: true });
  const drift = fc.integer({ min: 0, max: 1000 });

  it('is unsafe exactly when the lease by true time is shorter than the hold the holder believes', () => {
    fc.assert(
      fc.property(ttl, hold, rho, drift, (t, h, r, d) => {
        const driftMs = Math.min(d, t - 1);
        const p = predictDrift({ kind: 'single', driftMs }, t, h, r);
        const believed = Math.min(h, t - driftMs);
        // Away from the boundary (floating point), the two statements agree.
        if (Math.abs(p.leaseTrueMs - believed) < 1e-6 * t) return;
        expect(p.unsafe).toBe(p.leaseTrueMs < believed);
        expect(p.breakingRho).toBeGreaterThanOrEqual(p.coveredRho);
      }),
    );
  });

  it('is monotone in ρ: a faster clock is never safer', () => {
    fc.assert(
      fc.property(ttl, hold, rho, rho, fc.boolean(), (t, h, a, b, renewed) => {
        const shape = renewed ? etcd : ({ kind: 'single', driftMs: Math.floor(t * 0.01) + 2 } as const);
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        if (predictDrift(shape, t, h, lo).unsafe) expect(predictDrift(shape, t, h, hi).unsafe).toBe(true);
      }),
    );
  });
});
