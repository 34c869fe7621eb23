/** The report's times: milliseconds since the test's origin, rounded to microseconds. */
import type { Op } from '../history/op.js';

/** Nanoseconds as milliseconds, rounded to the microsecond. */
export const ms = (ns: number) => Math.round(ns / 1e3) / 1e3;

/**
 * Each op's time in ms by its index (undefined: no such op); the last op wins when indices
 * repeat. An array when the indices are about 0..n (a run's always are), else a map.
 */
export function timesByIndex(history: readonly Op[]): (index: number) => number | undefined {
  let max = -1;
  for (const op of history) if (op.index > max) max = op.index;
  if (max < 2 * history.length + 1024) {
    const times = new Float64Array(max + 1).fill(Number.NaN);
    for (const op of history) times[op.index] = ms(op.time);
    return (i) => {
      const t = Number.isInteger(i) && i >= 0 && i <= max ? times[i] : Number.NaN;
      return Number.isNaN(t) ? undefined : t;
    };
  }
  const times = new Map<number, number>();
  for (const op of history) times.set(op.index, ms(op.time));
  return (i) => times.get(i);
}
