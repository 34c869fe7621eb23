import { describe, expect, it } from 'vitest';
import type { ScheduledFault } from '../nemesis/schedule.js';
import { type Candidate, isSmaller, type SearchOptions, searchSmallest, type Trial } from './search.js';

/** Eight faults, 3 s apart from 2 s on, each 1.6 s long; seeds 0-7. */
const faults: ScheduledFault[] = Array.from({ length: 8 }, (_, i) => ({
  kind: i % 2 ? 'client-pause' : 'clock',
  atMs: 2000 + 3000 * i,
  durationMs: 1600,
  seed: i,
}));
const original: Candidate = { faults, timeLimitS: 30, concurrency: 5 };

const options = (over: Partial<SearchOptions> = {}): SearchOptions => ({
  trials: 3,
  minHits: 2,
  maxRuns: 1000,
  deadline: Number.POSITIVE_INFINITY,
  leadMs: 1000,
  tailMs: 2000,
  minConcurrency: 2,
  minDurationMs: 100,
  ...over,
});

/**
 * The system under test, faked: a run breaks when faults 3 and 6 are both in it, each at
 * least 500 ms long, both over before the time limit with a second to spare, with two
 * clients or more.
 */
function breaks(c: Candidate): boolean {
  const needed = [3, 6].map((seed) => c.faults.find((f) => f.seed === seed));
  return (
    needed.every(
      (f) => f !== undefined && f.durationMs >= 500 && f.atMs + f.durationMs + 1000 <= c.timeLimitS * 1000,
    ) && c.concurrency >= 2
  );
}

const trial = (invalid: boolean): Trial => ({ invalid, verdict: invalid ? 'INVALID' : 'valid' });

describe('searchSmallest', () => {
  it('keeps exactly the faults that matter, shortened, early, with two clients', async () => {
    const result = await searchSmallest(original, async (c) => trial(breaks(c)), options());
    expect(result.stoppedBy).toBeUndefined();
    expect(result.best.faults.map((f) => f.seed)).toEqual([3, 6]);
    expect(result.best.faults.map((f) => f.durationMs)).toEqual([800, 800]);
    // Moved to the start (first at 1 s, spacing kept).
    expect(result.best.faults.map((f) => f.atMs)).toEqual([1000, 10000]);
    // The time limit is cut before the faults are shortened: to the last end (1.6 s faults) plus tail.
    expect(result.best.timeLimitS).toBe(Math.ceil((10000 + 1600 + 2000) / 1000));
    expect(result.best.concurrency).toBe(2);
    expect(breaks(result.best)).toBe(true);
    expect(isSmaller(result.best, original)).toBe(true);
    // A decided candidate stops its trials: two hits (or two misses) are enough of three.
    expect(result.tried.filter((t) => t.step !== 'confirm').every((t) => t.trials.length === 2)).toBe(true);
    // ...and the best is confirmed by as many fresh runs, all invalid.
    expect(result.tried.at(-1)).toMatchObject({ step: 'confirm', kept: true, candidate: result.best });
    expect(result.tried.at(-1)?.trials).toHaveLength(3);
    expect(result.runs).toBe(result.tried.reduce((n, t) => n + t.trials.length, 0));
    expect(result.bestTrials.every((t) => t.invalid)).toBe(true);
  });

  it('confirms the best at the end: one kept on a lucky streak gives way to the one before', async () => {
    // Two clients break it only the first time they are tried (two hits), never again.
    let twoClientRuns = 0;
    const lucky = async (c: Candidate) => trial(breaks(c) && (c.concurrency > 2 || ++twoClientRuns <= 2));
    const result = await searchSmallest(original, lucky, options());
    expect(result.best.concurrency).toBe(3);
    const confirms = result.tried.filter((t) => t.step === 'confirm');
    expect(confirms.map((t) => [t.candidate.concurrency, t.kept])).toEqual([
      [2, false],
      [3, true],
    ]);
    expect(result.bestTrials.length).toBe(3);
  });

  it('bisects the time limit when the shortest one no longer fails', async () => {
    const result = await searchSmallest(original, async (c) => trial(breaks(c) && c.timeLimitS >= 18), options());
    // 14 s fails; then 22 s and 18 s hold (three steps at most).
    expect(result.best.timeLimitS).toBe(18);
    expect(result.tried.filter((t) => t.step === 'shorten the time limit').map((t) => t.candidate.timeLimitS)).toEqual([
      14, 22, 18,
    ]);
  });

  it('takes no fluke: a candidate invalid once of three is not kept', async () => {
    // Reproducers always fail; everything else fails on its first trial only.
    const flaky = async (c: Candidate, k: number) => trial(breaks(c) || k === 0);
    const result = await searchSmallest(original, flaky, options());
    expect(result.best.faults.map((f) => f.seed)).toEqual([3, 6]);
    expect(breaks(result.best)).toBe(true);
    expect(result.tried.filter((t) => t.kept).every((t) => breaks(t.candidate))).toBe(true);
    // With one hit enough, flukes are kept on the way, and only the confirmation (every
    // fresh run invalid) turns them away at the end.
    const credulous = await searchSmallest(original, flaky, options({ minHits: 1 }));
    expect(credulous.tried.some((t) => t.kept && t.step !== 'confirm' && !breaks(t.candidate))).toBe(true);
    expect(credulous.tried.some((t) => t.step === 'confirm' && !t.kept)).toBe(true);
    expect(credulous.best === original || breaks(credulous.best)).toBe(true);
  });

  it('says the original is minimal when nothing smaller fails', async () => {
    const minimal: Candidate = { faults: [faults[3] as ScheduledFault], timeLimitS: 5, concurrency: 2 };
    const result = await searchSmallest(minimal, async (c) => trial(c === minimal), options({ leadMs: 5000 }));
    expect(result.best).toBe(minimal);
    expect(isSmaller(result.best, minimal)).toBe(false);
    expect(result.tried.some((t) => t.kept)).toBe(false);
  });

  it('ends at its budget with the best found so far', async () => {
    const result = await searchSmallest(original, async (c) => trial(breaks(c)), options({ maxRuns: 15 }));
    expect(result.stoppedBy).toBe('max-runs');
    // Halves (4 runs) and quarters (8) fail; the first complement (2) is kept.
    expect(result.runs).toBe(15);
    expect(breaks(result.best)).toBe(true);
    expect(result.best.faults.length).toBeLessThan(original.faults.length);

    let t = 0;
    const timed = await searchSmallest(
      original,
      async (c) => {
        t += 10_000;
        return trial(breaks(c));
      },
      options({ now: () => t, deadline: 45_000 }),
    );
    expect(timed.stoppedBy).toBe('time-limit');
    expect(timed.runs).toBe(5);

    const abort = new AbortController();
    abort.abort();
    const interrupted = await searchSmallest(
      original,
      async (c) => trial(breaks(c)),
      options({ signal: abort.signal }),
    );
    expect(interrupted).toMatchObject({ stoppedBy: 'interrupted', runs: 0, best: original });
  });
});
