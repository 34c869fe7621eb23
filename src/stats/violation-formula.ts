/**
 * The formula for how likely a lease lock is violated, from the dispatch this project grew
 * from: with k pauses of lock holders in a run, each independent,
 *
 *     P(violation) = 1 − Π_{i=1..k} (1 − P(Pause_i > T_valid))
 *
 * where T_valid is the validity the holder believed it had left when the pause began. It
 * assumes (1) pauses are independent of each other, (2) T_valid is fixed (the holder's
 * belief, not the server's clock: under Redlock T_valid = TTL − elapsed − drift, so clock
 * drift on the masters enters only through that term), and (3) a pause that outlives
 * T_valid is a violation: someone else acquires before the paused holder wakes. Where (3)
 * fails (nobody was waiting, or the gap was shorter than the others' backoff) the formula
 * overstates what is observed; the sweep shows those runs.
 */

/** One pause of a holder, as measured: its length and the validity the holder believed it had left. */
export interface PauseAgainstLease {
  pauseMs: number;
  validityLeftMs: number;
}

/** 1 − Π(1 − p_i): the chance that at least one of independent events of probabilities p_i happens. */
export function violationProbability(perPause: readonly number[]): number {
  let logNone = 0;
  for (const p of perPause) {
    if (!(p >= 0 && p <= 1)) throw new RangeError(`a probability is in [0, 1], got ${p}`);
    logNone += Math.log1p(-p);
  }
  return 0 - Math.expm1(logNone); // 0 − x, not −x: no −0 for no pauses
}

/** How many of the pauses outlived the validity their holder had left: k of n, for P(Pause > T_valid). */
export function pausesOutlivingLease(pauses: readonly PauseAgainstLease[]): { k: number; n: number } {
  return { k: pauses.filter((p) => p.pauseMs > p.validityLeftMs).length, n: pauses.length };
}

/**
 * The formula's prediction of P(run invalid) over runs with the given numbers of pauses,
 * each pause outliving its lease with probability p (identically distributed, independent):
 * the mean over runs of 1 − (1 − p)^k.
 */
export function predictedRunViolation(p: number, pausesPerRun: readonly number[]): number {
  if (pausesPerRun.length === 0) return 0;
  let sum = 0;
  for (const k of pausesPerRun) sum += violationProbability(new Array<number>(k).fill(p));
  return sum / pausesPerRun.length;
}
