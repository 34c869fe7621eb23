/**
 * The order of an exploration's tries: likeliest to matter first. A step of the library's
 * own code between grant and release is judged by a heuristic (the baseline's history does
 * not say which request fell inside a hold): a request sent, or a point the library
 * announced (an auto-extension's in-extend), about as often as the lock was acquired is the
 * grant's, the release's or the hold's own (DEL, INCR, EVAL of a release, an extension
 * before the holder works). The harness's standard points after-grant, in-hold and
 * before-release are inside the hold by name, and so is in-extend however often it comes
 * (an extension renews a lease its holder holds). Points not reached are not tried; points
 * never hit by a fault come before points already hit (a baseline hits none, so this
 * orders by the hold heuristic alone until a caller passes hits).
 */
import type { Candidate, LearnedPoint } from './candidates.js';

/** The points the harness itself names in every hold: where they are says nothing of the library. */
const HARNESS_IN_HOLD = new Set(['after-grant', 'in-hold', 'before-release']);

/**
 * 0 likeliest: a request or a point of the library's about as frequent as acquires (its
 * own step of a cycle); 1 the standard points inside the hold (in-extend too); 2 the
 * library's other points and requests; 3 the rest.
 */
export function likelihoodRank(p: LearnedPoint, acquires: number): number {
  const oncePerCycle = acquires > 0 && p.reached >= acquires * 0.5 && p.reached <= acquires * 2;
  if (oncePerCycle && !HARNESS_IN_HOLD.has(p.point)) return 0;
  if (HARNESS_IN_HOLD.has(p.point) || p.point === 'in-extend') return 1;
  return p.reached > 0 ? 2 : 3;
}

/**
 * The candidates, ordered: by rank of their point, then points less hit before more hit,
 * then the learned order (stable); the faults of one point stay interleaved so that one
 * point does not use the whole budget before the next is tried.
 */
export function orderCandidates(
  candidates: readonly Candidate[],
  points: readonly LearnedPoint[],
  acquires: number,
  hits: Readonly<Record<string, number>> = {},
): Candidate[] {
  const info = new Map(points.map((p, i) => [p.point, { rank: likelihoodRank(p, acquires), i }]));
  const key = (c: Candidate) => info.get(c.point) ?? { rank: 4, i: points.length };
  return [...candidates]
    .map((c, i) => ({ c, i }))
    .sort((a, b) => {
      const ka = key(a.c);
      const kb = key(b.c);
      return ka.rank - kb.rank || (hits[a.c.point] ?? 0) - (hits[b.c.point] ?? 0) || ka.i - kb.i || a.i - b.i;
    })
    .map(({ c }) => c);
}
