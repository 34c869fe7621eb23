/** The time range the timeline shows: kept inside the run, never under half a millisecond, zoomed and panned. */

export type Range = [number, number];

/** [a, b] kept inside `full`, at least 0.5 ms and at most the whole run, moved rather than cut at an edge. */
export function clampView(a: number, b: number, full: Range): Range {
  let span = Math.max(b - a, 0.5);
  const max = full[1] - full[0];
  if (span > max) span = max;
  const lo = Math.max(full[0], Math.min(a, full[1] - span));
  return [lo, lo + span];
}

/** The view scaled by `f` around its middle (0.5: zoom in, 2: zoom out). */
export function zoomed(view: Range, f: number): Range {
  const mid = (view[0] + view[1]) / 2;
  const half = ((view[1] - view[0]) * f) / 2;
  return [mid - half, mid + half];
}

/** The view scaled by `f` around the time `at` (a wheel's zoom keeps the time under the pointer in place). */
export function zoomedAt(view: Range, at: number, f: number): Range {
  return [at - (at - view[0]) * f, at + (view[1] - at) * f];
}

/** The view moved by `f` of its span (negative: earlier). */
export function panned(view: Range, f: number): Range {
  const d = (view[1] - view[0]) * f;
  return [view[0] + d, view[1] + d];
}
