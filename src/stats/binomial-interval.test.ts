import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clopperPearson, wilson, zOf } from './binomial-interval.js';

// Newcombe (1998), "Two-sided confidence intervals for the single proportion", Statistics
// in Medicine 17:857-872, Table I: 95% intervals, method 3 (Wilson score) and 5 (exact).
const NEWCOMBE = [
  { k: 81, n: 263, wilson: [0.2553, 0.3662], exact: [0.2527, 0.3676] },
  { k: 15, n: 148, wilson: [0.0624, 0.1605], exact: [0.0578, 0.1617] },
  { k: 0, n: 20, wilson: [0, 0.1611], exact: [0, 0.1684] },
  { k: 1, n: 29, wilson: [0.0061, 0.1718], exact: [0.0009, 0.1776] },
];

function choose(n: number, i: number): number {
  let c = 1;
  for (let j = 1; j <= i; j++) c = (c * (n - i + j)) / j;
  return c;
}
/** P(X ≤ k), X ~ Binomial(n, p). */
const atMost = (k: number, n: number, p: number) =>
  Array.from({ length: k + 1 }, (_, i) => choose(n, i) * p ** i * (1 - p) ** (n - i)).reduce((a, b) => a + b, 0);

describe('binomial intervals', () => {
  it('z of 95% and 99% confidence', () => {
    expect(zOf(0.95)).toBeCloseTo(1.959963984540054, 12);
    expect(zOf(0.99)).toBeCloseTo(2.5758293035489, 12);
  });

  it.each(NEWCOMBE)('$k of $n: the published Wilson and exact intervals', (c) => {
    const w = wilson(c.k, c.n);
    const e = clopperPearson(c.k, c.n);
    expect([w.low, w.high].map((x) => Number(x.toFixed(4)))).toEqual(c.wilson);
    expect([e.low, e.high].map((x) => Number(x.toFixed(4)))).toEqual(c.exact);
  });

  it('0 of 5 and 5 of 5, the sweep cases: exact bounds (1 − 0.025^(1/5))', () => {
    expect(clopperPearson(0, 5).high).toBeCloseTo(1 - 0.025 ** (1 / 5), 9);
    expect(clopperPearson(5, 5).low).toBeCloseTo(0.025 ** (1 / 5), 9);
    expect(wilson(0, 5).low).toBe(0);
    expect(wilson(5, 5).high).toBe(1);
  });

  it('refuses what is not a proportion', () => {
    expect(() => wilson(3, 2)).toThrow(RangeError);
    expect(() => clopperPearson(0, 0)).toThrow(RangeError);
    expect(() => wilson(1.5, 3)).toThrow(RangeError);
  });

  it('property: both contain k/n and stay in [0, 1]; the exact bounds leave 2.5% in each tail', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 400 }).chain((n) => fc.tuple(fc.integer({ min: 0, max: n }), fc.constant(n))),
        ([k, n]) => {
          const w = wilson(k, n);
          const e = clopperPearson(k, n);
          const p = k / n;
          for (const i of [w, e]) {
            expect(i.low).toBeGreaterThanOrEqual(0);
            expect(i.high).toBeLessThanOrEqual(1);
            expect(i.low).toBeLessThanOrEqual(p + 1e-12);
            expect(i.high).toBeGreaterThanOrEqual(p - 1e-12);
          }
          // The definition, by a plain sum of binomial terms (n ≤ 60 keeps C(n, i) exact).
          if (n <= 60) {
            if (k < n) expect(atMost(k, n, e.high)).toBeCloseTo(0.025, 6);
            if (k > 0) expect(1 - atMost(k - 1, n, e.low)).toBeCloseTo(0.025, 6);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
