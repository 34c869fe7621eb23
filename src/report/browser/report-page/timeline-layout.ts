/**
 * The timeline's geometry: a label column, an axis, a row per concurrent fault, then a lane
 * per client process with its bars above and its lock holds under them.
 */
import type { Violation } from '../../report-data-types.js';
import type { ReportPageData } from './page-data.js';

export const LABEL_W = 92;
export const RIGHT = 14;
export const AXIS_H = 24;
export const FAULT_H = 18;
export const LANE_H = 30;
export const BAR_Y = 5;
export const BAR_H = 14;
export const HOLD_Y = 22;
export const HOLD_H = 5;

/** Where the lanes begin and how tall the whole timeline is. */
export function timelineLayout(D: Pick<ReportPageData, 'faults' | 'lanes'>): { lanesTop: number; height: number } {
  const faultRows = D.faults.reduce((n, f) => Math.max(n, f.row + 1), 1);
  const lanesTop = AXIS_H + faultRows * FAULT_H;
  return { lanesTop, height: lanesTop + D.lanes.length * LANE_H + 6 };
}

/** The top and bottom of the band from one holder's lane to the other's; undefined unless both are drawn. */
export function twoLaneSpan(
  laneTop: (lane: number) => number,
  holds: NonNullable<Violation['holds']>,
): [number, number] | undefined {
  const drawn = holds.map((h) => h[0]).filter((l) => l >= 0);
  if (drawn.length !== 2) return undefined;
  return [laneTop(Math.min(drawn[0], drawn[1])), laneTop(Math.max(drawn[0], drawn[1])) + LANE_H];
}

/** How the view's times map to x at a width: the plot between the labels and the right margin. */
export interface TimelineScale {
  width: number;
  plotW: number;
  t0: number;
  t1: number;
  /** A time's x. */
  X: (t: number) => number;
  /** An x kept to the plot, give or take 3 px (an interval that runs out of view ends at its edge). */
  clampX: (x: number) => number;
}

export function timelineScale(clientWidth: number, view: readonly [number, number]): TimelineScale {
  const width = Math.max(clientWidth || 0, 480);
  const plotW = width - LABEL_W - RIGHT;
  const [t0, t1] = view;
  const k = plotW / (t1 - t0);
  return {
    width,
    plotW,
    t0,
    t1,
    X: (t) => LABEL_W + (t - t0) * k,
    clampX: (x) => Math.max(LABEL_W - 3, Math.min(LABEL_W + plotW + 3, x)),
  };
}

/** The time at x in a timeline `width` wide showing `view`: at the plot's edge for an x beyond it. */
export function timeAt(view: readonly [number, number], width: number, x: number): number {
  const plotW = width - LABEL_W - RIGHT;
  return view[0] + ((Math.max(LABEL_W, Math.min(LABEL_W + plotW, x)) - LABEL_W) / plotW) * (view[1] - view[0]);
}
