import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pausesOutlivingLease, predictedRunViolation, violationProbability } from './violation-formula.js';

describe('the violation formula', () => {
  it('hand-computed: 1 − Π(1 − p_i)', () => {
    expect(violationProbability([])).toBe(0);
    expect(violationProbability([0.5, 0.5])).toBeCloseTo(0.75, 12);
    // 1 − 0.9·0.8·0.7 = 0.496
    expect(violationProbability([0.1, 0.2, 0.3])).toBeCloseTo(0.496, 12);
    expect(violationProbability([0.01, 1])).toBe(1);
    expect(violationProbability([0, 0, 0])).toBe(0);
  });

  it('pauses against the validity left: k of n outlived it (equal is not outliving)', () => {
    const pauses = [
      { pauseMs: 250, validityLeftMs: 960 },
      { pauseMs: 2000, validityLeftMs: 980 },
      { pauseMs: 1000, validityLeftMs: 1000 },
      { pauseMs: 1010, validityLeftMs: 990 },
    ];
    expect(pausesOutlivingLease(pauses)).toEqual({ k: 2, n: 4 });
  });

  it('the prediction over runs: mean of 1 − (1 − p)^k', () => {
    // p = 0.5; runs with 1, 2 and 0 pauses: (0.5 + 0.75 + 0) / 3
    expect(predictedRunViolation(0.5, [1, 2, 0])).toBeCloseTo(1.25 / 3, 12);
    expect(predictedRunViolation(0.2, [])).toBe(0);
    expect(predictedRunViolation(1, [3, 3])).toBe(1);
  });

  it('refuses what is not a probability', () => {
    expect(() => violationProbability([1.5])).toThrow(RangeError);
    expect(() => violationProbability([Number.NaN])).toThrow(RangeError);
  });

  it('property: monotone in every p_i, at least the largest p_i, at most their sum', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 20 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (ps, extra) => {
          const p = violationProbability(ps);
          expect(violationProbability([...ps, extra])).toBeGreaterThanOrEqual(p - 1e-12);
          expect(p).toBeGreaterThanOrEqual(Math.max(0, ...ps) - 1e-12);
          expect(p).toBeLessThanOrEqual(
            Math.min(
              1,
              ps.reduce((a, b) => a + b, 0),
            ) + 1e-12,
          );
        },
      ),
    );
  });
});
