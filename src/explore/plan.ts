/**
 * The sequence of tries: round k gives each candidate seed + k, in the candidates' order,
 * skipping a point broken by then (its first counted violation ends its tries). The caller
 * adds to `broken` between tries; the plan reads it as it goes. It ends when every point
 * is broken, or after maxRounds rounds (the budget ends it first in practice).
 */
import type { Candidate } from './candidates.js';

export interface Try {
  candidate: Candidate;
  seed: number;
}

export function* tryPlan(
  candidates: readonly Candidate[],
  seed: number,
  broken: ReadonlySet<string>,
  maxRounds = 1000,
): Generator<Try> {
  for (let round = 0; round < maxRounds; round++) {
    let any = false;
    for (const candidate of candidates) {
      if (broken.has(candidate.point)) continue;
      any = true;
      yield { candidate, seed: seed + round };
    }
    if (!any) return;
  }
}
