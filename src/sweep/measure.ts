/**
 * What one sweep run measured, from its stored history and results: every client pause as
 * applied (the nemesis's start and stop, not the length it drew) against the validity its
 * holder believed it had left when the pause began (the grant's validityMs, counted from
 * the acquire's completion), and what the checkers found.
 */
import { faultWindows } from '../../checkers/fault-windows.js';
import { type Hold, holds } from '../../checkers/mutual-exclusion.js';
import { decodeGrant } from '../../checkers/op-values.js';
import type { Validity } from '../../checkers/result.js';
import { firstSaid, wordsOf } from '../../checkers/words-registry.js';
import type { LoadedRun } from '../run-data/run-folder.js';
import type { PauseAgainstLease } from '../stats/violation-formula.js';

export interface MeasuredPause extends PauseAgainstLease {
  /** The length the nemesis drew (its start's `ms`), to compare with what was applied. */
  drawnMs: number | null;
  /** When it began, seconds into the run. */
  atS: number;
}

export interface RunMeasure {
  dir: string;
  seed: number;
  verdict: Validity;
  /** The run did not run as configured (its conditions). */
  notAsConfigured: boolean;
  grants: number;
  /** The validity each grant carried, ms (what the holder believed at the grant). */
  validityMs: number[];
  /** Overlapping holds a checker of the holds found (counted or not). */
  overlaps: number;
  /** A counted checker of the data found a violation (lost update, stale token accepted, store not linearizable). */
  dataViolation: boolean;
  /** Pauses of a client that held the lock when it stopped. */
  pauses: MeasuredPause[];
  /** Pauses that caught a client no longer holding (it released between the pick and SIGSTOP). */
  pausesOfNoHolder: number;
}

interface PauseValue {
  process?: number;
  ms?: number;
}

/**
 * The grant `process` held at `time` (the mutual-exclusion checker's holds: from the
 * acquire's completion to the release's invocation or an info), with the validity it
 * carried; null when it held none, or its grant carried no validity.
 */
function grantHeldAt(
  held: readonly Hold[],
  validityAt: ReadonlyMap<number, number>,
  process: number,
  time: number,
): { at: number; validityMs: number } | null {
  const hold = held.find((h) => h.process === process && h.start <= time && time < h.end);
  const validityMs = hold ? validityAt.get(hold.acquireIndex) : undefined;
  return hold && validityMs !== undefined ? { at: hold.start, validityMs } : null;
}

export function measureRun(
  run: Pick<LoadedRun, 'dir' | 'config' | 'history' | 'results' | 'valid' | 'conditions'>,
): RunMeasure {
  // The validity each grant carried, by the index of its acquire's completion.
  const validityAt = new Map<number, number>();
  for (const op of run.history) {
    const validityMs = op.f === 'acquire' && op.type === 'ok' ? decodeGrant(op.value).validityMs : undefined;
    if (validityMs !== undefined) validityAt.set(op.index, validityMs);
  }
  const held = holds(run.history);
  const pauses: MeasuredPause[] = [];
  let pausesOfNoHolder = 0;
  for (const w of faultWindows(run.history)) {
    if (w.f !== 'client-pause' || w.end === undefined) continue;
    const v = (w.value ?? {}) as PauseValue;
    const grant = typeof v.process === 'number' ? grantHeldAt(held, validityAt, v.process, w.start) : null;
    if (!grant) {
      pausesOfNoHolder++;
      continue;
    }
    pauses.push({
      pauseMs: (w.end - w.start) / 1e6,
      validityLeftMs: grant.validityMs - (w.start - grant.at) / 1e6,
      drawnMs: typeof v.ms === 'number' ? v.ms : null,
      atS: w.start / 1e9,
    });
  }
  const validityMs = [...validityAt.values()];
  return {
    dir: run.dir,
    seed: run.config.seed,
    verdict: run.valid,
    notAsConfigured: run.conditions.length > 0,
    grants: validityMs.length,
    validityMs,
    overlaps: firstSaid(run.results, (w, r) => w.overlappingHolds?.(r)) ?? 0,
    dataViolation: run.results.some((r) => r.counts !== false && r.valid === false && wordsOf(r).judges === 'data'),
    pauses,
    pausesOfNoHolder,
  };
}
