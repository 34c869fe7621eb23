/**
 * Overlaps the machine made, not the lock. A client worker watches its own timers: a gap is
 * a time it did not run (the nemesis stopped it, or a loaded machine did not schedule it).
 * A gap under no fault of its client that carried a holder past its lease, into a hold of
 * another client, is a pause nobody configured: the overlap it explains is the harness's,
 * and the run says it did not run as configured rather than read it as the lock's.
 */
import type { FaultWindow } from '../../checkers/fault-windows.js';
import { leaseAt, leaseEnd as leaseEndOf } from '../../checkers/lease.js';
import { acquireInvokedAt, holdsOf, overlaps } from '../../checkers/mutual-exclusion.js';
import { secs } from '../../checkers/seconds.js';
import type { Op } from '../history/op.js';
import type { RunCondition } from '../run-data/conditions.js';

/** A time a client's worker did not run: ns since the workload's origin. */
export interface Stall {
  process: number;
  fromNs: number;
  toNs: number;
}

const lengthMs = (s: Stall) => ((s.toNs - s.fromNs) / 1e6).toFixed(0);

/** The longest of some stalls, if any. */
function longestOf(stalls: readonly Stall[]): Stall | undefined {
  return stalls.reduce<Stall | undefined>((a, s) => (!a || s.toNs - s.fromNs > a.toNs - a.fromNs ? s : a), undefined);
}

/**
 * The processes a fault names: a client fault's own (client-pause, client-kill, a code-point
 * or wire pause record `process`), or the holder a node fault kept stopped (`holder`).
 */
function faultedProcesses(w: FaultWindow): number[] {
  const v = w.value;
  if (v === null || typeof v !== 'object') return [];
  const named = [v, ...Object.values(v)].map((x) =>
    x !== null && typeof x === 'object' ? (x as { process?: unknown }).process : undefined,
  );
  return named.filter((p): p is number => typeof p === 'number');
}

/** Whether a fault on this client was in effect at any time of the stall (its own pause shows as one). */
function underItsFault(stall: Stall, windows: readonly FaultWindow[]): boolean {
  return windows.some(
    (w) =>
      faultedProcesses(w).includes(stall.process) &&
      w.start <= stall.toNs &&
      (w.end === undefined || w.end >= stall.fromNs),
  );
}

/** The stalls no fault explains: the machine's (or a worker's own garbage collection). */
export function unaskedStalls(stalls: readonly Stall[], windows: readonly FaultWindow[]): Stall[] {
  return stalls.filter((s) => !underItsFault(s, windows));
}

/** The run log's line about them, if any: how many, and the longest. */
export function stallsLine(unasked: readonly Stall[]): string | undefined {
  const longest = longestOf(unasked);
  if (!longest) return undefined;
  const times = unasked.length === 1 ? 'once' : `${unasked.length} times`;
  return `the machine stalled client workers ${times} with no fault on them (longest ${lengthMs(longest)} ms, process ${longest.process} at ${secs(longest.fromNs)})`;
}

/**
 * One condition per holder whose overlap a stall explains: stalls no fault explains
 * (unaskedStalls), in its hold (from its acquire's invoke when its lease had lapsed by the
 * grant), at least as long as the hold outlived its lease (its grant's validity, else the
 * run's TTL).
 */
export function stallsBehindOverlaps(history: readonly Op[], unasked: readonly Stall[], ttlMs: number): RunCondition[] {
  if (unasked.length === 0) return [];
  const found: RunCondition[] = [];
  const told = new Set<number>();
  for (const { first, second } of overlaps(holdsOf(history))) {
    if (told.has(first.acquireIndex)) continue;
    // From its last extension before the next grant, where its library extended it.
    const lease = leaseAt(history, first, second.start);
    const leaseEnd = lease ? leaseEndOf(lease) : first.start + ttlMs * 1e6;
    if (first.end <= leaseEnd) continue; // within its lease: the stall explains nothing
    // Only a stall in the hold it would explain: a lease that ran from the grant is carried
    // past its end by a stall after the grant alone (one before it came out of the validity
    // already, or out of no lease: a session lock's wait). A lease that had lapsed by the
    // grant (etcd's, ZooKeeper's session, made as the client began to wait) lapsed because
    // the stalled client could not keep it alive while it waited: from the acquire's invoke.
    const from = leaseEnd <= first.start ? acquireInvokedAt(history, first) : first.start;
    const inHold = unasked.filter((s) => s.process === first.process && s.fromNs < first.end && s.toNs > from);
    const stalledNs = inHold.reduce((sum, s) => sum + Math.min(s.toNs, first.end) - Math.max(s.fromNs, from), 0);
    const longest = longestOf(inHold);
    if (!longest || first.end - stalledNs > leaseEnd) continue;
    told.add(first.acquireIndex);
    found.push({
      kind: 'machine-stall',
      message: `the machine stalled process ${first.process} for ${lengthMs(longest)} ms at ${secs(longest.fromNs)} while it acquired or held the lock, with no fault on it: its hold outlived its lease into process ${second.process}'s (op #${second.acquireIndex}), an overlap the harness made (too loaded to run as configured)`,
    });
  }
  return found;
}
