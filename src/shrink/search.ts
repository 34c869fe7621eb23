/**
 * The search for the smallest reproducer of a failing run, as property-based testing
 * shrinks a failing input: drop faults (delta debugging, Zeller's ddmin), then move the
 * survivors to the start and shorten their durations and the time limit, then lower the
 * concurrency. A candidate is kept only when it is invalid in at least `minHits` of
 * `trials` fresh runs, so a fluke does not shrink the reproducer into one that rarely
 * fails; at the end the best must be invalid in every one of as many runs again. The runner is given (a real run in `lockchaos shrink`, a fake in tests); budgets
 * end the search with the best found so far.
 */
import type { ScheduledFault } from '../nemesis/schedule.js';

/** What the search varies: the faults, the time limit, the clients. */
export interface Candidate {
  faults: ScheduledFault[];
  timeLimitS: number;
  concurrency: number;
}

/** One fresh run of a candidate. */
export interface Trial {
  /** A counted violation: the run's verdict is invalid. */
  invalid: boolean;
  /** The verdict in a word, or the error, for the record. */
  verdict: string;
  /** The run's folder, when it made one. */
  dir?: string;
  seed?: number;
}

/** A candidate as tried: which step proposed it, each trial, and whether it was kept. */
export interface Tried {
  step: Step;
  candidate: Candidate;
  trials: Trial[];
  kept: boolean;
}

export type Step =
  | 'drop faults'
  | 'move faults to the start'
  | 'shorten a fault'
  | 'shorten the time limit'
  | 'fewer clients'
  | 'confirm';

export interface SearchOptions {
  /** Fresh runs per candidate (default 3). */
  trials: number;
  /** Invalid runs a candidate needs of its trials to be kept (default 2). */
  minHits: number;
  /** Runs the whole search may make. */
  maxRuns: number;
  /** When the search ends at the latest: ms since the epoch. */
  deadline: number;
  /** Where the first fault may be moved: ms after the workload's start (clients warm). */
  leadMs: number;
  /** Time the workload needs after the last fault ends to show its violation. */
  tailMs: number;
  /** The fewest clients a violation needs (two holders: 2). */
  minConcurrency: number;
  /** The shortest a fault may become. */
  minDurationMs: number;
  now?: () => number;
  signal?: AbortSignal;
  /** Each candidate as it is decided, with the best so far. */
  onTried?: (tried: Tried, best: Candidate, runs: number) => void;
}

export interface SearchResult {
  best: Candidate;
  /** The best candidate's invalid trials (the original's when nothing smaller was kept). */
  bestTrials: Trial[];
  tried: Tried[];
  runs: number;
  /** Why the search ended before it had tried everything; undefined: it finished. */
  stoppedBy?: 'max-runs' | 'time-limit' | 'interrupted';
}

type RunTrial = (candidate: Candidate, trial: number) => Promise<Trial>;

/** Ends of faults: the latest moment a fault is in effect. */
const lastEndMs = (faults: readonly ScheduledFault[]) => Math.max(0, ...faults.map((f) => f.atMs + f.durationMs));

/** Splits a list into n chunks of near-equal size, in order. */
function chunks<T>(items: readonly T[], n: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < n; i++) {
    const part = items.slice(Math.floor((i * items.length) / n), Math.floor(((i + 1) * items.length) / n));
    if (part.length > 0) out.push(part);
  }
  return out;
}

class Budget extends Error {
  constructor(readonly why: NonNullable<SearchResult['stoppedBy']>) {
    super(why);
  }
}

export async function searchSmallest(
  original: Candidate,
  runTrial: RunTrial,
  opts: SearchOptions,
): Promise<SearchResult> {
  const now = opts.now ?? Date.now;
  const tried: Tried[] = [];
  let runs = 0;
  let best = original;
  let bestTrials: Trial[] = [];

  /** Runs a candidate's trials (`need` of them invalid to keep it), stopping once decided. */
  const attempt = async (step: Step, candidate: Candidate, need = opts.minHits): Promise<boolean> => {
    const trials: Trial[] = [];
    let hits = 0;
    for (let k = 0; k < opts.trials; k++) {
      if (hits >= need || k - hits > opts.trials - need) break;
      if (opts.signal?.aborted) throw new Budget('interrupted');
      if (runs >= opts.maxRuns) throw new Budget('max-runs');
      if (now() >= opts.deadline) throw new Budget('time-limit');
      runs++;
      const trial = await runTrial(candidate, k);
      trials.push(trial);
      if (trial.invalid) hits++;
    }
    const kept = hits >= need;
    const record = { step, candidate, trials, kept };
    tried.push(record);
    if (kept) {
      best = candidate;
      bestTrials = trials.filter((t) => t.invalid);
    }
    opts.onTried?.(record, best, runs);
    return kept;
  };

  /**
   * The best is run again with fresh seeds and must be invalid in every one: a candidate
   * kept on a lucky streak (two hits of a reproducer that fails half the time) gives way
   * to the one kept before it. A reproducer is for reproducing.
   */
  const confirm = async () => {
    const kept = tried.filter((t) => t.kept).map((t) => t.candidate);
    for (let c = kept.pop(); c; c = kept.pop()) {
      best = c;
      if (await attempt('confirm', c, opts.trials)) return;
    }
    best = original;
    bestTrials = [];
  };

  try {
    await dropFaults(() => best, attempt);
    await moveAndShorten(() => best, attempt, opts);
    await fewerClients(() => best, attempt, opts);
    await confirm();
  } catch (err) {
    if (!(err instanceof Budget)) throw err;
    return { best, bestTrials, tried, runs, stoppedBy: err.why };
  }
  return { best, bestTrials, tried, runs };
}

