import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quantileName, quantiles, samplesNeeded } from './quantiles.js';

/** The brute-force definition: the smallest x with at least q·n samples ≤ x. */
function bruteForce(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  for (const x of sorted) {
    if (sorted.filter((y) => y <= x).length >= q * sorted.length - 1e-9) return x;
  }
  throw new Error('unreachable');
}

describe('quantiles', () => {
  it('nearest rank on a small sample, with the count behind each', () => {
    const [p50, p99, p9999] = quantiles([5, 1, 4, 2, 3], [0.5, 0.99, 0.9999]);
    expect(p50).toMatchObject({ value: 3, n: 5, meaningful: false });
    expect(p99?.value).toBe(5);
    expect(p9999?.value).toBe(5);
  });

  it('flags a tail with fewer than 10 samples beyond it: p99.99 of 2,000 is not meaningful', () => {
    const xs = Array.from({ length: 2000 }, (_, i) => i);
    const [p99, p999, p9999] = quantiles(xs, [0.99, 0.999, 0.9999]);
    expect(p99).toMatchObject({ beyond: 20, meaningful: true });
    expect(p999).toMatchObject({ beyond: 2, meaningful: false });
    expect(p9999).toMatchObject({ value: 1999, meaningful: false });
  });

  it('samples needed: 1,000 for p99, 100,000 for p99.99', () => {
    expect([0.5, 0.99, 0.999, 0.9999].map(samplesNeeded)).toEqual([20, 1000, 10_000, 100_000]);
    expect(quantiles(new Array(100_000).fill(1), [0.9999])[0]?.meaningful).toBe(true);
    expect(quantiles(new Array(99_999).fill(1), [0.9999])[0]?.meaningful).toBe(false);
  });

  it('names', () => {
    expect([0.5, 0.99, 0.999, 0.9999].map(quantileName)).toEqual(['p50', 'p99', 'p99.9', 'p99.99']);
  });

  it('an empty sample has no value; a bad q is refused', () => {
    expect(quantiles([], [0.5])[0]).toMatchObject({ value: null, n: 0, meaningful: false });
    expect(() => quantiles([1], [0])).toThrow(RangeError);
    expect(() => quantiles([1], [1.5])).toThrow(RangeError);
  });

  it('property: equals the brute-force definition on any sample', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 300 }),
        fc.array(fc.double({ min: 0.001, max: 1, noNaN: true }), { minLength: 1, maxLength: 5 }),
        (xs, qs) => {
          const got = quantiles(xs, qs);
          for (const [i, q] of qs.entries()) expect(got[i]?.value).toBe(bruteForce(xs, q));
        },
      ),
      { numRuns: 300 },
    );
  });
});
