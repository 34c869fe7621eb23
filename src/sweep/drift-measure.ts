/**
 * What one drift-sweep run measured, from its stored history and results: each node-clock
 * drift as applied (which nodes it moved, what their clocks read back at its end, and the
 * rate that reading implies), and what the checkers found. A drift that moved no process
 * is counted apart: the point did not run as it says.
 */
import { faultWindows } from '../../checkers/fault-windows.js';
import type { Validity } from '../../checkers/result.js';
import { firstSaid, wordsOf } from '../../checkers/words-registry.js';
import type { LoadedRun } from '../run-data/run-folder.js';

export interface MeasuredDrift {
  /** The ρ the fault was asked for. */
  rho: number;
  /** How long the drift was in effect, ms (its window). */
  windowMs: number;
  /** The moved clock minus true time, ms, as read back at the drift's end (its first node's). */
  offsetMs: number | null;
  /** offsetMs over the window: the rate the reading implies (a little under ρ: read before the window closes). */
  readRho: number | null;
}

export interface DriftRunMeasure {
  dir: string;
  seed: number;
  verdict: Validity;
  notAsConfigured: boolean;
  /** Overlapping holds a checker of the holds found. */
  overlaps: number;
  dataViolation: boolean;
  /** Drifts that moved a process. */
  drifts: MeasuredDrift[];
  /** Drifts that moved none (every node refused or unreachable): the reasons as recorded. */
  driftsNotApplied: string[];
}

interface NodeClockStart {
  rate?: unknown;
  pids?: Record<string, unknown>;
  notWarped?: Record<string, unknown>;
}

const firstNumber = (readings: unknown): number | null => {
  if (typeof readings !== 'object' || readings === null) return null;
  const n = Object.values(readings).find((x) => typeof x === 'number' && Number.isFinite(x));
  return typeof n === 'number' ? n : null;
};

export function measureDriftRun(
  run: Pick<LoadedRun, 'dir' | 'config' | 'history' | 'results' | 'valid' | 'conditions'>,
): DriftRunMeasure {
  const drifts: MeasuredDrift[] = [];
  const driftsNotApplied: string[] = [];
  for (const w of faultWindows(run.history)) {
    if (w.f !== 'node-clock') continue;
    const v = (w.value ?? {}) as NodeClockStart;
    if (typeof v.rate !== 'number') continue;
    const moved = Object.values(v.pids ?? {}).some((p) => Array.isArray(p) && p.length > 0);
    if (!moved) {
      driftsNotApplied.push(
        Object.values(v.notWarped ?? {})
          .map(String)
          .join('; ') || 'no process moved',
      );
      continue;
    }
    const windowMs = w.end === undefined ? null : (w.end - w.start) / 1e6;
    const during = (w.stopValue as { clock?: { during?: unknown } } | undefined)?.clock?.during;
    const offsetMs = firstNumber(during);
    drifts.push({
      rho: v.rate,
      windowMs: windowMs ?? 0,
      offsetMs,
      readRho: offsetMs === null || windowMs === null || windowMs <= 0 ? null : offsetMs / windowMs,
    });
  }
  return {
    dir: run.dir,
    seed: run.config.seed,
    verdict: run.valid,
    notAsConfigured: run.conditions.length > 0,
    overlaps: firstSaid(run.results, (w, r) => w.overlappingHolds?.(r)) ?? 0,
    dataViolation: run.results.some((r) => r.counts !== false && r.valid === false && wordsOf(r).judges === 'data'),
    drifts,
    driftsNotApplied,
  };
}
