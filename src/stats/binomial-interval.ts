/**
 * Confidence intervals for a proportion k of n (runs invalid of trials, pauses that
 * outlived the lease of pauses): Wilson's score interval, and the exact Clopper–Pearson
 * interval (conservative: it covers at least the confidence asked, so it is the one to
 * quote for a handful of trials).
 */

export interface Interval {
  low: number;
  high: number;
}

/** z of a two-sided confidence (0.95 → 1.959963984540054), by bisection on the normal CDF. */
export function zOf(confidence: number): number {
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`confidence is in (0, 1), got ${confidence}`);
  const level = 1 - (1 - confidence) / 2;
  // Φ(10) = 1 − 7.6e-24: every confidence a double can tell from 1 has its z below 10.
  let lo = 0;
  let hi = 10;
  for (let i = 0; i < 100; i++) {
    const mid = (lo + hi) / 2;
    if (normalCdf(mid) < level) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * Φ(x) for 0 ≤ x ≤ 10 by the series Φ(x) = 1/2 + φ(x)·(x + x³/3 + x⁵/(3·5) + ...): exact to
 * double precision there (a rational approximation's 1e-7 would show in z's digits).
 */
function normalCdf(x: number): number {
  let term = x;
  let sum = x;
  for (let k = 1; k < 500 && Math.abs(term) > 1e-17 * Math.abs(sum); k++) {
    term *= (x * x) / (2 * k + 1);
    sum += term;
  }
  return Math.min(1, 0.5 + Math.exp(-0.5 * x * x - 0.5 * Math.log(2 * Math.PI)) * sum);
}

function checkCounts(k: number, n: number) {
  if (!Number.isInteger(n) || n < 1 || !Number.isInteger(k) || k < 0 || k > n) {
    throw new RangeError(`a proportion needs whole numbers 0 <= k <= n, n >= 1; got ${k} of ${n}`);
  }
}

/** Wilson's score interval for k successes of n. */
export function wilson(k: number, n: number, confidence = 0.95): Interval {
  checkCounts(k, n);
  const z = zOf(confidence);
  const p = k / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { low: k === 0 ? 0 : Math.max(0, centre - half), high: k === n ? 1 : Math.min(1, centre + half) };
}

/** ln C(n, i) + i ln p + (n−i) ln(1−p): the log of one binomial term. */
function logTerm(n: number, i: number, p: number, lnFact: Float64Array): number {
  return (
    (lnFact[n] as number) -
    (lnFact[i] as number) -
    (lnFact[n - i] as number) +
    i * Math.log(p) +
    (n - i) * Math.log1p(-p)
  );
}

/** P(X ≤ k) for X ~ Binomial(n, p), 0 < p < 1. */
function binomialCdf(k: number, n: number, p: number, lnFact: Float64Array): number {
  let s = 0;
  for (let i = 0; i <= k; i++) s += Math.exp(logTerm(n, i, p, lnFact));
  return Math.min(1, s);
}

function logFactorials(n: number): Float64Array {
  const f = new Float64Array(n + 1);
  for (let i = 2; i <= n; i++) f[i] = (f[i - 1] as number) + Math.log(i);
  return f;
}

/** The p in (0, 1) where the decreasing function f(p) crosses level, by bisection. */
function solveDecreasing(f: (p: number) => number, level: number): number {
  let lo = 0;
  let hi = 1;
  for (let i = 0; i < 100; i++) {
    const mid = (lo + hi) / 2;
    if (f(mid) > level) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * The exact (Clopper–Pearson) interval for k successes of n: the p at which seeing k or
 * more (low), or k or fewer (high), has probability (1 − confidence)/2.
 */
export function clopperPearson(k: number, n: number, confidence = 0.95): Interval {
  checkCounts(k, n);
  const tail = (1 - confidence) / 2;
  const lnFact = logFactorials(n);
  // P(X ≤ k | p) decreases in p.
  const low = k === 0 ? 0 : solveDecreasing((p) => binomialCdf(k - 1, n, p, lnFact), 1 - tail);
  const high = k === n ? 1 : solveDecreasing((p) => binomialCdf(k, n, p, lnFact), tail);
  return { low, high };
}