type Attempt = (step: Step, candidate: Candidate) => Promise<boolean>;

/**
 * ddmin over the faults: try each chunk alone, then each complement, at growing
 * granularity; a kept subset starts over from it. Ends with one fault at least (a run
 * without faults is not a reproducer of a fault).
 */
async function dropFaults(best: () => Candidate, attempt: Attempt): Promise<void> {
  let n = 2;
  while (best().faults.length >= 2) {
    const faults = best().faults;
    const parts = chunks(faults, Math.min(n, faults.length));
    let reduced = false;
    for (const part of parts) {
      if (await attempt('drop faults', { ...best(), faults: part })) {
        n = 2;
        reduced = true;
        break;
      }
    }
    // With two parts the complements are the parts themselves.
    if (!reduced && parts.length > 2) {
      for (const part of parts) {
        const rest = faults.filter((f) => !part.includes(f));
        if (await attempt('drop faults', { ...best(), faults: rest })) {
          n = Math.max(n - 1, 2);
          reduced = true;
          break;
        }
      }
    }
    if (!reduced) {
      if (n >= faults.length) return;
      n = Math.min(2 * n, faults.length);
    }
  }
}

/**
 * Moves the faults to the start (keeping their spacing), cuts the time limit toward the
 * last fault's end plus the tail (three bisection steps at most: each step that fails
 * costs a whole run), then halves each fault's duration while that still fails. The time
 * limit goes first: a fault shortened to the edge of failing (kept on a lucky streak, and
 * dropped again by the confirmation) must not be what the time limit is judged on.
 */
async function moveAndShorten(best: () => Candidate, attempt: Attempt, opts: SearchOptions): Promise<void> {
  const first = Math.min(...best().faults.map((f) => f.atMs));
  if (best().faults.length > 0 && first > opts.leadMs) {
    const shift = first - opts.leadMs;
    await attempt('move faults to the start', {
      ...best(),
      faults: best().faults.map((f) => ({ ...f, atMs: f.atMs - shift })),
    });
  }
  let floorS = Math.ceil((lastEndMs(best().faults) + opts.tailMs) / 1000);
  for (let step = 0; step < 3 && floorS < best().timeLimitS; step++) {
    const limitS = step === 0 ? floorS : Math.floor((floorS + best().timeLimitS) / 2);
    if (limitS >= best().timeLimitS) break;
    if (!(await attempt('shorten the time limit', { ...best(), timeLimitS: limitS }))) floorS = limitS + 1;
  }
  for (let i = 0; i < best().faults.length; i++) {
    for (;;) {
      const fault = best().faults[i] as ScheduledFault;
      const shorter = Math.max(opts.minDurationMs, Math.round(fault.durationMs / 2));
      if (shorter >= fault.durationMs) break;
      const faults = best().faults.map((f, j) => (j === i ? { ...f, durationMs: shorter } : f));
      if (!(await attempt('shorten a fault', { ...best(), faults }))) break;
    }
  }
}

/** Bisects the clients between the fewest a violation needs and the current count. */
async function fewerClients(best: () => Candidate, attempt: Attempt, opts: SearchOptions): Promise<void> {
  let lo = opts.minConcurrency;
  while (lo < best().concurrency) {
    const mid = Math.floor((lo + best().concurrency) / 2);
    if (!(await attempt('fewer clients', { ...best(), concurrency: mid }))) lo = mid + 1;
  }
}

/** Whether the search found something smaller than the original, in any of its measures. */
export function isSmaller(a: Candidate, original: Candidate): boolean {
  const total = (c: Candidate) => c.faults.reduce((s, f) => s + f.durationMs, 0);
  return (
    a.faults.length < original.faults.length ||
    a.timeLimitS < original.timeLimitS ||
    a.concurrency < original.concurrency ||
    total(a) < total(original)
  );
}
