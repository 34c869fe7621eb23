/**
 * Level of detail: what of a lane's intervals is in view, each drawn alone, except that
 * intervals narrower than 3 px that touch merge into one, so a 100k-operation history
 * stays light to draw.
 */
import { firstEnding, type TimeOf } from './timeline-index.js';

/** The view's time range and how times map to x. */
export interface InView {
  t0: number;
  t1: number;
  /** A time's x, kept to the plot (and a few pixels either side). */
  x: (t: number) => number;
}

/** Calls `one` for each interval wide enough to draw alone, `many` for each run of merged ones, in time order. */
export function levelOfDetail(
  list: readonly number[],
  start: TimeOf,
  end: TimeOf,
  view: InView,
  one: (id: number, x0: number, x1: number) => void,
  many: (ids: number[], x0: number, x1: number) => void,
): void {
  let merged: { x0: number; x1: number; ids: number[] } | null = null;
  const flush = () => {
    if (!merged) return;
    if (merged.ids.length === 1) one(merged.ids[0], merged.x0, merged.x1);
    else many(merged.ids, merged.x0, merged.x1);
    merged = null;
  };
  for (let j = firstEnding(list, end, view.t0); j < list.length; j++) {
    const id = list[j];
    const st = start(id);
    if (st > view.t1) break;
    const x0 = view.x(st);
    const x1 = view.x(end(id));
    if (x1 - x0 < 3) {
      if (merged && x0 - merged.x1 < 2) {
        merged.x1 = Math.max(merged.x1, x1);
        merged.ids.push(id);
        continue;
      }
      flush();
      merged = { x0: x0, x1: x1, ids: [id] };
      continue;
    }
    flush();
    one(id, x0, x1);
  }
  flush();
}
