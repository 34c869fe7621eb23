/**
 * Was the lock available? The share of acquires ok outside fault windows, as perf measured
 * it, against the least a scenario or a campaign cell expects. A lock that answers nobody
 * is not a correct configuration, whatever its safety verdict.
 */
import { perfDetailsOf } from './perf.js';
import type { CheckResult } from './result.js';

/**
 * When the run's acquires outside fault windows were ok less often than `min` (a share,
 * 0..1), the shortfall in words; undefined when met or when perf measured nothing.
 */
export function availabilityShortfall(results: readonly CheckResult[], min: number): string | undefined {
  const got = perfDetailsOf(results)?.kinds.acquire?.outside?.availability;
  if (got === undefined)
    return `acquire availability outside faults was not measured (expected at least ${percent(min)})`;
  if (got === null) return `no acquire was tried outside faults (expected at least ${percent(min)} ok)`;
  if (got >= min) return undefined;
  return `acquire ok outside faults ${percent(got)}, expected at least ${percent(min)}`;
}

const percent = (x: number) => `${Math.round(x * 1000) / 10}%`;
