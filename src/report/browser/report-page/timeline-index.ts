/**
 * The timeline's data by lane, for drawing only what is in view: each lane's bars and holds
 * (in time order, as the model writes them), and each history entry's bar.
 */
import type { ReportPageData } from './page-data.js';

export interface TimelineIndex {
  /** Per lane, its bars' ids (positions in D.bars). */
  laneBars: number[][];
  /** Per lane, its holds' ids (positions in D.holds). */
  laneHolds: number[][];
  /** Bar id by history entry index: its invocation's and its completion's. */
  byIndex: Record<number, number>;
}

export function indexTimeline(D: ReportPageData): TimelineIndex {
  const laneBars: number[][] = D.lanes.map(() => []);
  const laneHolds: number[][] = D.lanes.map(() => []);
  const byIndex: Record<number, number> = {};
  D.bars.forEach((b, i) => {
    laneBars[b[0]].push(i);
    byIndex[b[5]] = i;
    if (b[6] >= 0) byIndex[b[6]] = i;
  });
  D.holds.forEach((h, i) => {
    laneHolds[h[0]].push(i);
  });
  return { laneBars, laneHolds, byIndex };
}

/** An id's time (its start or its end). */
export type TimeOf = (id: number) => number;

/** First position in `list` (ids of sorted, disjoint intervals) whose end is at or after t. */
export function firstEnding(list: readonly number[], endOf: TimeOf, t: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (endOf(list[mid]) < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
