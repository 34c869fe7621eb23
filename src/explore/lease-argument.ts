/**
 * A violation that says nothing about the library: without fencing, a holder the fault
 * itself stopped (a client pause inside its hold, a wire stop right after its acquire),
 * or one whose lease had run out by the next grant however it got there (a write slowed
 * by a loaded machine), outlives any lease, and the next holder overlaps it. That is the
 * lease argument the scenarios show, true of every lease lock; an exploration without
 * fencing reports such a try apart and goes on trying the point, rather than call the
 * library broken there. The lease is the one the library stated (its grant's validity,
 * its last extension's): a library that claims more than it holds is still caught.
 */
import { type StoredHold, storedHold } from '../../checkers/hold.js';
import { leaseLapsed } from '../../checkers/mutual-exclusion.js';
import type { Op } from '../history/op.js';

interface OverlapPair {
  first: StoredHold & { process: number };
  second: StoredHold & { process: number };
}

/** Whether the pair's earlier holder's lease, as its library stated it, had run out by the later's grant. */
function lapsedBefore(pair: OverlapPair, history: readonly Op[]): boolean {
  const first = storedHold(pair.first);
  const second = storedHold(pair.second);
  return first !== undefined && second !== undefined && leaseLapsed(history, first, second) !== undefined;
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
 * Whether an invalid run's counted violations are all overlaps of the lease argument: the
 * earlier holder (the earlier by its grant: stoppedAfterItsGrant) was stopped by a fault,
 * or its stated lease had run out by the later one's grant (lapsedBefore). Only then is
 * the try set apart. A lost update or a stale token with no such overlap, or an overlap of
 * two holders within their leases that no fault touched (a release that deleted the next
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
  const theLease = (p: OverlapPair) =>
    faulted.has(p.first.process) || stoppedAfterItsGrant(p, starts, history) || lapsedBefore(p, history);
  if (!pairs.every(theLease)) return false;
  // What else failed follows from those overlaps (the stale holder's write lost the adds).
  return counted.every((r) => r.checker === 'mutual-exclusion' || r.checker === 'lost-updates');
}
