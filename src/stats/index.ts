/** Statistics for sweeps and benchmarks: pure functions, no I/O. */
export { clopperPearson, type Interval, wilson, zOf } from './binomial-interval.js';
export { jainIndex } from './fairness.js';
export { MIN_BEYOND, nearestRank, type Quantile, quantileName, quantiles, samplesNeeded } from './quantiles.js';
export {
  type PauseAgainstLease,
  pausesOutlivingLease,
  predictedRunViolation,
  violationProbability,
} from './violation-formula.js';
