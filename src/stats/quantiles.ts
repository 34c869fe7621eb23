/**
 * Tail quantiles of a sample, exact (nearest rank on the sorted sample, as perf's p50/p99),
 * each with the count behind it and whether that count can carry it.
 *
 * The rule for "meaningful": a quantile q of n samples is read off the n·(1−q) largest
 * ones; with fewer than MIN_BEYOND of them the figure is one or two outliers, not a tail.
 * So p99 needs 1,000 samples, p99.9 10,000 and p99.99 100,000. A p99.99 from 2,000
 * samples is the maximum of the sample, and is flagged.
 */

/** Samples that must lie at or beyond a quantile for it to describe a tail. */
export const MIN_BEYOND = 10;

export interface Quantile {
  /** The quantile, 0 < q ≤ 1 (0.99 for p99). */
  q: number;
  /** Its value (nearest rank); null for an empty sample. */
  value: number | null;
  /** Samples it was read from. */
  n: number;
  /** n·(1−q): about how many samples lie beyond it. */
  beyond: number;
  /** beyond ≥ MIN_BEYOND. */
  meaningful: boolean;
}

/** Samples needed for quantile q to be meaningful: MIN_BEYOND / (1 − q), rounded up. */
export const samplesNeeded = (q: number): number => Math.ceil(Math.round((MIN_BEYOND / (1 - q)) * 1e6) / 1e6); // 1 − 0.9999 is not 1e-4 in binary

/** Nearest-rank quantile of an ascending sample (not empty): the ⌈q·n⌉-th smallest. */
export function nearestRank(sorted: readonly number[], q: number): number {
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length - 1e-9)));
  return sorted[rank - 1] as number;
}

/** The quantiles qs of samples (any order; not changed). */
export function quantiles(samples: readonly number[], qs: readonly number[]): Quantile[] {
  for (const q of qs) {
    if (!(q > 0 && q <= 1)) throw new RangeError(`a quantile is in (0, 1], got ${q}`);
  }
  const sorted = Float64Array.from(samples).sort();
  const n = sorted.length;
  return qs.map((q) => {
    const beyond = Math.round(n * (1 - q) * 1e6) / 1e6;
    return {
      q,
      value: n === 0 ? null : nearestRank(sorted as unknown as number[], q),
      n,
      beyond,
      meaningful: n > 0 && beyond >= MIN_BEYOND,
    };
  });
}

/** "p99.99" for 0.9999. */
export const quantileName = (q: number): string => `p${Math.round(q * 1e6) / 1e4}`;
