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
  second: { process: number; start?: number; acquireIndex?: number };
}

interface FaultStart {
  process: number;
  time: number;
  /** A wire fault's mode: `stop` let the request go and stopped the client after it. */
  mode?: unknown;
}

/** The run's faults that stopped or caught a process (their start records). */
function faultStarts(history: readonly Op[]): FaultStart[] {
  const found: FaultStart[] = [];
  for (const op of history) {
    if (op.process !== 'nemesis' || op.type !== 'ok' || !op.f.startsWith('start-')) continue;
    const value = op.value as { process?: unknown; mode?: unknown; holder?: { process?: unknown } } | undefined;
    if (typeof value?.process === 'number') found.push({ process: value.process, time: op.time, mode: value.mode });
    // A node fault that kept a client stopped while its node was out (kept-holder.ts).
    const kept = value?.holder?.process;
    if (typeof kept === 'number') found.push({ process: kept, time: op.time });
  }
  return found;
}

/**
 * Whether the pair's later holder is by rights the earlier: a `wire:<request>:stop` let its
 * acquire's request reach the server and stopped it before the acquire answered, until
 * another client held the lock. Its grant came first; its belief started late only because
 * it was stopped holding (a holder stopped past its lease, as the earlier holder of any
 * other pair). A pause before a request is not this: that request reached the server after
 * the handover, and a library that took its answer for the lock's is the one at fault.
 */
function stoppedAfterItsGrant(pair: OverlapPair, starts: readonly FaultStart[], history: readonly Op[]): boolean {
  const { process, start, acquireIndex } = pair.second;
  const invoked = history.findLast(
    (op) => op.process === process && op.type === 'invoke' && op.f === 'acquire' && op.index < (acquireIndex ?? -1),
  )?.time;
  if (invoked === undefined || start === undefined) return false;
  return starts.some((f) => f.process === process && f.mode === 'stop' && f.time >= invoked && f.time <= start);
}

/**
 * Whether an invalid run's counted violations are all overlaps whose earlier holder a fault
 * stopped (the earlier by its grant: stoppedAfterItsGrant): only then is it the lease argument. A lost update or a stale token with no such
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
  const starts = faultStarts(history);
  const faulted = new Set(starts.map((f) => f.process));
  if (!pairs.every((p) => faulted.has(p.first.process) || stoppedAfterItsGrant(p, starts, history))) return false;
  // What else failed follows from those overlaps (the stale holder's write lost the adds).
  return counted.every((r) => r.checker === 'mutual-exclusion' || r.checker === 'lost-updates');
}
