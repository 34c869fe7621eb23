/**
 * A violation that says nothing about the library: without fencing, a holder the fault
 * itself stopped (a client pause inside its hold, a wire stop right after its acquire)
 * outlives any lease, and the next holder overlaps it. That is the lease argument the
 * scenarios show, true of every lease lock; an exploration without fencing reports such a
 * try apart and goes on trying the point, rather than call the library broken there.
 */
import type { Op } from '../history/op.js';

interface OverlapPair {
  first: { process: number };
  second: { process: number };
}

/** The processes the run's faults stopped or caught (their start records' `process`). */
function faultedProcesses(history: readonly Op[]): Set<number> {
  const found = new Set<number>();
  for (const op of history) {
    if (op.process !== 'nemesis' || op.type !== 'ok' || !op.f.startsWith('start-')) continue;
    const p = (op.value as { process?: unknown } | undefined)?.process;
    if (typeof p === 'number') found.add(p);
  }
  return found;
}

/**
 * Whether an invalid run's counted violations are all overlaps whose earlier holder a fault
 * stopped: only then is it the lease argument. A lost update or a stale token with no such
 * overlap, or an overlap of two holders no fault touched (a release that deleted the next
 * holder's lock), is the library's.
 */
export function onlyTheLeaseArgument(
  results: readonly { checker: string; counts?: boolean; valid: unknown; details?: unknown }[],
  history: readonly Op[],
): boolean {
  const counted = results.filter((r) => r.counts !== false && r.valid === false);
  const exclusion = counted.find((r) => r.checker === 'mutual-exclusion');
  const pairs = (exclusion?.details as { pairs?: OverlapPair[] } | undefined)?.pairs;
  if (!Array.isArray(pairs) || pairs.length === 0) return false;
  const faulted = faultedProcesses(history);
  if (!pairs.every((p) => faulted.has(p.first.process))) return false;
  // What else failed follows from those overlaps (the stale holder's write lost the adds).
  return counted.every((r) => r.checker === 'mutual-exclusion' || r.checker === 'lost-updates');
}
